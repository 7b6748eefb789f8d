"""The raw layer on disk: one Parquet file per raw file, grouped by campaign.

``<store>/<campaign>/<raw table>/<key>.parquet`` holds the rows parsed from one raw file; its
footer's key/value metadata holds that file's registry entry (source file, sha256, parser
version, status, reason, row count). Rows and registry entry are therefore one file, written to
a temporary name and renamed: a build killed at any point leaves the old file or the new one,
never rows without their entry or an entry without its rows. The key is derived from the source
path, the content's sha256 and the parser version, so a changed file or a new parser version
gets a new key and is parsed again; a file whose key is present is not.

A capture big enough to be parsed in byte ranges on several cores is stored *sharded*: each
range's rows are one Parquet file in the folder ``<key>.shards/`` beside the head file
``<key>``, which then holds no rows, only the registry entry (with the total row count). The
folder is renamed into place before the head, and a folder is read only beside its head, so the
head's presence still decides: a build killed between the two renames leaves a folder that
nothing reads and the next ingest removes.

Campaigns never share a folder, so campaigns parse in parallel (separate processes, or
separate machines writing to shared storage) without a single writer; the DuckDB warehouse
reads these files through views. ``_campaign.parquet`` and ``_files.parquet`` hold the
campaign's manifest and file list (raw_campaigns, raw_files).
"""
from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import duckdb

from pipeline.ingest.unreadable import name_the_unreadable
from pipeline.util import scratch
from pipeline.util.faults import checkpoint
from pipeline.util.sql import insert_frame, literal, new_table

if TYPE_CHECKING:  # imported where it is used: importing the definitions does not load it
    import pandas as pd

REGISTRY_KEY = "interconnect_registry"

CAMPAIGN_COLUMNS = {
    "campaign": "VARCHAR", "area": "VARCHAR", "kind": "VARCHAR", "title": "VARCHAR",
    "date": "DATE", "provenance": "VARCHAR", "hosts": "JSON", "links": "JSON", "params": "JSON",
    "manifest_file": "VARCHAR", "manifest_status": "VARCHAR", "manifest_problem": "VARCHAR",
    # the folder's content digest when it was scanned (pipeline/ingest/digest.py)
    "content_sha256": "VARCHAR",
    # the manifest file's own sha256 (None when it is missing or not a regular file)
    "manifest_sha256": "VARCHAR",
}
FILE_COLUMNS = {
    "source_file": "VARCHAR", "campaign": "VARCHAR", "format": "VARCHAR",
    "manifest_status": "VARCHAR", "reason": "VARCHAR", "context": "JSON",
    "size_bytes": "BIGINT", "sha256": "VARCHAR",
}
REGISTRY_COLUMNS = {
    "source_file": "VARCHAR", "campaign": "VARCHAR", "format": "VARCHAR", "sha256": "VARCHAR",
    "parser_version": "INTEGER", "status": "VARCHAR", "reason": "VARCHAR",
    "rows_ingested": "BIGINT",
}


def typed_select(columns: dict[str, str], select_sql: str) -> str:
    """The rows of ``select_sql`` with exactly these columns, cast to these types."""
    typed = ", ".join(f'cast("{c}" as {t}) as "{c}"' for c, t in columns.items())
    return f"select {typed} from ({select_sql})"


def typed_empty(columns: dict[str, str]) -> str:
    """A SELECT with these columns and types and no rows."""
    cols = ", ".join(f'cast(null as {t}) as "{c}"' for c, t in columns.items())
    return f"select {cols} where false"


