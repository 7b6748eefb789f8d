"""llama-server logs, however they were kept: one row per log line, llama-server fields parsed.

The format and its variants, tool version by tool version: raw_data/FORMATS.md, "journal".
"""
from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path

from pipeline.ingest.base import Format, ParseError
from pipeline.ingest.formats.llama_server_fields import FIELDS, TimingContext, split_prefix

_ISO = re.compile(
    r"^(?P<ts>\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?P<frac>\.\d{1,9})?(?P<off>Z|[+-]\d\d:?\d\d) "
    r"(?P<host>\S+) (?P<ident>[^\[\s][^\[]*?)(?:\[(?P<pid>\d+)\])?: (?P<msg>.*)$", re.S)
_DOCKER = re.compile(r"^(?P<ts>\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?P<frac>\.\d{1,9})?(?P<off>Z) (?P<msg>.*)$", re.S)
_SHORT = re.compile(r"^[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d(?:\.\d+)? \S+ ")
_BLOB = re.compile(r"^\[[\d.]+[BKMGT] blob data\]$")
_PID_PREFIX = re.compile(r"^\[\d+\] ")
_JOURNAL_MARK = re.compile(r"^-- .* --$|^-- No entries --$")


def _text(value) -> str | None:
    """A journald field value as text: string, byte array, or several of those."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(b, int) for b in value):
        try:
            return bytes(value).decode("utf-8", errors="replace")
        except ValueError:  # a "byte" outside 0..255: not journald's encoding
            return json.dumps(value)
    if isinstance(value, list):  # the field occurred more than once in the entry
        parts = [_text(v) for v in value]
        return "\n".join(p for p in parts if p is not None)
    return str(value)


def _int(value) -> int | None:
    text = _text(value)
    try:
        return int(text) if text is not None else None
    except ValueError:
        return None


def _decode(path: Path, line_no: int, raw: bytes, expected: str) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ParseError(path, line_no, expected, f"byte 0x{raw[exc.start]:02x} at column "
                         f"{exc.start + 1}") from None


def _json_entry(path: Path, line_no: int, raw: bytes) -> dict:
    text = _decode(path, line_no, raw, "UTF-8 JSON (journalctl -o json)")
    try:
        entry = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ParseError(path, line_no, "one JSON object per line (journalctl -o json)",
                         f"{exc.msg} at column {exc.colno} in {text.strip()[:60]!r}") from None
    if not isinstance(entry, dict):
        raise ParseError(path, line_no, "a JSON object (journalctl -o json)",
                         f"a JSON {type(entry).__name__}")
    realtime = _int(entry.get("__REALTIME_TIMESTAMP"))
    if realtime is None:
        found = ("a line of llama-server's own JSON log (--log-format json, builds of 2024: "
                 "'tid', 'msg'), which this parser does not read; keep the server's text log "
                 "or its journal" if {"tid", "msg", "function"} <= entry.keys()
                 else "an object without it")
        raise ParseError(path, line_no, "a journal entry with __REALTIME_TIMESTAMP", found)
    message = _text(entry.get("MESSAGE"))
    return {"realtime_us": realtime, "hostname": _text(entry.get("_HOSTNAME")),
            "unit": _text(entry.get("_SYSTEMD_UNIT")), "pid": _int(entry.get("_PID")),
            "message": message.removeprefix("\r") if message is not None else None}


def _complete_json(raw: bytes) -> bool:
    try:
        return isinstance(json.loads(raw), dict)
    except ValueError:
        return False


def _truncated(line_no: int, raw: bytes) -> dict:
    """A last line with no newline: the file was cut (copied while the server wrote it). Its text
    is kept; none of its fields is read, since a number cut short would read as a smaller one."""
    return {"realtime_us": None, "hostname": None, "unit": None, "pid": None,
            "message": raw.decode("utf-8", errors="replace").rstrip("\r"), "log_rel_s": None,
            **dict.fromkeys(FIELDS), "event": "truncated", "source_line": line_no}


def _iso_us(m: re.Match) -> int:
    off = m["off"]
    if off == "Z":
        tz = dt.timezone.utc
    else:
        sign = -1 if off[0] == "-" else 1
        hh, mm = int(off[1:3]), int(off[-2:])
        tz = dt.timezone(sign * dt.timedelta(hours=hh, minutes=mm))
    stamp = dt.datetime.fromisoformat(m["ts"]).replace(tzinfo=tz)
    frac = m["frac"] or ""
    micros = int((frac[1:] + "000000")[:6]) if frac else 0
    return int(stamp.timestamp()) * 1_000_000 + micros


def _detect(path: Path, first: str) -> str:
    stripped = first.lstrip()
    # JSON (an object per line, or json-pretty's array); "[<pid>] " is a launcher's prefix on text
    if stripped.startswith(("{", "[")) and not _PID_PREFIX.match(stripped):
        return "json"
    if _DOCKER.match(first):
        return "docker"
    if _ISO.match(first):
        return "iso"
    if _SHORT.match(first):
        raise ParseError(path, 1, "a journal export with dates (journalctl -o json or -o short-iso)",
                         "journalctl -o short output, which has no year and no time zone")
    return "text"


def parse(path: Path) -> list[dict]:
    path = Path(path)
    rows: list[dict] = []
    timing = TimingContext()
    mode = None
    last: dict | None = None
    recognised = 0
    with path.open("rb") as f:
        for line_no, raw in enumerate(f, start=1):
            if not raw.strip():
                continue  # a blank line (trailing newline) carries no entry
            if not raw.endswith(b"\n") and not (mode == "json" and _complete_json(raw)):
                rows.append(_truncated(line_no, raw))   # the last line, cut while being written
                break
            if mode is None:
                first = _decode(path, line_no, raw.rstrip(b"\r\n"), "UTF-8 text (a llama-server log)")
                if _JOURNAL_MARK.match(first.strip()):
                    continue                    # journalctl's "-- Boot … --" before any entry
                mode = _detect(path, first)
            if mode == "json":
                row = _json_entry(path, line_no, raw)
                row["log_rel_s"] = None
            else:
                text = _decode(path, line_no, raw, "UTF-8 text (a llama-server log)").rstrip("\r\n")
                if mode == "iso":
                    m = _ISO.match(text)
                    if m is None:
                        if _JOURNAL_MARK.match(text.strip()):
                            continue
                        if text.startswith(" ") and last is not None:   # a message's next line
                            row = {**last, "message": text.strip()}
                        else:
                            raise ParseError(path, line_no, "journalctl -o short-iso lines "
                                             "('<time> <host> <identifier>[<pid>]: <message>')",
                                             repr(text[:60]))
                    else:
                        row = {"realtime_us": _iso_us(m), "hostname": m["host"],
                               "unit": m["ident"], "pid": int(m["pid"]) if m["pid"] else None,
                               "message": m["msg"].removeprefix("\r")}
                    last = row
                    row = dict(row)
                    row["log_rel_s"] = None
                elif mode == "docker":
                    m = _DOCKER.match(text)
                    if m is None:
                        raise ParseError(path, line_no, "docker logs --timestamps lines "
                                         "('<RFC 3339 time>Z <message>')", repr(text[:60]))
                    row = {"realtime_us": _iso_us(m), "hostname": None, "unit": None, "pid": None,
                           "message": m["msg"].removeprefix("\r"), "log_rel_s": None}
                else:
                    row = {"realtime_us": None, "hostname": None, "unit": None, "pid": None,
                           "message": text.removeprefix("\r"), "log_rel_s": None}
            message = row["message"]
            if message is not None:
                row["log_rel_s"] = row.get("log_rel_s") or split_prefix(message)[1]
            fields = timing.parse((row["pid"], row["unit"]), message)
            if message is not None and _BLOB.match(message.strip()):
                fields["event"] = "unreadable"
            if fields["event"] is not None or fields["slot_id"] is not None:
                recognised += 1
            row.update(fields)
            row["source_line"] = line_no
            rows.append(row)
    if not rows:
        raise ParseError(path, 1, "llama-server log lines", "an empty file")
    if mode != "json" and not recognised:
        raise ParseError(path, 1, "llama-server or rpc-server log lines (slot …, srv …, timings)",
                         f"none in {len(rows)} line(s), the first {rows[0]['message'][:60]!r}")
    return rows


FORMAT = Format(
    name="journal",
    table="raw_journal",
    version=6,                  # 4: "[<pid>] " text is not JSON; b11434 progress lines
                                # 5: b11434's "using device RPC0 (<endpoint>)"
                                # 6: "statistics …: #gen drafts" kept (drafts)
    columns={"realtime_us": "BIGINT", "log_rel_s": "DOUBLE", "hostname": "VARCHAR",
             "unit": "VARCHAR", "pid": "INTEGER", "message": "VARCHAR", "event": "VARCHAR",
             "slot_id": "INTEGER", "task_id": "INTEGER", "ms": "DOUBLE", "tokens": "BIGINT",
             "accepted": "BIGINT", "generated": "BIGINT", "state_mib": "DOUBLE", "mean_len": "DOUBLE",
             "count": "BIGINT", "drafts": "BIGINT",
             "spec_type": "VARCHAR", "endpoint": "VARCHAR"},
    parse=parse,
    description="llama-server and rpc-server logs (journalctl -o json, -o short-iso[-precise], "
                "-o cat, or a plain stderr file) with the llama-server fields of each line.",
)
assert set(FIELDS) <= set(FORMAT.columns)
