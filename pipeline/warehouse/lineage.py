"""Where a published table comes from: the raw files behind its rows.

A table's files are:

- the declared-parameter CSVs its lineage reads (``ref_*``), read from the SQL upstreams;
- the measurement files named by its rows: a ``source_files`` list column carried through the
  models, when the table has one; otherwise, per campaign present in its rows, that campaign's
  files of the raw formats its lineage reads (a row without a campaign, such as a formula row
  of a theory table, brings no measurement file);
- the manifests of the campaigns in its rows (they give the files their context).

The queries run in the connection's current scope: a campaign page sees only its campaign's
files, a shared page only the published campaigns'.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pipeline.ingest.formats import discover_formats
from pipeline.ingest.reference import table_name as ref_table_name
from pipeline.util.hashing import file_sha
from pipeline.warehouse import models


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
    cur = con.execute(f'select * from "{table}" limit 0')
    return [d[0] for d in cur.description]


def _reference_sources(leaves: set[str], raw_data: Path) -> dict[str, Source]:
    found = {}
    for csv in sorted((raw_data / "reference").glob("*.csv")):
        if ref_table_name(csv) in leaves:
            rel = csv.relative_to(raw_data).as_posix()
            found[rel] = Source(rel, file_sha(csv), "reference")
    return found


def sources(con, lineage: Lineage, table: str, raw_data: Path,
            campaign: str | None = None) -> list[Source]:
    """The files behind ``table`` (only behind ``campaign``'s rows, when given)."""
    leaves = lineage.leaves(table)
    cols = _columns(con, table)
    relation = f'"{table}"'
    if campaign is not None and "campaign" in cols:
        relation = f"(select * from \"{table}\" where campaign = '{campaign.replace(chr(39), chr(39) * 2)}')"
    found = _reference_sources(leaves, raw_data)
    format_leaves = sorted(t for t in leaves if t in lineage.format_tables)
    campaigns: list[str] = []
    if "campaign" in cols:
        campaigns = [r[0] for r in con.execute(
            f'select distinct campaign from {relation} where campaign is not null').fetchall()]
    if "source_files" in cols:
        rows = con.execute(
            f'select distinct f.source_file, f.sha256, f.format from '
            f'(select distinct unnest(source_files) as source_file from {relation}) as s '
            f'join raw_files as f on f.source_file = s.source_file').fetchall()
        for path, sha, fmt in rows:
            found[path] = Source(path, sha or "", fmt or "")
    elif format_leaves and ("campaign" in cols):
        formats = [lineage.format_tables[t] for t in format_leaves]
        rows = con.execute(
            "select source_file, sha256, format from raw_files where manifest_status = 'listed' "
            "and format in (select unnest(?::varchar[])) and campaign in "
            "(select unnest(?::varchar[]))", [formats, campaigns]).fetchall()
        for path, sha, fmt in rows:
            found[path] = Source(path, sha or "", fmt)
    elif format_leaves:
        # A table with measurement lineage but no campaign column: every file of those formats
        # in scope. The data dictionary test keeps published tables from landing here.
        formats = [lineage.format_tables[t] for t in format_leaves]
        rows = con.execute(
            "select source_file, sha256, format from raw_files where manifest_status = 'listed' "
            "and format in (select unnest(?::varchar[]))", [formats]).fetchall()
        for path, sha, fmt in rows:
            found[path] = Source(path, sha or "", fmt)
    if campaigns:
        for (manifest,) in con.execute(
                "select manifest_file from raw_campaigns where campaign in "
                "(select unnest(?::varchar[]))", [campaigns]).fetchall():
            if (raw_data / manifest).is_file():
                found[manifest] = Source(manifest, file_sha(raw_data / manifest), "manifest")
    return [found[k] for k in sorted(found)]
