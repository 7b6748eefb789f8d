"""A SQL model that fails on one campaign's data (not on the empty template, so it is not a bug
in the SQL itself): that campaign is withheld, the model is named as the reason, and every other
campaign is still built and published; the tables the campaign did build still reach the
inventory (Data quality names it). Found when a GGUF key's value broke a cast in a lab series
model for the campaigns that had that key: the build stopped at the comparison step instead."""
from __future__ import annotations

import pytest

from conftest import build_copy, warehouse

VICTIM = "lab-veth-tbf"
# fails on the rows of one campaign only (DuckDB's error() raises when a row reaches it)
FAILING = f"""-- grain: one row per campaign
-- A model that fails on the data of campaign {VICTIM} only.
select campaign, case when campaign = '{VICTIM}' then error('boom: bad value') else 1 end as x
from stg_raw__campaigns
"""
# a later model reading it: the victim has neither table
DOWNSTREAM = """-- grain: one row per campaign
-- Reads the failing model.
select campaign, x + 1 as y from int_zz_fails_on_one
"""


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    def add(root):
        (root / "sql" / "intermediate" / "int_zz_fails_on_one.sql").write_text(FAILING)
        (root / "sql" / "intermediate" / "int_zz_after_it.sql").write_text(DOWNSTREAM)
    project = build_copy(tmp_path_factory.mktemp("model-failure"), edit=add, site=False)
    con = warehouse(project)
    yield con
    con.close()


def test_the_campaign_is_withheld_naming_the_model_and_the_others_publish(built):
    published = {c for (c,) in built.execute("select campaign from main.int_zz_fails_on_one").fetchall()}
    assert VICTIM not in published and len(published) >= 5
    assert {c for (c,) in built.execute("select campaign from main.int_zz_after_it").fetchall()} == published
    (detail,) = built.execute("select detail from main.fct_data_quality where campaign = ? "
                              "and status = 'withheld'", [VICTIM]).fetchone()
    assert "int_zz_fails_on_one.sql" in detail and "boom: bad value" in detail


def test_the_inventory_still_holds_what_the_withheld_campaign_built(built):
    # its raw tables and the models before the failing one are in the 'every campaign' union
    n = built.execute('select count(*) from "every campaign".stg_raw__campaigns where campaign = ?',
                      [VICTIM]).fetchone()[0]
    assert n == 1
    # the failing model's union has no rows of it, and reading it does not fail
    assert built.execute('select count(*) from "every campaign".int_zz_fails_on_one where campaign = ?',
                         [VICTIM]).fetchone()[0] == 0

