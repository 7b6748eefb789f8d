"""The warehouse's view of every campaign, kept up to date one campaign at a time.

Each campaign builds its tables in its own file (pipeline/warehouse/campaign_files.py). The
join copies them into the warehouse, so the comparison models, the catalog and the shared pages
read one file whatever the number of campaigns:

- ``"campaign rows".<t>``: a table of every campaign's rows of each campaign model and of the
  registry; ``"every campaign".<t>``: a view of it in campaign order (the inventory scope),
  each campaign's rows in their own order, as a build from nothing reads them;
  ``main.<t>``: a view of the published campaigns' rows only.
- The raw tables are views of every campaign's Parquet files (nothing is copied).
- ``"campaign results"``: each campaign's check results and status, and the bookkeeping below.

A union table records, per campaign, the digest of the table its rows were copied from
(``meta_union_rows``; pipeline/warehouse/keep.py's digests, which name everything a table is
computed from) and the columns it was made with (``meta_union_shapes``). A join replaces the
rows of a campaign whose digest changed, adds a new campaign's and deletes a gone one's; it
attaches only those campaigns' files. A table whose columns changed is made again from every
campaign. A campaign without a summary (its step died after writing) is copied again.
"""
from __future__ import annotations

import json

from pipeline.util.hashing import sha256_of_parts
from pipeline.util.sql import insert_frame, literal, new_table, q
from pipeline.warehouse import campaign_files, keep
from pipeline.ingest.store import typed_empty
from pipeline.warehouse.campaign import STATUS_COLUMNS, raw_tables
from pipeline.warehouse.schemas import (
    EVERY,
    TEMPLATE,
    campaign_schema,
    home,
    objects,
    replace_table,
    replace_view,
)

RESULTS = "campaign results"
ROWS_SCHEMA = "campaign rows"       # the union tables, in the order campaigns' rows were copied
ROWS = "meta_union_rows"
PAGE_WITHHELD = "meta_page_withheld"     # campaigns whose page failed to render, and why
SHAPES = "meta_union_shapes"
CHECKS_TABLE, STATUS_TABLE, REGISTRY = "meta_check_results", "meta_campaign_status", "ingest_registry"
# in every table's shape: a change to how unions are made makes each one again
_LAYOUT = "unions v1: campaign rows only"


def summary(out) -> dict:
    """What a campaign's file holds, for the join: its status and each table's digest (None:
    not known, copied again)."""
    tables = {name: out.digests.get(name) for name in out.rows}
    tables[REGISTRY] = out.digests.get(keep.RAW)
    tables[CHECKS_TABLE] = out.digests.get(keep.CHECKS)
    return {"status": out.status, "reasons": out.reasons, "tables": tables}


def _from_file(con, warehouse, campaign: str) -> dict:
    """The summary of a campaign whose step left none, read from its file."""
    with campaign_files.attached(con, warehouse, [campaign]):
        schema = q(campaign_schema(campaign))
        row = con.execute(f"select status, reasons from {schema}.{STATUS_TABLE}").fetchone()
        held = objects(con, campaign_schema(campaign))
    status, reasons = row if row else ("withheld", "[]")
    return {"status": status, "reasons": json.loads(reasons or "[]"),
            "tables": {name: None for name, kind in held.items() if kind == "table"}}


def summaries(con, warehouse, campaigns: list[str]) -> dict[str, dict]:
    out = {}
    for c in campaigns:
        found = campaign_files.read_summary(warehouse, c)
        out[c] = found if found is not None else _from_file(con, warehouse, c)
    return out


def _bookkeeping(con) -> None:
    con.execute(f"create schema if not exists {q(RESULTS)}")
    con.execute(f"create schema if not exists {q(EVERY)}")
    con.execute(f"create schema if not exists {q(ROWS_SCHEMA)}")
    con.execute(f"create table if not exists {q(RESULTS)}.{ROWS} "
                f"(table_name varchar, campaign varchar, digest varchar)")
    con.execute(f"create table if not exists {q(RESULTS)}.{SHAPES} (table_name varchar, shape varchar)")


