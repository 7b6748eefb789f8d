"""``ping -c N <host>`` output: one row per file, from the statistics summary.

Format: the text of iputils ping (Linux: ``N packets transmitted, M received,
… % packet loss, time …ms`` then ``rtt min/avg/max/mdev = a/b/c/d ms``),
busybox ping (``N packets transmitted, M packets received, …`` then
``round-trip min/avg/max = a/b/c ms``) and macOS/BSD ping (``round-trip
min/avg/max/stddev = …``), parsed by ``jc.parse('ping', …)``.

Rows: ``destination`` (as typed on the command line), ``packets_transmitted``,
``packets_received``, ``packet_loss_fraction`` = (transmitted − received) /
transmitted — the formula all three tools print, unrounded — and
``rtt_min_ms`` … ``rtt_mdev_ms``. BSD's ``stddev`` fills ``rtt_mdev_ms``:
iputils computes mdev as sqrt(mean(t²) − mean(t)²), the same population
standard deviation. busybox prints no deviation (NULL). When no reply came back
the rtt line is absent and every rtt is NULL: 100 % loss is data, not an
error. ``source_line`` = the ``packets transmitted`` line.
"""
from __future__ import annotations

import re
from pathlib import Path

import jc

from pipeline.ingest.base import Format, ParseError, read_text_strict, require_nonempty

_SUMMARY = re.compile(r"^(\d+) packets transmitted, (\d+) (?:packets )?received")


def _summary_line(path: Path, text: str) -> int:
    found = [i + 1 for i, line in enumerate(text.splitlines()) if _SUMMARY.match(line)]
    if not found:
        first = next((l for l in text.splitlines() if l.strip()), "")
        raise ParseError(path, 1, "ping output with an 'N packets transmitted' summary",
                         repr(first[:60]))
    if len(found) > 1:
        raise ParseError(path, found[1], "one ping run per file", f"{len(found)} summaries")
    return found[0]


def parse(path: Path) -> list[dict]:
    text = read_text_strict(path)
    require_nonempty(path, text)
    line = _summary_line(path, text)
    try:
        d = jc.parse("ping", text, quiet=True)
    except Exception as exc:  # jc raises bare IndexError/ValueError on odd text
        raise ParseError(path, 1, "ping output jc can read",
                         f"{type(exc).__name__}: {exc}") from None
    sent, received = d.get("packets_transmitted"), d.get("packets_received")
    if not d.get("destination") or sent is None or received is None:
        raise ParseError(path, line, "a 'PING <host>' header and packet counts", "none")
    if sent == 0:
        raise ParseError(path, line, "at least one packet transmitted", "0")
    return [{
        "destination": d["destination"],
        "packets_transmitted": sent,
        "packets_received": received,
        "packet_loss_fraction": (sent - received) / sent,
        "rtt_min_ms": d.get("round_trip_ms_min"),
        "rtt_avg_ms": d.get("round_trip_ms_avg"),
        "rtt_max_ms": d.get("round_trip_ms_max"),
        "rtt_mdev_ms": d.get("round_trip_ms_stddev"),
        "source_line": line,
    }]


FORMAT = Format(
    name="ping",
    table="raw_ping",
    version=1,
    columns={"destination": "VARCHAR", "packets_transmitted": "INTEGER",
             "packets_received": "INTEGER", "packet_loss_fraction": "DOUBLE",
             "rtt_min_ms": "DOUBLE", "rtt_avg_ms": "DOUBLE", "rtt_max_ms": "DOUBLE",
             "rtt_mdev_ms": "DOUBLE"},
    parse=parse,
    description="ping summary per run: counts, loss and rtt (jc 'ping' parser).",
)
