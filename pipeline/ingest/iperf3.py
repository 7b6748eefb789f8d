"""``iperf3 -J`` client output: one row per file, from the ``end`` summary.

Format: the JSON iperf3 writes with ``-J`` (src/iperf_api.c: ``start``
{connected[], version, timestamp.timesecs, test_start{protocol, num_streams,
reverse}}, ``intervals`` [], ``end`` {streams[], sum_sent, sum_received,
cpu_utilization_percent{host_total, remote_total}}, and ``error`` when the
test failed), read with ``json``.

``sum_sent``/``sum_received`` already add up every stream of a ``-P N`` run, so
the same fields serve single- and multi-stream tests. ``duration_s`` is
``sum_sent.seconds``, the time the sender measured. ``retransmits`` is NULL
when iperf3 could not read TCP_INFO (UDP, or non-Linux senders omit it).
A file carrying ``error`` is rejected with the tool's own message, whichever
wording the iperf3 version used; so is JSON that is not iperf3's (no
``end.sum_received``). ``source_line`` = the line of the top-level ``"end"``.
"""
from __future__ import annotations

import json
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


def parse(path: Path) -> list[dict]:
    text = read_text_strict(path)
    require_nonempty(path, text)
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ParseError(path, exc.lineno, "complete JSON",
                         f"{exc.msg} at line {exc.lineno} column {exc.colno}") from None
    if isinstance(doc, dict) and doc.get("error"):
        raise ParseError(path, _line_of(text, _ERROR_KEY), "a finished iperf3 test",
                         f"iperf3 error {doc['error']!r}")
    sent, received = _get(doc, "end", "sum_sent"), _get(doc, "end", "sum_received")
    if not isinstance(received, dict) or not isinstance(sent, dict):
        raise ParseError(path, _line_of(text, _END_KEY) or 1,
                         "iperf3 -J output with end.sum_sent and end.sum_received",
                         "JSON without them")
    test = _get(doc, "start", "test_start") or {}
    conn = _get(doc, "start", "connected", 0) or {}
    cpu = _get(doc, "end", "cpu_utilization_percent") or {}
    reverse = test.get("reverse")
    return [{
        "version": _get(doc, "start", "version"),
        "start_unix_s": _get(doc, "start", "timestamp", "timesecs"),
        "local_host": conn.get("local_host"),
        "remote_host": conn.get("remote_host"),
        "protocol": test.get("protocol"),
        "num_streams": test.get("num_streams"),
        "reverse": None if reverse is None else bool(reverse),
        "duration_s": sent.get("seconds"),
        "sent_bytes": sent.get("bytes"),
        "received_bytes": received.get("bytes"),
        "sent_bits_per_s": sent.get("bits_per_second"),
        "received_bits_per_s": received.get("bits_per_second"),
        "retransmits": sent.get("retransmits"),
        "cpu_host_pct": cpu.get("host_total"),
        "cpu_remote_pct": cpu.get("remote_total"),
        "source_line": _line_of(text, _END_KEY),
    }]


FORMAT = Format(
    name="iperf3",
    table="raw_iperf3",
    version=1,
    columns={"version": "VARCHAR", "start_unix_s": "DOUBLE", "local_host": "VARCHAR",
             "remote_host": "VARCHAR", "protocol": "VARCHAR", "num_streams": "INTEGER",
             "reverse": "BOOLEAN", "duration_s": "DOUBLE", "sent_bytes": "BIGINT",
             "received_bytes": "BIGINT", "sent_bits_per_s": "DOUBLE",
             "received_bits_per_s": "DOUBLE", "retransmits": "BIGINT",
             "cpu_host_pct": "DOUBLE", "cpu_remote_pct": "DOUBLE"},
    parse=parse,
    description="iperf3 -J test summary (end.sum_sent / end.sum_received).",
)