def _shapes(con) -> dict[str, str]:
    """table -> the digest of its columns in the template's file, every table at once."""
    cols: dict[str, list[str]] = {}
    for table, col, kind in con.execute(
            "select table_name, column_name, data_type from duckdb_columns() where "
            "database_name = ? and schema_name = 'main' order by table_name, column_index",
            [TEMPLATE]).fetchall():
        cols.setdefault(table, []).append(f"{col} {kind}")
    return {t: sha256_of_parts(_LAYOUT, *c) for t, c in cols.items()}


class _Joined:
    """What the unions hold before a join, read once (not once a table): the template's
    shapes, the shapes and digests recorded, the objects of the two schemas written."""

    def __init__(self, con) -> None:
        self.shapes = _shapes(con)
        self.recorded = dict(con.execute(f"select table_name, shape from {q(RESULTS)}.{SHAPES}").fetchall())
        self.rows: dict[str, dict[str, str | None]] = {}
        for table, c, digest in con.execute(f"select table_name, campaign, digest from "
                                            f"{q(RESULTS)}.{ROWS}").fetchall():
            self.rows.setdefault(table, {})[c] = digest
        self.kinds = {schema: objects(con, schema) for schema in (RESULTS, ROWS_SCHEMA)}


def _copy(con, target: str, table: str, wanted: dict[str, str | None], warehouse,
          joined: _Joined) -> None:
    """Bring ``target.table`` to the rows of ``wanted`` campaigns (campaign -> digest)."""
    shape = joined.shapes.get(table, sha256_of_parts(_LAYOUT))
    kinds = joined.kinds[target]
    if joined.recorded.get(table) != shape or kinds.get(table) != "table":
        if (kind := kinds.get(table)):
            con.execute(f"drop {kind} {q(target)}.{q(table)}")
        con.execute(f"create table {q(target)}.{q(table)} as select * from {q(TEMPLATE)}.{q(table)} limit 0")
        kinds[table] = "table"
        con.execute(f"delete from {q(RESULTS)}.{ROWS} where table_name = ?", [table])
        con.execute(f"delete from {q(RESULTS)}.{SHAPES} where table_name = ?", [table])
        con.execute(f"insert into {q(RESULTS)}.{SHAPES} values (?, ?)", [table, shape])
        have: dict[str, str | None] = {}
    else:
        have = joined.rows.get(table, {})
    same = {c for c, d in wanted.items() if d is not None and have.get(c) == d and c in have}
    stale = sorted(set(have) - same)
    fresh = sorted(set(wanted) - same)
    if stale:
        con.execute(f"delete from {q(target)}.{q(table)} where list_contains(?, campaign)", [stale])
        con.execute(f"delete from {q(RESULTS)}.{ROWS} where table_name = ? and "
                    f"list_contains(?, campaign)", [table, stale])
    for c in fresh:
        campaign_files.attach(con, warehouse, c)
        con.execute(f"insert into {q(target)}.{q(table)} by name select * replace "
                    f"(cast(? as varchar) as campaign) from {q(campaign_schema(c))}.{q(table)}", [c])
        con.execute(f"insert into {q(RESULTS)}.{ROWS} values (?, ?, ?)", [table, c, wanted[c]])


def _statuses(con, found: dict[str, dict], areas: dict[str, str]) -> None:
    import pandas as pd
    frame = pd.DataFrame([{"campaign": c, "area": areas.get(c), "status": s["status"],
                           "reasons": json.dumps(s["reasons"], ensure_ascii=False)}
                          for c, s in sorted(found.items())], columns=list(STATUS_COLUMNS))
    new_table(con, f"{q(RESULTS)}.{STATUS_TABLE}", STATUS_COLUMNS)
    insert_frame(con, f"{q(RESULTS)}.{STATUS_TABLE}", frame)


