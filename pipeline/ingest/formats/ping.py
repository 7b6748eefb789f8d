"""ping output: one row per file, from the statistics summary.

The format and its variants, tool version by tool version: raw_data/FORMATS.md, "ping".
"""
from __future__ import annotations

import itertools
import re
from pathlib import Path

import jc

from pipeline.ingest.base import Format, ParseError, lines_strict

_SUMMARY = re.compile(r"^(\d+) packets transmitted, (\d+) (?:packets )?received")
# "--- host ping statistics ---"; BSD/macOS ping6: "--- ::1 ping6 statistics ---"
_STATS_HEADER = re.compile(r"^--- .* ping6? statistics ---\s*$")
# what may come before the PING line: "WARNING: pinging broadcast address", "PATTERN: 0x…"
_MAX_LEAD_LINES = 20
_PIPE = re.compile(r", pipe (\d+)")
_ERRORS = re.compile(r", \+(\d+) errors")
# BSD/macOS ping6 spells the deviation "std-dev"
_RTT_KIND = re.compile(r"^(?:rtt|round-trip) min/avg/max(?:/(mdev|stddev|std-dev))? = ")
# the whole rtt line: a line cut inside its numbers ("= 0.250/0.25") would read as a smaller max
_RTT_LINE = re.compile(r"^(?:rtt|round-trip) min/avg/max(?:/(?:mdev|stddev|std-dev))? = "
                       r"\d+\.\d+/\d+\.\d+/\d+\.\d+(?:/\d+\.\d+)? ms"
                       r"(?:, pipe \d+)?(?:, ipg/ewma \d+\.\d+/\d+\.\d+ ms)?\s*$")
_WIN_HEADER = re.compile(r"^Pinging (\S+)(?: \[([^\]]+)\])? with \d+ bytes of data:\s*$")
_WIN_PACKETS = re.compile(r"^\s*Packets: Sent = (\d+), Received = (\d+), Lost = (\d+)")
_WIN_RTT = re.compile(r"^\s*Minimum = (\d+)ms, Maximum = (\d+)ms, Average = (\d+)ms\s*$")
_WIN_UNREACHABLE = re.compile(r"^Reply from \S+: Destination (?:host|net) unreachable", re.I)


def _row(**values) -> dict:
    row = dict.fromkeys(FORMAT.columns)
    row.update(values)
    return row


def _cut(path: Path, line: int, expected: str, text: str) -> ParseError:
    return ParseError(path, line, f"a complete {expected} line (cut short?)", repr(text.strip()[:80]))


def _windows(path: Path, header: tuple[int, str], lines) -> list[dict]:
    m = _WIN_HEADER.match(header[1])
    destination = m[1]
    packets = rtt = None
    unreachable = 0
    for n, text in lines:
        if _WIN_UNREACHABLE.match(text):
            unreachable += 1
        elif (p := _WIN_PACKETS.match(text)):
            if packets is not None:
                raise ParseError(path, n, "one ping run per file", "2 summaries")
            packets = (n, int(p[1]), int(p[2]))
        elif (r := _WIN_RTT.match(text)):
            rtt = tuple(float(v) for v in r.groups())
        elif text.lstrip().startswith("Minimum = "):
            raise _cut(path, n, "'Minimum = Nms, Maximum = Nms, Average = Nms'", text)
    if packets is None:
        raise ParseError(path, header[0], "the 'Packets: Sent = …' summary of ping.exe",
                         "none (the run was interrupted?)")
    line, sent, received = packets
    if sent == 0:
        raise ParseError(path, line, "at least one packet transmitted", "0")
    echo = max(received - unreachable, 0)
    lo, hi, avg = rtt if rtt and echo else (None, None, None)
    return [_row(destination=destination, packets_transmitted=sent, packets_received=echo,
                 unreachable_replies=unreachable, packet_loss_fraction=(sent - echo) / sent,
                 rtt_min_ms=lo, rtt_avg_ms=avg, rtt_max_ms=hi, source_line=line)]


