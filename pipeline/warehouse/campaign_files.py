"""One DuckDB file per campaign: its models are written by its own step alone.

``<warehouse>.campaigns/<campaign>.duckdb`` holds, in its ``main`` schema, the campaign's raw
tables (views of its Parquet files), its registry, views of the reference data (Parquet files
the reference step writes beside the warehouse, ``<warehouse>.reference/``), every campaign
model, its check results, status and model digests. The campaign template (the models built
from no data) is ``<warehouse>.template.duckdb``. No two steps write the same file, so the
campaigns' models build side by side on the multiprocess or Celery executors as their raw files
are parsed, and the warehouse file itself holds only what compares campaigns
(pipeline/warehouse/unions.py copies each changed campaign's rows into it).

Beside each file, ``<campaign>.json`` says what the file holds (its status and each table's
digest), written after the file is closed and removed before it is opened for writing: a step
that dies in between leaves no summary, and the join then reads the file itself.

A reader attaches a campaign's file READ_ONLY under the name its schema had
(``"campaign:<name>"``), so SQL that names ``"campaign:<name>".<table>`` reads it.

The views of a campaign's file name the Parquet files they read from the folder that holds the
warehouse (``interconnect.raw/<campaign>/…``, ``interconnect.reference/…``), not by absolute
path, so a tree that is moved or copied, warehouse and all, reads its own files and its next
build need not touch the campaigns its move did not change. Every connection that opens or
attaches such a file sets DuckDB's ``file_search_path`` to that folder first (``search_from``;
``writing`` and ``attach`` do). Opened by hand: ``SET file_search_path = '<that folder>'``.
DuckDB tries the working directory before the search path, so do not run a reader from inside
another tree's warehouse folder.
"""
from __future__ import annotations

import json
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from pipeline.ingest.runner import parse_config
from pipeline.util.atomic import write_if_changed
from pipeline.util.sql import literal, q
from pipeline.warehouse.heal import heal
from pipeline.warehouse.schemas import campaign_schema

SUMMARY_SUFFIX = ".json"


def folder(warehouse: Path) -> Path:
    return Path(warehouse).with_suffix(".campaigns")


def reference_folder(warehouse: Path) -> Path:
    """The reference tables as Parquet, one file each, for the campaign files to read."""
    return Path(warehouse).with_suffix(".reference")


def path_of(warehouse: Path, campaign: str | None) -> Path:
    """The campaign's file (the template's when None)."""
    if campaign is None:
        return Path(warehouse).with_suffix(".template.duckdb")
    return folder(warehouse) / f"{campaign}.duckdb"


def lock_of(warehouse: Path, campaign: str | None) -> Path:
    """The lock a step holds while it writes the campaign's file (pipeline/util/lock.py)."""
    path = path_of(warehouse, campaign)
    return path.with_name(path.name + ".lock")


def summary_of(warehouse: Path, campaign: str) -> Path:
    return folder(warehouse) / f"{campaign}{SUMMARY_SUFFIX}"


def on_disk(warehouse: Path) -> list[str]:
    """Campaigns that have a file."""
    base = folder(warehouse)
    return sorted(p.stem for p in base.glob("*.duckdb")) if base.is_dir() else []


def remove(warehouse: Path, campaign: str) -> None:
    for path in (path_of(warehouse, campaign), summary_of(warehouse, campaign)):
        path.unlink(missing_ok=True)
        Path(str(path) + ".wal").unlink(missing_ok=True)
    lock_of(warehouse, campaign).unlink(missing_ok=True)


@contextmanager
def writing(warehouse: Path, campaign: str | None, fresh: bool, log=None) -> Iterator:
    """A read-write connection to the campaign's own file (a new, empty file when ``fresh``).
    A file DuckDB cannot open is moved aside first (pipeline/warehouse/heal.py)."""
    import duckdb
    path = path_of(warehouse, campaign)
    path.parent.mkdir(parents=True, exist_ok=True)
    if campaign is not None:
        summary_of(warehouse, campaign).unlink(missing_ok=True)
    if fresh:
        for stale in (path, Path(str(path) + ".wal")):
            stale.unlink(missing_ok=True)
    elif (healed := heal(path)) and log is not None:
        log(healed)
    # INTERCONNECT_PARSE_THREADS: the DuckDB threads of each campaign's step, its parse and its
    # models alike (one each when a step runs on every core)
    con = duckdb.connect(str(path), config=parse_config())
    try:
        con.execute("set enable_progress_bar = false")
        search_from(con, warehouse)
        yield con
        con.execute("checkpoint")
    finally:
        con.close()


def write_summary(warehouse: Path, campaign: str, summary: dict) -> None:
    write_if_changed(summary_of(warehouse, campaign), json.dumps(summary, sort_keys=True))


def read_summary(warehouse: Path, campaign: str) -> dict | None:
    try:
        return json.loads(summary_of(warehouse, campaign).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def search_from(con, warehouse: Path) -> None:
    """Let ``con`` read what the views of the campaign files beside ``warehouse`` name."""
    con.execute(f"set file_search_path = {literal(str(Path(warehouse).resolve().parent))}")


def attached_names(con) -> set[str]:
    return {r[0] for r in con.execute("select database_name from duckdb_databases()").fetchall()}


def attach(con, warehouse: Path, campaign: str | None) -> bool:
    """Attach the campaign's file READ_ONLY as its schema's name; False when it has no file.
    Attaching one already attached does nothing."""
    name = campaign_schema(campaign)
    if name in attached_names(con):
        return True
    path = path_of(warehouse, campaign)
    if not path.is_file():
        return False
    search_from(con, warehouse)
    con.execute(f"attach {literal(str(path))} as {q(name)} (read_only)")
    return True


def attach_all(con, warehouse: Path):
    """``con`` with the template's file and every campaign's attached (READ_ONLY): SQL that
    names ``"campaign:<name>".<table>`` reads as it did when campaigns were schemas."""
    for campaign in [None, *on_disk(warehouse)]:
        attach(con, warehouse, campaign)
    return con


def detach(con, campaign: str | None) -> None:
    name = campaign_schema(campaign)
    if name in attached_names(con):
        con.execute(f"detach {q(name)}")


@contextmanager
def attached(con, warehouse: Path, campaigns: list[str | None]) -> Iterator[list[str | None]]:
    """Within the block, each campaign's file is attached (READ_ONLY); those this call attached
    are detached when it ends. Yields the campaigns that have a file."""
    before = attached_names(con)
    found = [c for c in campaigns if attach(con, warehouse, c)]
    try:
        yield found
    finally:
        for c in found:
            if campaign_schema(c) not in before:
                detach(con, c)


@contextmanager
def scratch_attached(warehouse: Path, campaigns: list[str | None]) -> Iterator:
    """An in-memory connection with these campaigns' files attached (READ_ONLY)."""
    from pipeline.util import scratch
    con = scratch.cursor()
    try:
        with attached(con, warehouse, campaigns):
            yield con
    finally:
        con.close()
