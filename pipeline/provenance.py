"""Where a published table comes from: the raw files behind its rows.

Lineage is read from the SQL models' upstreams (the same parse that builds the
asset graph) down to raw format tables, reference CSVs and manifests. When the
table has a ``campaign`` column, only the files of the campaigns in its rows
count; otherwise every file of every raw table it reads does.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from . import models
from .ingest import discover_formats
from .ingest.reference import table_name as ref_table_name


@dataclass(frozen=True)
class Source:
    source_file: str      # relative to raw_data/
    sha256: str
    kind: str             # a raw format, "reference" or "manifest"


class Lineage:
    def __init__(self, sql_dir: Path):
        self.upstreams = {m.name: set(m.upstreams) for m in models.discover(sql_dir)}
        self.format_tables = {f.table: f.name for f in discover_formats().values()}

    def leaves(self, table: str) -> set[str]:
        """Raw, reference and manifest tables ``table`` reads, transitively."""
        seen, stack, leaves = set(), [table], set()
        while stack:
            t = stack.pop()
            if t in seen:
                continue
            seen.add(t)
            if t in self.upstreams:
                stack.extend(self.upstreams[t])
            else:
                leaves.add(t)
        return leaves

    def reads(self, table: str, other: str) -> bool:
        return other in self.leaves(table) or other == table


def _columns(con, table: str) -> list[str]:
    return [r[0] for r in con.execute(
        "select column_name from duckdb_columns() where table_name = ? and schema_name = 'main'",
        [table]).fetchall()]


@lru_cache(maxsize=4096)
def _file_sha(path: str, mtime_ns: int, size: int) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def file_sha(path: Path) -> str:
    st = path.stat()
    return _file_sha(str(path), st.st_mtime_ns, st.st_size)


def sources(con, lineage: Lineage, table: str, raw_data: Path) -> list[Source]:
    leaves = lineage.leaves(table)
    campaigns = None
    if "campaign" in _columns(con, table):
        campaigns = [r[0] for r in con.execute(
            f'select distinct campaign from "{table}" where campaign is not null').fetchall()]
    where = ""
    params: list = []
    if campaigns is not None:
        where = " where campaign in (select unnest(?::varchar[]))"
        params = [campaigns]
    found: dict[str, Source] = {}
    for leaf in sorted(leaves):
        if leaf in lineage.format_tables:
            rows = con.execute(
                f'select distinct t.source_file, f.sha256 from "{leaf}" as t '
                f"left join raw_files as f on f.source_file = t.source_file"
                + where.replace("campaign", "t.campaign"), params).fetchall()
            for path, sha in rows:
                found[path] = Source(path, sha or "", lineage.format_tables[leaf])
        elif leaf.startswith("ref_"):
            for csv in sorted((raw_data / "reference").glob("*.csv")):
                if ref_table_name(csv) == leaf:
                    rel = csv.relative_to(raw_data).as_posix()
                    found[rel] = Source(rel, file_sha(csv), "reference")
        elif leaf in ("raw_campaigns", "raw_files"):
            rows = con.execute("select manifest_file from raw_campaigns" + where, params).fetchall()
            for (path,) in rows:
                if (raw_data / path).is_file():
                    found[path] = Source(path, file_sha(raw_data / path), "manifest")
    return [found[k] for k in sorted(found)]
