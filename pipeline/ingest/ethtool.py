"""``ethtool <iface>`` output: one row per ``Settings for <iface>:`` block.

Format: the text ethtool(8) prints for ``ethtool DEVNAME`` (ethtool.c
``dump_link_usettings``: ``Settings for %s:`` then tab-indented ``Speed:``,
``Duplex:``, ``Port:``, ``Auto-negotiation:``, ``Link detected:`` …), parsed by
``jc.parse('ethtool', …)``. A file may hold several blocks (one per interface);
each is handed to jc on its own.

We take jc's *raw* output and type the fields here: jc's processed output runs
``Auto-negotiation: on`` through ``convert_to_bool``, which only knows
y/yes/true, and so reports ``on`` as false (jc 1.26).

Rows: ``interface``, ``speed_mbit_per_s`` (ethtool prints ``2500Mb/s``, i.e.
10^6 bit/s; NULL for ``Unknown!`` when the link is down), ``duplex`` (NULL for
``Unknown! (255)``), ``port``, ``auto_negotiation``, ``link_detected``;
``source_line`` = the line of ``Settings for``.
"""
from __future__ import annotations

import re
from pathlib import Path

import jc

from pipeline.ingest.base import Format, ParseError, read_text_strict, require_nonempty

_SETTINGS = re.compile(r"^Settings for (\S+):\s*$")
_SPEED = re.compile(r"^(\d+)Mb/s$")
_ON_OFF = {"on": True, "yes": True, "off": False, "no": False}


def _blocks(path: Path, text: str) -> list[tuple[int, str]]:
    """Split the file into (line of ``Settings for``, block text)."""
    lines = text.splitlines()
    starts = [i for i, line in enumerate(lines) if _SETTINGS.match(line)]
    if not starts:
        first = next((l for l in lines if l.strip()), "")
        raise ParseError(path, 1, "ethtool output ('Settings for <iface>:')", repr(first[:60]))
    ends = starts[1:] + [len(lines)]
    return [(s + 1, "\n".join(lines[s:e]) + "\n") for s, e in zip(starts, ends)]


def _flag(path: Path, line: int, name: str, raw: str | None) -> bool | None:
    if raw is None:
        return None
    try:
        return _ON_OFF[raw.strip().lower()]
    except KeyError:
        raise ParseError(path, line, f"{name} on/off or yes/no", repr(raw)) from None


def _speed(path: Path, line: int, raw: str | None) -> int | None:
    if raw is None or raw.startswith("Unknown"):
        return None
    m = _SPEED.match(raw.strip())
    if not m:
        raise ParseError(path, line, "Speed like '2500Mb/s' or 'Unknown!'", repr(raw))
    return int(m[1])


def _known(raw: str | None) -> str | None:
    # ethtool prints "Unknown! (255)" for the duplex of a link that is down.
    return None if raw is None or raw.startswith("Unknown") else raw


def parse(path: Path) -> list[dict]:
    text = read_text_strict(path)
    require_nonempty(path, text)
    rows = []
    for line, block in _blocks(path, text):
        try:
            d = jc.parse("ethtool", block, raw=True, quiet=True)
        except Exception as exc:  # jc raises bare IndexError/ValueError on odd text
            raise ParseError(path, line, "ethtool settings", f"{type(exc).__name__}: {exc}") from None
        rows.append({
            "interface": d.get("name"),
            "speed_mbit_per_s": _speed(path, line, d.get("speed")),
            "duplex": _known(d.get("duplex")),
            "port": d.get("port"),
            "auto_negotiation": _flag(path, line, "Auto-negotiation", d.get("auto_negotiation")),
            "link_detected": _flag(path, line, "Link detected", d.get("link_detected")),
            "source_line": line,
        })
    return rows


FORMAT = Format(
    name="ethtool",
    table="raw_ethtool",
    version=1,
    columns={"interface": "VARCHAR", "speed_mbit_per_s": "INTEGER", "duplex": "VARCHAR",
             "port": "VARCHAR", "auto_negotiation": "BOOLEAN", "link_detected": "BOOLEAN"},
    parse=parse,
    description="ethtool link settings per interface (jc 'ethtool' parser).",
)
