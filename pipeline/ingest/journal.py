"""``journalctl -o json`` exports: one row per journal entry, llama-server fields parsed.

Format: systemd's JSON export (systemd.journal-fields(7), "journalctl
--output=json"): one JSON object per line; every field is a string
(``__REALTIME_TIMESTAMP`` is microseconds since the epoch as text, ``_PID`` is
text), except that a value that is not valid UTF-8 or holds control characters
(a progress line starting with ``\\r``) is written as an array of byte values,
a field seen several times as an array of such values, and a field over the
size limit as ``null``.

The file is read line by line (never whole). Rows: ``realtime_us``,
``hostname``, ``unit`` (``_SYSTEMD_UNIT``), ``pid``, ``message`` — byte arrays
decoded as UTF-8 with replacement and a leading ``\\r`` stripped, never a
crash — and the llama-server fields of :mod:`pipeline.ingest.llama_server_log`
(``event``, ``slot_id``, ``task_id``, ``ms``, ``tokens``, ``accepted``,
``generated``, ``state_mib``); timing continuation lines take the slot and task
of the latest ``print_timing`` line of the same ``_PID``/unit.
``source_line`` = the entry's line. A line that is not UTF-8 or not a JSON
object (a binary ``.journal`` file, ``journalctl`` short output, a cut last
line) rejects the file, naming the line.
"""
from __future__ import annotations

import json
from pathlib import Path

from pipeline.ingest.base import Format, ParseError
from pipeline.ingest.llama_server_log import TimingContext


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


def _message(value) -> str | None:
    text = _text(value)
    return text.removeprefix("\r") if text is not None else None


def _entry(path: Path, line_no: int, raw: bytes) -> dict:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ParseError(path, line_no, "UTF-8 JSON (journalctl -o json)",
                         f"byte 0x{raw[exc.start]:02x} at column {exc.start + 1}") from None
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
        raise ParseError(path, line_no, "a journal entry with __REALTIME_TIMESTAMP",
                         "an object without it")
    entry["__REALTIME_TIMESTAMP"] = realtime
    return entry


def parse(path: Path) -> list[dict]:
    path = Path(path)
    rows = []
    timing = TimingContext()
    with path.open("rb") as f:
        for line_no, raw in enumerate(f, start=1):
            if not raw.strip():
                continue  # a blank line (trailing newline) carries no entry
            entry = _entry(path, line_no, raw)
            pid, unit = _int(entry.get("_PID")), _text(entry.get("_SYSTEMD_UNIT"))
            message = _message(entry.get("MESSAGE"))
            row = {
                "realtime_us": entry["__REALTIME_TIMESTAMP"],
                "hostname": _text(entry.get("_HOSTNAME")),
                "unit": unit,
                "pid": pid,
                "message": message,
                **timing.parse((pid, unit), message),
                "source_line": line_no,
            }
            rows.append(row)
    if not rows:
        raise ParseError(path, 1, "journal entries (journalctl -o json)", "an empty file")
    return rows


FORMAT = Format(
    name="journal",
    table="raw_journal",
    version=1,
    columns={"realtime_us": "BIGINT", "hostname": "VARCHAR", "unit": "VARCHAR",
             "pid": "INTEGER", "message": "VARCHAR", "event": "VARCHAR",
             "slot_id": "INTEGER", "task_id": "INTEGER", "ms": "DOUBLE", "tokens": "BIGINT",
             "accepted": "BIGINT", "generated": "BIGINT", "state_mib": "DOUBLE"},
    parse=parse,
    description="systemd journal entries (journalctl -o json) with llama-server log fields.",
)
