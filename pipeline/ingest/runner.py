"""Ingest one campaign's files of one format into the raw store, incrementally.

A file whose (path, sha256, parser version) already has its Parquet file is not parsed again
(the store's key says so; see :mod:`pipeline.ingest.store`). A changed file, or one parsed by an older
parser version, is parsed and its new Parquet file replaces the old one. A file that fails is
stored as an empty Parquet file whose registry entry says ``quarantined`` and why, so it is not
parsed again until its bytes or the parser change, and the run goes on. Files that left the
manifest take their rows with them.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import duckdb

from pipeline.ingest.base import Format, ParseError
from pipeline.ingest.store import RawStore, present, remove_head, write_parquet, write_sharded
from pipeline.util.faults import checkpoint
from pipeline.util.sql import literal

if TYPE_CHECKING:  # imported where it is used: importing the definitions does not load it
    import pandas as pd


@dataclass
class IngestSummary:
    parsed: int = 0
    skipped: int = 0
    quarantined: int = 0
    removed: int = 0
    rows: int = 0


# DuckDB threads for one file's parse (default: one per core). A step per core, side by side
# (the multiprocess or Celery executors, pipeline/orchestration/scale_out.py), gives each step one.
THREADS_ENV = "INTERCONNECT_PARSE_THREADS"


def parse_config() -> dict:
    threads = os.environ.get(THREADS_ENV, "")
    if not threads:
        return {}
    if not threads.isdigit() or int(threads) < 1:
        raise ValueError(f"{THREADS_ENV}={threads!r}: expected a whole number of threads, 1 or more")
    return {"threads": int(threads)}


def columns_of(fmt: Format) -> dict[str, str]:
    return {"source_file": "VARCHAR", "campaign": "VARCHAR", "source_line": "BIGINT", **fmt.columns}


def _frame(fmt: Format, rows, path: Path) -> pd.DataFrame:
    import pandas as pd
    frame = rows if isinstance(rows, pd.DataFrame) else pd.DataFrame(list(rows))
    wanted = ["source_line", *fmt.columns]
    if frame.empty:
        return pd.DataFrame(columns=wanted)
    missing = [c for c in wanted if c not in frame.columns]
    if missing:
        raise RuntimeError(f"parser {fmt.name} returned no column(s) {missing} for {path}")
    return frame[wanted]


def ingest_files(store: RawStore, fmt: Format, raw_data: Path, campaign: str, files,
                 log=None) -> IngestSummary:
    """Bring ``store/<campaign>/<fmt.table>`` in line with the campaign's listed files."""
    summary = IngestSummary()
    config = parse_config()     # a bad setting stops here, before any file is judged by it
    store.clean_temporaries(campaign, fmt.table)
    keep: set[str] = set()
    for entry in files:
        if entry.format != fmt.name or entry.status != "listed":
            continue
        target = store.table_dir(campaign, fmt.table) / store.key(
            entry.source_file, entry.sha256, fmt.version)
        keep.add(target.name)
        if present(target):
            summary.skipped += 1
            continue
        registry = {"source_file": entry.source_file, "campaign": campaign, "format": fmt.name,
                    "sha256": entry.sha256, "parser_version": fmt.version}
        path = raw_data / entry.source_file
        try:
            n = _parse_into(fmt, path, target, campaign, entry, registry, config)
        except ParseError as exc:
            reason = str(exc).replace(str(raw_data) + "/", "")
            _quarantine(store, fmt, target, registry, reason, log, summary)
            continue
        except Exception as exc:  # noqa: BLE001 - a parser bug must not stop the other files
            reason = (f"{entry.source_file}: the {fmt.name} parser failed on this file "
                      f"({type(exc).__name__}: {exc}); the file is quarantined")
            _quarantine(store, fmt, target, registry, reason, log, summary)
            continue
        store.drop_other_versions(target)
        summary.parsed += 1
        summary.rows += n
    for old in store.heads(campaign, fmt.table):
        if old.name not in keep:
            remove_head(old)
            summary.removed += 1
    return summary


def _parse_into(fmt: Format, path: Path, target: Path, campaign: str, entry, registry: dict,
                config: dict) -> int:
    """Parse one file and write its rows to ``target``; returns the row count. A streaming
    format's rows go from DuckDB straight into the temporary Parquet file, which its check
    accepts or rejects before the rename; the others return rows in Python."""
    ok = {**registry, "status": "ok", "reason": None}
    if fmt.stream is None:
        frame = _frame(fmt, fmt.parse(path), path)
        checkpoint("ingest:parsed")
        frame.insert(0, "campaign", campaign)
        frame.insert(0, "source_file", entry.source_file)
        return write_parquet(target, columns_of(fmt), frame, registry=ok, phase="ingest")
    con = duckdb.connect(config=config)
    try:
        streamed = fmt.stream(path, con)
        checkpoint("ingest:parsed")
        rows = (f"select {literal(entry.source_file)} as source_file, "
                f"{literal(campaign)} as campaign, * from ({streamed.select})")
        try:
            if streamed.sharded:
                def shards(folder: Path, typed) -> list[int]:
                    return streamed.write_shards(folder, lambda sql: typed(
                        f"select {literal(entry.source_file)} as source_file, "
                        f"{literal(campaign)} as campaign, * from ({sql})"))
                return write_sharded(target, columns_of(fmt), ok, shards, con=con,
                                     phase="ingest", check=streamed.check)
            return write_parquet(target, columns_of(fmt), None, registry=ok, select_sql=rows,
                                 con=con, phase="ingest", check=streamed.check)
        except (duckdb.InvalidInputException, duckdb.ConversionException) as exc:
            raise streamed.unreadable(exc) from None  # the file's bytes, named by line
    finally:
        con.close()


def _quarantine(store, fmt, target, registry, reason, log, summary) -> None:
    write_parquet(target, columns_of(fmt), None,
                  registry={**registry, "status": "quarantined", "reason": reason,
                            "rows_ingested": 0})
    store.drop_other_versions(target)
    summary.quarantined += 1
    if log:
        log.warning(f"quarantined {reason}")


def _ddl(name: str, columns: dict[str, str]) -> str:
    cols = ", ".join(f'"{c}" {t}' for c, t in columns.items())
    return f'create table if not exists "{name}" ({cols})'


def ensure_table(con, fmt: Format) -> None:
    """An empty ``raw_<format>`` table (and the registry) in ``con``: how tests and scripts
    give the SQL models a hand-made raw layer."""
    from pipeline.ingest.store import REGISTRY_COLUMNS
    con.execute(_ddl(fmt.table, columns_of(fmt)))
    con.execute(_ddl("ingest_registry", REGISTRY_COLUMNS))
