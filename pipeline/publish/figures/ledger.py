"""A page's figures as ledger rows, and the site's ledger as one CSV.

A figure's id is ``page#table[row key].column``: the page it is published on, the mart and row
it comes from (the row's declared ``-- key:`` columns) and the column. Its value is in base
units (seconds, bytes, bit/s, fractions) at full precision; ``text`` is what the page shows.
A figure printed twice on one page is one figure (its first appearance). The ledger's bytes
name the build: ``build_id`` is their sha256, so the same figures are the same build.
"""
from __future__ import annotations

import csv
import hashlib
import html
import io

from pipeline.publish.figures.tracked import Noted

COLUMNS = ("figure_id", "page", "anchor", "table", "row_key", "column", "kind", "value", "unit",
           "text")
SOURCE_COLUMNS = ("page", "table", "source_file", "sha256")


def figure_id(page: str, table: str, row_key: str, column: str) -> str:
    return f"{page}#{table}[{row_key}].{column}"


def _value_text(value) -> tuple[str, str]:
    if isinstance(value, str):
        return "text", value
    if isinstance(value, int):
        return "number", str(value)
    return "number", repr(float(value))


def page_rows(page: str, noted: list[Noted], anchors: dict[int, str]) -> list[dict]:
    rows, seen = [], set()
    for i, n in enumerate(noted):
        fid = figure_id(page, n.ref.table, n.ref.row_key, n.ref.column)
        if fid in seen:
            continue
        seen.add(fid)
        kind, value = _value_text(n.value)
        rows.append({"figure_id": fid, "page": page, "anchor": anchors.get(i, ""),
                     "table": n.ref.table, "row_key": n.ref.row_key, "column": n.ref.column,
                     "kind": kind, "value": value, "unit": n.unit,
                     "text": html.unescape(n.text)})
    return rows


def to_csv(rows: list[dict], columns=COLUMNS) -> bytes:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(columns), lineterminator="\n",
                            extrasaction="raise")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue().encode("utf-8")


def from_csv(data: bytes | None, columns=COLUMNS) -> list[dict]:
    if not data:
        return []
    reader = csv.DictReader(io.StringIO(data.decode("utf-8"), newline=""))
    missing = [c for c in columns if c not in (reader.fieldnames or [])]
    if missing:
        raise ValueError(f"expected columns {', '.join(columns)}, missing {', '.join(missing)}")
    return [{c: row[c] for c in columns} for row in reader]


def build_id(ledger_bytes: bytes | None) -> str:
    return hashlib.sha256(ledger_bytes).hexdigest()[:12] if ledger_bytes else ""


def number(row: dict) -> float | None:
    if row["kind"] != "number" or row["value"] == "":
        return None
    return float(row["value"])
