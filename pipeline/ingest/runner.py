"""Ingest the files of one format into its ``raw_*`` table, incrementally.

The ``ingest_registry`` table remembers, per file, the sha256 and parser
version it was last parsed with and the outcome. A file whose content and
parser are unchanged is not parsed again; a changed file's old rows are replaced;
a file that fails is quarantined with its reason and the run goes on. Two files
with the same content and the same manifest context under different names are one
measurement listed twice: the second is quarantined as a duplicate, so it is not
counted twice. (Same bytes with different context is legitimate: ethtool prints
no host name, so two hosts with the same NIC settings give identical files.)
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from .base import Format, ParseError

REGISTRY_DDL = """create table if not exists ingest_registry (
    source_file varchar primary key, format varchar, sha256 varchar, parser_version integer,
    status varchar, reason varchar, rows_ingested bigint)"""


@dataclass
class IngestSummary:
    parsed: int = 0
    skipped: int = 0
    quarantined: int = 0
    removed: int = 0
    rows: int = 0


def ensure_table(con, fmt: Format) -> None:
    cols = ", ".join(f'"{c}" {t}' for c, t in fmt.columns.items())
    con.execute(f'create table if not exists "{fmt.table}" (source_file varchar, '
                f'campaign varchar, source_line bigint, {cols})')
    con.execute(REGISTRY_DDL)


def _frame(fmt: Format, rows, path: Path) -> pd.DataFrame:
    frame = rows if isinstance(rows, pd.DataFrame) else pd.DataFrame(list(rows))
    wanted = ["source_line", *fmt.columns]
    if frame.empty:
        return pd.DataFrame(columns=wanted)
    missing = [c for c in wanted if c not in frame.columns]
    if missing:
        raise RuntimeError(f"parser {fmt.name} returned no column(s) {missing} for {path}")
    return frame[wanted]


def ingest_format(con, fmt: Format, raw_data: Path, log=None) -> IngestSummary:
    """Bring ``fmt.table`` in line with the files the manifests assign to ``fmt``."""
    ensure_table(con, fmt)
    summary = IngestSummary()
    listed = con.execute(
        "select source_file, campaign, sha256, context::varchar from raw_files "
        "where format = ? and manifest_status = 'listed' order by source_file", [fmt.name]).fetchall()
    known = {r[0]: r for r in con.execute(
        "select source_file, format, sha256, parser_version, status from ingest_registry "
        "where format = ?", [fmt.name]).fetchall()}

    # Files that left the manifest (or were deleted) take their rows with them.
    current = {r[0] for r in listed}
    for gone in sorted(set(known) - current):
        con.execute(f'delete from "{fmt.table}" where source_file = ?', [gone])
        con.execute("delete from ingest_registry where source_file = ?", [gone])
        summary.removed += 1

    first_seen: dict[tuple[str, str, str], str] = {}
    for source_file, campaign, sha, context in listed:
        duplicate_of = first_seen.setdefault((campaign, sha, context), source_file)
        prev = known.get(source_file)
        # A duplicate's status depends on other files, so it is decided again on every run.
        unchanged = (prev is not None and prev[2] == sha and prev[3] == fmt.version
                     and prev[4] != "duplicate")
        if unchanged and duplicate_of == source_file:
            summary.skipped += 1
            continue
        con.execute(f'delete from "{fmt.table}" where source_file = ?', [source_file])
        if duplicate_of != source_file:
            _record(con, source_file, fmt, sha, "duplicate",
                    f"{source_file}: same content (sha256 {sha[:12]}) and context as "
                    f"{duplicate_of}; ingested once", 0)
            summary.quarantined += 1
            continue
        path = raw_data / source_file
        try:
            frame = _frame(fmt, fmt.parse(path), path)
        except ParseError as exc:
            reason = str(exc).replace(str(raw_data) + "/", "")
            _record(con, source_file, fmt, sha, "quarantined", reason, 0)
            summary.quarantined += 1
            if log:
                log.warning(f"quarantined {reason}")
            continue
        frame.insert(0, "campaign", campaign)
        frame.insert(0, "source_file", source_file)
        con.register("_incoming", frame)
        try:
            con.execute(f'insert into "{fmt.table}" by name select * from _incoming')
        finally:
            con.unregister("_incoming")
        _record(con, source_file, fmt, sha, "ok", None, len(frame))
        summary.parsed += 1
        summary.rows += len(frame)
    return summary


def _record(con, source_file, fmt, sha, status, reason, rows):
    con.execute("delete from ingest_registry where source_file = ?", [source_file])
    con.execute("insert into ingest_registry values (?,?,?,?,?,?,?)",
                [source_file, fmt.name, sha, fmt.version, status, reason, rows])