@dataclass(frozen=True)
class RawStore:
    root: Path

    def campaign_dir(self, campaign: str) -> Path:
        return self.root / campaign

    def table_dir(self, campaign: str, table: str) -> Path:
        return self.root / campaign / table

    @staticmethod
    def key(source_file: str, sha256: str, version: int) -> str:
        path_id = hashlib.sha256(source_file.encode("utf-8")).hexdigest()[:16]
        return f"{path_id}-{sha256[:16]}-v{version}.parquet"

    def lock_file(self, campaign: str) -> Path:
        """The lock a step holds while it writes ``campaign``'s part of the store
        (pipeline/util/lock.py, ingest_lock); beside the store, so removing a campaign keeps it."""
        return self.root.parent / f".{self.root.name}.{campaign}.lock"

    def campaigns(self) -> list[str]:
        if not self.root.is_dir():
            return []
        return sorted(p.name for p in self.root.iterdir() if p.is_dir())

    def drop_other_versions(self, target: Path) -> None:
        """Remove the Parquet files of the same raw file under other keys (older bytes or
        parser versions), right after ``target`` replaced them."""
        path_id = target.name.split("-", 1)[0]
        for old in target.parent.glob(f"{path_id}-*.parquet"):
            if old != target:
                remove_head(old)

    def heads(self, campaign: str, table: str) -> list[Path]:
        """One file per raw file: its rows (or, when sharded, none) and its registry entry."""
        folder = self.table_dir(campaign, table)
        return sorted(folder.glob("*.parquet")) if folder.is_dir() else []

    def files(self, campaign: str, table: str) -> list[Path]:
        """Every Parquet file holding the table's rows: each head and its shards."""
        paths = []
        for head in self.heads(campaign, table):
            paths.append(head)
            paths.extend(sorted(shard_dir(head).glob("*.parquet")))
        return paths

    def relation(self, campaign: str, table: str, columns: dict[str, str],
                 relative: bool = False) -> str:
        """SQL for the table's rows of one campaign (typed and empty when it has none). With
        ``relative``, each file is named from the store's parent folder, which the reading
        connection must have as its ``file_search_path`` (pipeline/warehouse/campaign_files.py):
        the SQL then holds wherever the tree is moved or copied to."""
        paths = self.files(campaign, table)
        if not paths:
            return typed_empty(columns)
        named = [p.relative_to(self.root.parent).as_posix() if relative else str(p) for p in paths]
        listed = ", ".join(literal(p) for p in named)
        cols = ", ".join(f'"{c}"' for c in columns)
        return f"select {cols} from read_parquet([{listed}])"

    def registry(self, campaign: str, tables: list[str]) -> list[dict]:
        """The registry entries (footers) of a campaign's parsed files."""
        paths = [str(p) for t in tables for p in self.files(campaign, t)]
        if not paths:
            return []
        con = scratch.cursor()
        sql = ("select decode(m.value), f.num_rows from parquet_kv_metadata(?) m "
               "join parquet_file_metadata(?) f using (file_name) where decode(m.key) = ?")
        try:
            rows = con.execute(sql, [paths, paths, REGISTRY_KEY]).fetchall()
        except duckdb.Error:
            name_the_unreadable(con, sql, paths, REGISTRY_KEY)   # DuckDB's may name none
            raise
        finally:
            con.close()
        entries = []
        for value, num_rows in rows:
            entry = json.loads(value)
            if entry.get("status") == "ok" and entry.get("rows_ingested") is None:
                entry["rows_ingested"] = num_rows  # a streamed file: its row count is the file's
            entries.append(entry)
        return entries

    def clean_temporaries(self, campaign: str, table: str) -> None:
        """Remove what a killed write left: temporary files and folders, and shard folders
        whose head was never renamed into place."""
        folder = self.table_dir(campaign, table)
        if folder.is_dir():
            for stale in folder.glob(".*.tmp"):
                _remove(stale)
            for shards in folder.glob(f"*{SHARDS}"):
                if not shards.with_name(shards.name[:-len(SHARDS)]).is_file():
                    _remove(shards)

    def remove_campaign(self, campaign: str) -> None:
        import shutil
        shutil.rmtree(self.campaign_dir(campaign), ignore_errors=True)


SHARDS = ".shards"


def shard_dir(head: Path) -> Path:
    return head.with_name(head.name + SHARDS)


def _remove(path: Path) -> None:
    import shutil
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)


def remove_head(head: Path) -> None:
    """Remove a raw file's head, then its shards (a kill in between leaves shards nothing
    reads)."""
    head.unlink(missing_ok=True)
    _remove(shard_dir(head))


