"""A campaign page's rows of a comparison table (pipeline/publish/campaign_rows.py): within the
render only this campaign's rows are seen, by the unqualified name and by main.<name>; after it
(also after a failure) main's table is whole again; the digest follows this campaign's rows
only; a per-campaign table of the same name in the campaign's schema is never replaced."""
from __future__ import annotations

import duckdb
import pytest

from pipeline.publish.campaign_rows import comparison_marts, rows_digest, scoped
from pipeline.warehouse.schemas import reset_search_path, set_search_path


@pytest.fixture()
def con():
    con = duckdb.connect()
    con.execute('create schema "campaign:a"')
    con.execute('create table "campaign:a".own as select 1 as v')
    con.execute("create table main.own as select 'a' as campaign, 9 as v")      # a union of campaigns
    con.execute("create table main.cmp as select * from (values ('a', 1.0::double), ('a', 2.0), ('b', 3.0)) "
                "as t(campaign, x)")
    con.execute("create table main.shared as select 7 as v")                   # no campaign column
    yield con
    con.close()


def test_only_comparison_tables_with_a_campaign_column_are_scoped(con):
    # own: the schema has it (its own table wins); shared: no campaign column; absent: nowhere
    assert comparison_marts(con, "campaign:a", ["own", "cmp", "shared", "absent"]) == ["cmp"]


def test_the_render_sees_this_campaigns_rows_and_main_is_whole_after(con):
    with scoped(con, ["cmp"], "a"):
        set_search_path(con, "campaign:a")
        try:
            assert con.execute("select x from cmp order by x").fetchall() == [(1.0,), (2.0,)]
            assert con.execute("select v from own").fetchall() == [(1,)]
        finally:
            reset_search_path(con)
        assert con.execute("select count(*) from main.cmp").fetchone()[0] == 2
    assert con.execute("select count(*) from main.cmp").fetchone()[0] == 3
    with pytest.raises(RuntimeError), scoped(con, ["cmp"], "b"):
        assert con.execute("select x from cmp").fetchall() == [(3.0,)]
        raise RuntimeError("the page failed")
    assert con.execute("select count(*) from cmp").fetchone()[0] == 3


def test_the_digest_follows_this_campaigns_rows_only(con):
    def digest():
        with scoped(con, ["cmp"], "a"):
            return rows_digest(con, ["cmp"])

    before = digest()
    assert before[0].startswith("cmp=")
    con.execute("update main.cmp set x = 30 where campaign = 'b'")
    assert digest() == before
    con.execute("update main.cmp set x = 20 where campaign = 'a' and x = 2")
    assert digest() != before