def join(con, layout, campaigns: list[str]) -> dict[str, dict]:
    """Bring the warehouse's unions to ``campaigns``' files (every campaign with a file);
    returns each campaign's summary. The template's file is attached for the columns."""
    warehouse = layout.project.warehouse
    _bookkeeping(con)
    found = summaries(con, warehouse, campaigns)
    with campaign_files.attached(con, warehouse, [None]):
        try:
            tables = [*layout.plan.campaign_tables, REGISTRY]
            joined = _Joined(con)
            for table in [*tables, CHECKS_TABLE]:
                wanted = {c: s["tables"][table] for c, s in found.items() if table in s["tables"]}
                _copy(con, RESULTS if table == CHECKS_TABLE else ROWS_SCHEMA, table,
                      wanted, warehouse, joined)
        finally:
            for c in campaigns:
                campaign_files.detach(con, c)
    raw_union_views(con, layout, campaigns)
    areas = dict(con.execute(f"select campaign, area from {q(EVERY)}.raw_campaigns").fetchall())
    _statuses(con, found, areas)
    published = sorted(c for c, s in found.items() if s["status"] == "published")
    chosen = "false" if not published else \
        f"list_contains([{', '.join(literal(c) for c in published)}], campaign)"
    # read in campaign order, each campaign's rows in its own table's order, whatever order the
    # joins copied them in: what a build from nothing reads
    every = objects(con, EVERY)
    for table in tables:
        replace_view(con, EVERY, table, f"select * from {q(ROWS_SCHEMA)}.{q(table)} "
                                        f"order by campaign, rowid", every)
    kinds = objects(con, "main")
    for table in tables:
        replace_view(con, "main", table, f"select * from {q(EVERY)}.{q(table)} where {chosen}", kinds)
    for table in raw_tables(layout.formats):
        replace_view(con, "main", table, f"select * from {q(EVERY)}.{q(table)} where {chosen}", kinds)
    return found


# the manifests' tables: a few rows a campaign, read by every page's source notes; a view of
# them opens a Parquet file per campaign at each read, so they are copied once a join
BOOKKEEPING = ("raw_campaigns", "raw_files")


def raw_union_views(con, layout, campaigns: list[str]) -> None:
    """``"every campaign".<raw table>``: a view of every campaign's Parquet files (a table of
    them for the manifests' two tables)."""
    kinds = objects(con, EVERY)
    for table, columns in raw_tables(layout.formats).items():
        parts = [typed_empty(columns)] + [layout.store.relation(c, table, columns) for c in campaigns]
        make = replace_table if table in BOOKKEEPING else replace_view
        make(con, EVERY, table, " union all by name ".join(parts), kinds)


def statuses(con) -> dict[str, dict]:
    """campaign -> {status, area, reasons} of every campaign the last join saw, with the
    withholding of a campaign whose page failed to render since (page_withheld)."""
    found = con.execute("select table_name from duckdb_tables() where database_name = ? and "
                        "schema_name = ?", [home(con), RESULTS]).fetchall()
    names = {n for (n,) in found}
    if STATUS_TABLE not in names:
        return {}
    rows = con.execute(f"select campaign, status, area, reasons from {q(RESULTS)}.{STATUS_TABLE} "
                       f"order by campaign").fetchall()
    out = {c: {"status": s, "area": a, "reasons": json.loads(r or "[]")} for c, s, a, r in rows}
    if PAGE_WITHHELD in names:
        for campaign, reason in con.execute(f"select campaign, reason from {q(RESULTS)}."
                                            f"{PAGE_WITHHELD} order by campaign").fetchall():
            if campaign in out:
                out[campaign]["status"] = "withheld"
                out[campaign]["reasons"].append(json.loads(reason))
    return out


def page_withheld(con, campaign: str, reason: dict | None) -> None:
    """Record (a reason) or clear (None) that ``campaign``'s page failed to render. Kept in the
    warehouse apart from the join's statuses, which a later join makes again from the
    campaigns' files: the page is rendered again by the next build that renders it."""
    con.execute(f"create schema if not exists {q(RESULTS)}")
    con.execute(f"create table if not exists {q(RESULTS)}.{PAGE_WITHHELD} "
                f"(campaign varchar, reason json)")
    con.execute(f"delete from {q(RESULTS)}.{PAGE_WITHHELD} where campaign = ?", [campaign])
    if reason is not None:
        con.execute(f"insert into {q(RESULTS)}.{PAGE_WITHHELD} values (?, ?)",
                    [campaign, json.dumps(reason, ensure_ascii=False)])