def _reached(phase: str | None, point: str) -> None:
    """The fault checkpoint ``<phase>:<point>`` (pipeline/util/faults.py), when a phase is named."""
    if phase:
        checkpoint(f"{phase}:{point}")


def present(path: Path) -> bool:
    """A complete Parquet file: written by rename, so its last bytes are the footer magic."""
    try:
        with open(path, "rb") as fh:
            fh.seek(-4, os.SEEK_END)
            return fh.read(4) == b"PAR1"
    except OSError:
        return False


def _kv_metadata(entry: dict) -> str:
    """COPY option that stores a registry entry in the Parquet footer."""
    return f", kv_metadata {{{REGISTRY_KEY}: {literal(json.dumps(entry, sort_keys=True))}}}"


def write_parquet(target: Path, columns: dict[str, str], frame: pd.DataFrame | None,
                  registry: dict | None = None, select_sql: str | None = None,
                  con: duckdb.DuckDBPyConnection | None = None, phase: str | None = None,
                  check=None) -> int:
    """Write ``frame`` (or the rows of ``select_sql`` on ``con``) typed as ``columns`` to
    ``target`` via a temporary file and a rename; returns the row count. ``select_sql`` is
    copied straight to the file (one pass, nothing held in memory); its registry entry then
    omits ``rows_ingested``, which :meth:`RawStore.registry` reads from the file's row count.
    ``check(temporary path)`` may reject the written file (it is removed) before the rename.
    ``phase`` names the fault checkpoints around the rename (pipeline/util/faults.py)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    own = con is None
    con = con or scratch.cursor()
    try:
        options = "format parquet"
        if select_sql is not None:
            if registry is not None:
                options += _kv_metadata(registry)
            n = con.execute(f"copy ({typed_select(columns, select_sql)}) to "
                            f"{literal(str(tmp))} ({options})").fetchall()[0][0]
        else:
            new_table(con, "_out", columns, temporary=True)
            if frame is not None:
                insert_frame(con, "_out", frame)
            n = con.execute("select count(*) from _out").fetchall()[0][0]
            if registry is not None:
                ok = registry.get("status") == "ok"
                options += _kv_metadata(dict(registry, rows_ingested=n) if ok else registry)
            con.execute(f"copy _out to {literal(str(tmp))} ({options})")
            con.execute("drop table _out")
        if check is not None:
            check(tmp)
        _reached(phase, "written")
        os.replace(tmp, target)
        _reached(phase, "renamed")
        return n
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    finally:
        if own:
            con.close()


def write_sharded(target: Path, columns: dict[str, str], registry: dict, write_shards,
                  con: duckdb.DuckDBPyConnection, phase: str | None = None, check=None) -> int:
    """Store one raw file's rows as shards: ``write_shards(folder, typed)`` writes each shard
    into ``folder`` (``typed(select_sql)`` gives a shard's SELECT with this table's columns and
    types) and returns their row counts; ``check(paths)`` may reject them. The shards' folder is
    renamed into place, then the head (no rows, the registry entry with the total count).
    Returns the row count."""
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp_shards = target.with_name(f".{target.name}{SHARDS}.{os.getpid()}.tmp")
    tmp_head = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    _remove(tmp_shards)
    tmp_shards.mkdir()
    try:
        n = sum(write_shards(tmp_shards, lambda sql: typed_select(columns, sql)))
        shards = sorted(tmp_shards.glob("*.parquet"))
        if check is not None:
            check(shards)
        entry = dict(registry, rows_ingested=n, shards=len(shards))
        con.execute(f"copy ({typed_empty(columns)}) to {literal(str(tmp_head))} "
                    f"(format parquet{_kv_metadata(entry)})")
        _reached(phase, "written")
        _remove(shard_dir(target))
        os.replace(tmp_shards, shard_dir(target))
        _reached(phase, "shards-renamed")
        os.replace(tmp_head, target)
        _reached(phase, "renamed")
        return n
    except BaseException:
        _remove(tmp_shards)
        tmp_head.unlink(missing_ok=True)
        raise
