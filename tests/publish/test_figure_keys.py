"""Every table a page prints declares the columns that identify its rows (``-- key:``), and
they do identify them: a figure's id (page, table, row key, column) is stable only if no two
rows share a key, in any campaign's schema."""
from __future__ import annotations

import duckdb
import pytest

from pipeline.publish import pages
from pipeline.publish.figures.site_ledger import row_keys
from pipeline.warehouse import models

from conftest import REPO

KEYS = row_keys(REPO / "sql")
PRINTED = sorted({m for p in pages.discover_pages(REPO / "templates") if p.figures for m in p.marts
                  if m in {x.name for x in models.discover(REPO / "sql")}})


def test_every_printed_mart_declares_a_key():
    missing = [m for m in PRINTED if m not in KEYS]
    assert not missing, f"add a '-- key: col, …' line to sql/marts/<name>.sql for {missing}"


@pytest.mark.parametrize("mart", PRINTED)
def test_the_key_identifies_every_row(built, mart):
    from pipeline.warehouse.campaign_files import attach_all
    path = built.root / ".warehouse" / "interconnect.duckdb"
    con = attach_all(duckdb.connect(str(path), read_only=True), path)
    # each campaign's own file (the key is unique within a campaign's rows), and the warehouse
    # (its comparison tables; "every campaign" holds the campaigns' rows copied side by side)
    places = [r for r in con.execute("select database_name, schema_name from duckdb_tables() "
                                     "where table_name = ? and schema_name not in ('every campaign', 'campaign rows')",
                                     [mart]).fetchall()]
    assert places, mart
    key = KEYS[mart]
    for database, schema in places:
        columns = {r[0] for r in con.execute("select column_name from duckdb_columns() where "
                                             "database_name = ? and schema_name = ? and "
                                             "table_name = ?", [database, schema, mart]).fetchall()}
        assert set(key) <= columns, f"{mart}: key {key} names columns it does not have"
        rel = f'"{database}"."{schema}"."{mart}"'
        if not key:
            assert con.execute(f"select count(*) from {rel}").fetchone()[0] <= 1, mart
            continue
        cols = ", ".join(f'"{c}"' for c in key)
        dup = con.execute(f"select {cols}, count(*) from {rel} group by all having count(*) > 1 "
                          f"limit 1").fetchall()
        assert not dup, f"{database}.{mart}: two rows share the key {dict(zip(key, dup[0]))}"


def test_a_one_row_mart_declares_an_empty_key():
    m = next(x for x in models.discover(REPO / "sql") if x.name == "fct_site_summary")
    assert m.key == () and "key:" not in m.description
