"""JSON lines written by the project's send/recv benchmark (``pipeline/collect/p2p_bench.py``).

The line format is documented in that module's docstring and in
``raw_data/p2p/README.md``; each line is read with :func:`json.loads` and checked
against it (schema 1). Blank lines are allowed; anything else that is not a
p2p_bench record is rejected with its line number.
"""
from __future__ import annotations

import json
from pathlib import Path

from pipeline.ingest.base import Format, ParseError, read_text_strict, require_nonempty

# key -> (python types accepted, description for the error message)
_FIELDS = {
    "backend": (str, "a backend name"),
    "world_size": (int, "an integer world_size"),
    "rank": (int, "an integer rank"),
    "peer": (int, "an integer peer rank"),
    "op": (str, "'send' or 'recv'"),
    "size_bytes": (int, "an integer size_bytes"),
    "dtype": (str, "a dtype name"),
    "iteration": (int, "an integer iteration"),
    "time_s": ((int, float), "a time in seconds"),
}


def _record(path: Path, line_no: int, line: str) -> dict:
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as exc:
        raise ParseError(path, line_no, "a JSON object", f"{exc.msg} at column {exc.colno}") from None
    if not isinstance(obj, dict) or obj.get("bench") != "p2p_bench":
        raise ParseError(path, line_no, 'a p2p_bench record ({"bench": "p2p_bench", …})',
                         repr(line[:60]))
    if obj.get("schema") != 1:
        raise ParseError(path, line_no, "schema 1", repr(obj.get("schema")))
    row = {}
    for key, (types, what) in _FIELDS.items():
        value = obj.get(key)
        if isinstance(value, bool) or not isinstance(value, types):
            raise ParseError(path, line_no, f"{key}: {what}", repr(value))
        row[key] = value
    if row["op"] not in ("send", "recv"):
        raise ParseError(path, line_no, "op 'send' or 'recv'", repr(row["op"]))
    if row["time_s"] <= 0 or row["size_bytes"] <= 0:
        raise ParseError(path, line_no, "positive time_s and size_bytes",
                         f"time_s={row['time_s']}, size_bytes={row['size_bytes']}")
    row["time_s"] = float(row["time_s"])
    row["source_line"] = line_no
    return row


def parse(path: Path) -> list[dict]:
    text = read_text_strict(path)
    require_nonempty(path, text)
    return [_record(path, n, line) for n, line in enumerate(text.splitlines(), start=1)
            if line.strip()]


FORMAT = Format(
    name="gloo_bench",
    table="raw_gloo_bench",
    version=1,
    columns={
        "backend": "VARCHAR", "world_size": "INTEGER", "rank": "INTEGER", "peer": "INTEGER",
        "op": "VARCHAR", "size_bytes": "BIGINT", "dtype": "VARCHAR", "iteration": "INTEGER",
        "time_s": "DOUBLE",
    },
    parse=parse,
    description="p2p_bench (torch.distributed send/recv) JSON lines: one row per timed transfer.",
)
