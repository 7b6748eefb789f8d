"""``ethtool <iface>`` output, text or ``--json``: one row per interface.

The format and its variants, tool version by tool version: raw_data/FORMATS.md, "ethtool".
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import jc

from pipeline.ingest.base import Format, ParseError, read_text_strict, require_nonempty

_SETTINGS = re.compile(r"^Settings for (\S+):\s*$")
_SPEED = re.compile(r"^(\d+)Mb/s$")
_ON_OFF = {"on": True, "yes": True, "off": False, "no": False}
_PHYAD = re.compile(r"^(?:0x)?[0-9a-fA-F]+$")


def _phyad(path: Path, line: int, raw) -> tuple[int | None, str | None]:
    """(number when the text alone says it, the text as printed)."""
    if raw is None or isinstance(raw, bool):
        return None, None
    if isinstance(raw, int):
        return raw, str(raw)
    text = str(raw).strip()
    if not _PHYAD.match(text):
        raise ParseError(path, line, "PHYAD as a number (decimal, or hex as ethtool 6.11 "
                         "prints it)", repr(raw))
    if text.lower().startswith("0x") or re.search(r"[a-fA-F]", text):
        return int(text, 16), text
    return (int(text), text) if len(text) == 1 else (None, text)


def _blocks(path: Path, text: str) -> list[tuple[int, str]]:
    """Split the file into (line of ``Settings for``, block text)."""
    lines = text.splitlines()
    starts = [i for i, line in enumerate(lines) if _SETTINGS.match(line)]
    if not starts:
        first = next(l for l in lines if l.strip())      # require_nonempty: there is one
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
    if raw is None or str(raw).startswith("Unknown"):
        return None
    m = _SPEED.match(str(raw).strip())      # str: a JSON speed may be true or a float
    if not m:
        raise ParseError(path, line, "Speed like '2500Mb/s' or 'Unknown!'", repr(raw))
    return int(m[1])


def _known(raw: str | None) -> str | None:
    # ethtool prints "Unknown! (255)" for the duplex of a link that is down.
    return None if raw is None or str(raw).startswith("Unknown") else raw


def _phyad_columns(path: Path, line: int, raw) -> dict:
    number, printed = _phyad(path, line, raw)
    return {"phyad": number, "phyad_printed": printed}


def _json_rows(path: Path, text: str) -> list[dict]:
    """Rows of one or more ``ethtool --json`` arrays written one after the other."""
    decoder, pos, rows = json.JSONDecoder(), 0, []
    while True:
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos == len(text):
            return rows
        try:
            doc, end = decoder.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            raise ParseError(path, exc.lineno, "complete ethtool --json output",
                             f"{exc.msg} at line {exc.lineno} column {exc.colno}") from None
        objects = doc if isinstance(doc, list) else [doc]
        search = pos
        for obj in objects:
            brace = text.find("{", search, end)
            line = text.count("\n", 0, brace if brace >= 0 else pos) + 1
            search = brace + 1 if brace >= 0 else search
            if not isinstance(obj, dict) or not isinstance(obj.get("ifname"), str):
                raise ParseError(path, line, "ethtool --json settings (an object with 'ifname')",
                                 repr(obj)[:60])
            speed = obj.get("speed")
            rows.append({
                "interface": obj["ifname"],
                "speed_mbit_per_s": speed if isinstance(speed, int) and not isinstance(speed, bool)
                                    else _speed(path, line, speed),
                "duplex": _known(obj.get("duplex")),
                "port": obj.get("port"),
                **_phyad_columns(path, line, obj.get("phyad")),
                "auto_negotiation": _json_flag(path, line, "auto-negotiation",
                                               obj.get("auto-negotiation")),
                "link_detected": _json_flag(path, line, "link-detected", obj.get("link-detected")),
                "source_line": line,
            })
        pos = end


def _json_flag(path: Path, line: int, name: str, raw) -> bool | None:
    if raw is None or isinstance(raw, bool):
        return raw
    return _flag(path, line, name, str(raw))


def parse(path: Path) -> list[dict]:
    text = read_text_strict(path)
    require_nonempty(path, text)
    if text.lstrip()[:1] in ("[", "{"):
        return _json_rows(path, text)
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
            **_phyad_columns(path, line, d.get("phyad")),
            "auto_negotiation": _flag(path, line, "Auto-negotiation", d.get("auto_negotiation")),
            "link_detected": _flag(path, line, "Link detected", d.get("link_detected")),
            "source_line": line,
        })
    return rows


FORMAT = Format(
    name="ethtool",
    table="raw_ethtool",
    version=2,
    columns={"interface": "VARCHAR", "speed_mbit_per_s": "INTEGER", "duplex": "VARCHAR",
             "port": "VARCHAR", "phyad": "INTEGER", "phyad_printed": "VARCHAR",
             "auto_negotiation": "BOOLEAN", "link_detected": "BOOLEAN"},
    parse=parse,
    description="ethtool link settings per interface (text via jc 'ethtool', or --json).",
)
