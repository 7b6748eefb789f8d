"""A campaign page's rows of a comparison table: a per-campaign page renders with the search
path on its campaign's schema, where the tables that compare campaigns (``scope: comparison``,
built in ``main`` after every campaign's) are not. A page that lists one in its front matter
reads only that campaign's rows of it: for the render, a temporary table of the same name holds
``main.<table> where campaign = <this campaign>``, so the template, its CSV download, its
sources and its figures all see the same rows, and the page's keep digest names those rows'
content (a change to another campaign's rows does not render this page again). The temporary
tables are dropped when the render ends, failed or not.
"""
from __future__ import annotations

from contextlib import contextmanager

from pipeline.util.hashing import sha256_of_parts
from pipeline.util.sql import q
from pipeline.warehouse.schemas import home, objects


def comparison_marts(con, schema: str, marts) -> list[str]:
    """The tables of ``marts`` that ``schema`` lacks and ``main`` has with a campaign column."""
    own = objects(con, schema)
    missing = sorted({m for m in marts if m not in own})
    if not missing:
        return []
    found = con.execute(
        "select distinct table_name from duckdb_columns() where database_name = ? "
        "and schema_name = 'main' and column_name = 'campaign' and list_contains(?, table_name)",
        [home(con), missing]).fetchall()
    return sorted(name for (name,) in found)


def reads_comparison(con, marts) -> bool:
    """Whether any of ``marts`` compares campaigns: a table of the warehouse's ``main`` with a
    campaign column (a campaign's own tables are views there, of every campaign's rows), whose
    rows for one campaign can change when another campaign does."""
    return bool(con.execute(
        "select count(*) from duckdb_columns() c join duckdb_tables() t using "
        "(database_name, schema_name, table_name) where c.database_name = ? and "
        "c.schema_name = 'main' and c.column_name = 'campaign' and list_contains(?, c.table_name)",
        [home(con), sorted(set(marts))]).fetchone()[0])


@contextmanager
def scoped(con, marts: list[str], campaign: str):
    """Within the block, each of ``marts`` (unqualified) is this campaign's rows of main's."""
    made = []
    try:
        for mart in marts:
            con.execute(f"create or replace temp table {q(mart)} as "
                        f"select * from main.{q(mart)} where campaign = ?", [campaign])
            made.append(mart)
        yield
    finally:
        for mart in made:
            con.execute(f"drop table if exists temp.main.{q(mart)}")


def rows_digest(con, marts: list[str]) -> list[str]:
    """'<mart>=<digest of its scoped rows>' for each of ``marts`` (call within ``scoped``)."""
    parts = []
    for mart in marts:
        rows = con.execute(f"select * from {q(mart)} order by all").fetchall()
        parts.append(f"{mart}=" + sha256_of_parts(*(repr(r) for r in rows)))
    return parts
