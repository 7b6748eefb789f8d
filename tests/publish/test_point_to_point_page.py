"""The Point to Point pages: one campaign's page from the fixture warehouse, and the shared page
from the shipped raw files (every campaign, built in one connection)."""
from __future__ import annotations

import os
import re

import duckdb
import pytest

from pipeline.commands.bare_build import build_warehouse
from pipeline.project import Project
from pipeline.publish.pages import render_template
from pipeline.util.sql import literal, q
from pipeline.warehouse.schemas import set_search_path
from pipeline.warehouse.steps import Layout

from p2p_warehouse import warehouse
from paths import REPO

ROOT = REPO
SHARED = ROOT / "templates" / "point-to-point.md.j2"
CAMPAIGN = ROOT / "templates" / "p2p.md.j2"


def _row(page: str, *cells: str) -> str:
    """The table line that starts with these cells."""
    start = "| " + " | ".join(cells) + " |"
    found = [ln for ln in page.splitlines() if ln.startswith(start)]
    assert len(found) == 1, start
    return found[0]


def only(con, campaign: str) -> None:
    """Scope ``con`` to one campaign's rows, as the build does with a campaign schema."""
    schema = f"only {campaign}"
    con.execute(f"create schema {q(schema)}")
    for (table,) in con.execute("select table_name from duckdb_tables() where schema_name = 'main'").fetchall():
        cols = [r[0] for r in con.execute(f"describe {q(table)}").fetchall()]
        where = f" where campaign = {literal(campaign)}" if "campaign" in cols else ""
        con.execute(f"create view {q(schema)}.{q(table)} as select * from main.{q(table)}{where}")
    set_search_path(con, schema)


def test_fixture_page_keeps_missing_cells_empty():
    con = warehouse()
    only(con, "sw")
    page = render_template(con, CAMPAIGN)
    assert "None" not in page and "nan" not in page
    # the 100%-loss ping: delay empty, bandwidth still there (8e6 bits / 0.2 s = 40 Mbit/s)
    assert _row(page, "Oregon", "Ireland") == "| Oregon | Ireland | — | 40.0 Mbit/s | — | — |"
    # no pair of the fixture has a dumped NCCL run: the column is left out of the pair table
    header = _row(page, "Region 1 (recv)", "Region 2 (send)")
    assert header == "| Region 1 (recv) | Region 2 (send) | Delay | NCCL bandwidth | iperf3 public IP | iperf3 over the VPN |"
    assert "## Data-quality notes" in page and "no reply to 3 packet(s)" in page
    assert "## TC results" not in page          # the tc rows belong to the other campaign
    # every row of a table has as many cells as its header: nothing shifted
    for block in re.split(r"\n\n", page):
        lines = [ln for ln in block.splitlines() if ln.startswith("|")]
        if lines:
            assert len({ln.count(" |") for ln in lines}) == 1, block


@pytest.fixture(scope="module")
def shipped(tmp_path_factory):
    """The shipped raw files (every campaign) built into one warehouse."""
    old = os.environ.get("INTERCONNECT_DB")
    os.environ["INTERCONNECT_DB"] = str(tmp_path_factory.mktemp("wh") / "w.duckdb")
    try:
        layout = Layout(Project(ROOT))
        con = duckdb.connect(str(layout.project.warehouse))
        build_warehouse(con, layout)
    finally:
        if old is None:
            os.environ.pop("INTERCONNECT_DB")
        else:
            os.environ["INTERCONNECT_DB"] = old
    return con


def test_shipped_files_reproduce_the_seed_tables(shipped):
    page = render_template(shipped, SHARED)
    # The reconstructed files' medians (scripts/reconstruct_p2p_swan.py) round to the seed's cells.
    assert _row(page, "delay 10 ms") == "| delay 10 ms | 532 ms | 113 ms | 972 ms | 171 ms |"
    assert _row(page, "bandwidth 1 Gbit/s").endswith("| 1,082 ms | 1,082 ms |")
    assert _row(page, "Oregon", "Virginia") == (
        "| Oregon | Virginia | 67 ms | 790 Mbit/s | 761 Mbit/s | 4.56 Gbit/s | 1.16 Gbit/s |")
    # one merged table: the dumped-NCCL column is there (other pairs have it); Sydney's pairs
    # have no dumped run, so theirs is a dash, never a neighbour's value
    assert _row(page, "Sydney", "London") == "| Sydney | London | 262 ms | 326 Mbit/s | — | — | — |"
    nothing_quarantined = shipped.execute(
        "select count(*) from ingest_registry where status <> 'ok'").fetchall()[0][0]
    assert nothing_quarantined == 0
    # both shipped p2p campaigns are listed with a link to their own page
    assert "[aws-p3-tc](p2p/aws-p3-tc.md)" in page and "[swan-10-regions](p2p/swan-10-regions.md)" in page