def parse(path: Path) -> list[dict]:
    path = Path(path)
    lines = lines_strict(path)
    header = None
    for n, text in lines:
        if text.strip():
            header = (n, text)
            break
    if header is None:
        raise ParseError(path, 1, "tool output", "an empty file")
    if _WIN_HEADER.match(header[1]):
        return _windows(path, header, lines)
    # jc reads the dialect from the lines up to the PING line (a warning or -p's PATTERN
    # first) and from the statistics block: it gets those whole, never the replies between
    head_lines = [header[1]]
    if not header[1].startswith("PING") and not _SUMMARY.match(header[1]):
        for n, text in lines:
            if _SUMMARY.match(text):            # no PING line at all: the summary is read below
                lines = itertools.chain([(n, text)], lines)
                break
            head_lines.append(text)
            if text.startswith("PING") or len(head_lines) > _MAX_LEAD_LINES:
                break
    summary_lines: list[str] = []
    summaries: list[int] = []
    in_stats = False
    for n, text in lines:
        if _STATS_HEADER.match(text):
            in_stats = True
            summary_lines.append(text)
        elif _SUMMARY.match(text):
            summaries.append(n)
            summary_lines.append(text)
            in_stats = True
        elif in_stats and text.strip():
            if _RTT_KIND.match(text) and not _RTT_LINE.match(text):
                raise _cut(path, n, "'rtt min/avg/max[/mdev] = a/b/c[/d] ms'", text)
            summary_lines.append(text)
    if _SUMMARY.match(header[1]):           # a summary with no PING header before it
        raise ParseError(path, header[0], "a 'PING <host>' header before the summary",
                         repr(header[1][:60]))
    if not summaries:
        raise ParseError(path, 1, "ping output with an 'N packets transmitted' summary",
                         repr(header[1][:60]))
    if len(summaries) > 1:
        raise ParseError(path, summaries[1], "one ping run per file", f"{len(summaries)} summaries")
    line = summaries[0]
    text = "\n".join([*head_lines, *summary_lines]) + "\n"
    try:
        d = jc.parse("ping", text, quiet=True)
    except Exception as exc:  # jc raises bare IndexError/ValueError on odd text
        raise ParseError(path, 1, "ping output jc can read",
                         f"{type(exc).__name__}: {exc}") from None
    sent, received = d.get("packets_transmitted"), d.get("packets_received")
    # "PING  (10.0.0.2)": a header without a host name, jc gives only its address
    destination = d.get("destination") or d.get("destination_ip")
    if not destination or sent is None or received is None:
        raise ParseError(path, line, "a 'PING <host>' header and packet counts", "none")
    if sent == 0:
        raise ParseError(path, line, "at least one packet transmitted", "0")
    kind = next((m[1] for t in summary_lines if (m := _RTT_KIND.match(t))), None)
    pipe = next((int(m[1]) for t in summary_lines if (m := _PIPE.search(t))), None)
    # iputils prints "+N errors" only when N > 0, and is the one that ends its summary line with
    # ", time %ldms": there a missing count is 0; busybox and BSD do not count errors (NULL)
    iputils = bool(re.search(r", time \d+ms", text))
    # read from the summary line itself: jc drops "+N errors" when no reply came back
    # (tests/ingest/formats/ping/test_ping_roundtrip.py found it)
    errors = next((int(m[1]) for t in summary_lines if _SUMMARY.match(t) and (m := _ERRORS.search(t))),
                  0 if iputils else None)
    deviation = d.get("round_trip_ms_stddev")
    return [_row(destination=destination, packets_transmitted=sent,
                 packets_received=received, errors=errors,
                 packet_loss_fraction=(sent - received) / sent,
                 rtt_min_ms=d.get("round_trip_ms_min"), rtt_avg_ms=d.get("round_trip_ms_avg"),
                 rtt_max_ms=d.get("round_trip_ms_max"),
                 rtt_mdev_ms=deviation if kind == "mdev" else None,
                 rtt_stddev_ms=deviation if kind in ("stddev", "std-dev") else None,
                 pipe=pipe, source_line=line)]


FORMAT = Format(
    name="ping",
    table="raw_ping",
    version=5,
    columns={"destination": "VARCHAR", "packets_transmitted": "INTEGER",
             "packets_received": "INTEGER", "errors": "INTEGER", "unreachable_replies": "INTEGER",
             "packet_loss_fraction": "DOUBLE", "rtt_min_ms": "DOUBLE", "rtt_avg_ms": "DOUBLE",
             "rtt_max_ms": "DOUBLE", "rtt_mdev_ms": "DOUBLE", "rtt_stddev_ms": "DOUBLE",
             "pipe": "INTEGER"},
    parse=parse,
    description="ping summary per run: counts, loss and rtt (iputils, busybox, BSD/macOS via jc; "
                "Windows ping.exe).",
)
