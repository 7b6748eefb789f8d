"""iperf3 client output (``iperf3 -J``, or ``--json-stream``): one row per file, from the end summary.

The format and its variants, tool version by tool version: raw_data/FORMATS.md, "iperf3".
"""
from __future__ import annotations

import json
import math
import re
from pathlib import Path

from pipeline.ingest.base import Format, ParseError, read_text_strict, require_nonempty

# The top-level "end" is the first key "end" whose value is an object: the
# "end" keys inside intervals hold numbers, and "start" never has one.
_END_KEY = re.compile(r'"end"\s*:\s*\{')
_ERROR_KEY = re.compile(r'"error"\s*:')


def _line_of(text: str, pattern: re.Pattern) -> int | None:
    m = pattern.search(text)
    return text.count("\n", 0, m.start()) + 1 if m else None


def _get(doc, *keys):
    for k in keys:
        if isinstance(k, int):
            doc = doc[k] if isinstance(doc, list) and len(doc) > k else None
        else:
            doc = doc.get(k) if isinstance(doc, dict) else None
    return doc


def _stream(path: Path, text: str):
    """An --json-stream file as (document, line of its end event)."""
    doc, end_line = {}, None
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            event = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ParseError(path, n, "one JSON event per line (iperf3 --json-stream)",
                             f"{exc.msg} at column {exc.colno}") from None
        kind = event.get("event") if isinstance(event, dict) else None
        if kind == "error":
            raise ParseError(path, n, "a finished iperf3 test", f"iperf3 error {event.get('data')!r}")
        if kind in ("start", "end"):
            doc[kind] = event.get("data")
            if kind == "end":
                end_line = n
    return doc, end_line


# bits_per_second is iperf3's own bytes * 8 / seconds (iperf_api.c); a summary whose rate is
# further than this from it was not computed by iperf3 (JSON keeps both to 6+ digits)
RATE_TOLERANCE = 0.02


def _bounded(path: Path, line: int, where: str, section: dict) -> None:
    """Refuse values no measurement has: not finite, negative, a duration that is not positive,
    a rate that is not the section's own bytes over its seconds, a loss beyond 100 %."""
    for key, value in section.items():
        if isinstance(value, float) and not math.isfinite(value):
            raise ParseError(path, line, f"a finite {where}.{key}", repr(value))
    def number(key):
        value = section.get(key)
        return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None
    for key in ("bytes", "bits_per_second", "retransmits", "lost_packets", "packets", "jitter_ms"):
        if (value := number(key)) is not None and value < 0:
            raise ParseError(path, line, f"{where}.{key} of at least 0", repr(value))
    seconds, size, rate = number("seconds"), number("bytes"), number("bits_per_second")
    if seconds is not None and seconds <= 0:
        raise ParseError(path, line, f"{where}.seconds above 0 (a test that ran)", repr(seconds))
    if (lost := number("lost_percent")) is not None and not 0 <= lost <= 100:
        raise ParseError(path, line, f"{where}.lost_percent from 0 to 100", repr(lost))
    if None not in (seconds, size, rate):
        computed = size * 8 / seconds
        if abs(rate - computed) > RATE_TOLERANCE * max(computed, 1.0):
            raise ParseError(path, line, f"{where}.bits_per_second = bytes * 8 / seconds "
                             f"({size} * 8 / {seconds} = {computed:.6g}), as iperf3 computes it",
                             f"{rate!r}")


def parse(path: Path) -> list[dict]:
    text = read_text_strict(path)
    require_nonempty(path, text)
    first = text.lstrip().split("\n", 1)[0]
    if first.startswith('{"event"'):
        doc, end_line = _stream(path, text)
    else:
        try:
            doc = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ParseError(path, exc.lineno, "complete JSON",
                             f"{exc.msg} at line {exc.lineno} column {exc.colno}") from None
        if isinstance(doc, dict) and doc.get("error"):
            raise ParseError(path, _line_of(text, _ERROR_KEY), "a finished iperf3 test",
                             f"iperf3 error {doc['error']!r}")
        end_line = _line_of(text, _END_KEY)
    test = _get(doc, "start", "test_start") or {}
    protocol = test.get("protocol")
    sent, received = _get(doc, "end", "sum_sent"), _get(doc, "end", "sum_received")
    udp_sum = _get(doc, "end", "sum") if protocol == "UDP" else None
    if isinstance(udp_sum, dict) and not isinstance(sent, dict):
        sent, received, loss = udp_sum, {}, udp_sum        # iperf3 before 3.11
    else:
        loss = received
    if not isinstance(sent, dict) or not isinstance(received, dict):
        raise ParseError(path, end_line or 1,
                         "iperf3 -J output with end.sum_sent and end.sum_received "
                         "(or end.sum for UDP before 3.11)", "JSON without them")
    if isinstance(_get(doc, "end", "sum_sent_bidir_reverse"), dict):
        raise ParseError(path, end_line or 1, "one direction per test (a row is one direction)",
                         "a --bidir test (end.sum_sent_bidir_reverse): measure each direction "
                         "in its own run, -R for the reverse")
    for where, section in (("end.sum_sent", sent), ("end.sum_received", received),
                           ("end.sum", udp_sum if isinstance(udp_sum, dict) else {})):
        _bounded(path, end_line or 1, where, section)
    conn = _get(doc, "start", "connected", 0) or {}
    cpu = _get(doc, "end", "cpu_utilization_percent") or {}
    reverse = test.get("reverse")
    return [{
        "version": _get(doc, "start", "version"),
        "start_unix_s": _get(doc, "start", "timestamp", "timesecs"),
        "local_host": conn.get("local_host"),
        "remote_host": conn.get("remote_host"),
        "protocol": protocol,
        "num_streams": test.get("num_streams"),
        "reverse": None if reverse is None else bool(reverse),
        "duration_s": sent.get("seconds"),
        "sent_bytes": sent.get("bytes"),
        "received_bytes": received.get("bytes"),
        "sent_bits_per_s": sent.get("bits_per_second"),
        "received_bits_per_s": received.get("bits_per_second"),
        "retransmits": sent.get("retransmits"),
        "jitter_ms": loss.get("jitter_ms") if protocol == "UDP" else None,
        "lost_packets": loss.get("lost_packets") if protocol == "UDP" else None,
        "packets": loss.get("packets") if protocol == "UDP" else None,
        "lost_percent": loss.get("lost_percent") if protocol == "UDP" else None,
        "cpu_host_pct": cpu.get("host_total"),
        "cpu_remote_pct": cpu.get("remote_total"),
        "source_line": end_line,
    }]


FORMAT = Format(
    name="iperf3",
    table="raw_iperf3",
    version=4,                  # 3: a --bidir test is refused; 4: impossible values are
    columns={"version": "VARCHAR", "start_unix_s": "DOUBLE", "local_host": "VARCHAR",
             "remote_host": "VARCHAR", "protocol": "VARCHAR", "num_streams": "INTEGER",
             "reverse": "BOOLEAN", "duration_s": "DOUBLE", "sent_bytes": "BIGINT",
             "received_bytes": "BIGINT", "sent_bits_per_s": "DOUBLE",
             "received_bits_per_s": "DOUBLE", "retransmits": "BIGINT", "jitter_ms": "DOUBLE",
             "lost_packets": "BIGINT", "packets": "BIGINT", "lost_percent": "DOUBLE",
             "cpu_host_pct": "DOUBLE", "cpu_remote_pct": "DOUBLE"},
    parse=parse,
    description="iperf3 -J / --json-stream test summary (end.sum_sent / end.sum_received; UDP "
                "jitter and loss).",
)
