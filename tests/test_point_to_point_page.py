"""The Point to Point page: rendered from the fixture warehouse and from the shipped raw files."""
from __future__ import annotations

import re
from pathlib import Path

import duckdb
import pytest

from pipeline.ingest import discover_formats, reference
from pipeline.ingest.manifest import scan, write_tables
from pipeline.ingest.runner import REGISTRY_DDL, ingest_format
from pipeline.pages import render_template

from test_p2p_models import build, warehouse

ROOT = Path(__file__).resolve().parent.parent
TEMPLATE = ROOT / "templates" / "point-to-point.md.j2"


def _row(page: str, *cells: str) -> str:
    """The table line that starts with these cells."""
    start = "| " + " | ".join(cells) + " |"
    found = [ln for ln in page.splitlines() if ln.startswith(start)]
    assert len(found) == 1, start
    return found[0]


def test_fixture_page_keeps_missing_cells_empty():
    page = render_template(warehouse(), TEMPLATE)
    assert "None" not in page and "nan" not in page
    # the 100%-loss ping: delay empty, bandwidth still there (8e6 bits / 0.2 s = 40 Mbit/s)
    assert _row(page, "Oregon", "Ireland") == "| Oregon | Ireland | — | 40.0 Mbit/s | — | — |"
    assert "## Data-quality notes" in page and "no reply to 3 packet(s)" in page
    # every row of a table has as many cells as its header: nothing shifted
    for block in re.split(r"\n\n", page):
        lines = [ln for ln in block.splitlines() if ln.startswith("|")]
        if lines:
            assert len({ln.count(" |") for ln in lines}) == 1, block


@pytest.fixture(scope="module")
def shipped():
    """The shipped raw files (every campaign) ingested, and this page's models built."""
    con = duckdb.connect()
    campaigns, files = scan(ROOT / "raw_data")
    formats = discover_formats()
    files = [f for f in files if f.source_file.startswith("p2p/")]
    write_tables(con, [c for c in campaigns if c.area == "p2p"], files)
    con.execute(REGISTRY_DDL)
    for name in ("nccl_tests", "gloo_bench", "ping", "iperf3"):
        ingest_format(con, formats[name], ROOT / "raw_data")
    reference.load(con, ROOT / "raw_data" / "reference" / "aws_regions.csv")
    build(con)
    return con


def test_shipped_files_reproduce_the_seed_tables(shipped):
    page = render_template(shipped, TEMPLATE)
    # The reconstructed files' medians (scripts/reconstruct_p2p_swan.py) round to the seed's cells.
    assert _row(page, "delay 10 ms") == "| delay 10 ms | 532 ms | 113 ms | 972 ms | 171 ms |"
    assert _row(page, "bandwidth 1 Gbit/s").endswith("| 1,082 ms | 1,082 ms |")
    assert _row(page, "Oregon", "Virginia") == (
        "| Oregon | Virginia | 67 ms | 790 Mbit/s | 761 Mbit/s | 4.56 Gbit/s | 1.16 Gbit/s |")
    assert _row(page, "Sydney", "London") == "| Sydney | London | 262 ms | 326 Mbit/s | — | — |"
    nothing_quarantined = shipped.execute(
        "select count(*) from ingest_registry where status <> 'ok'").fetchall()[0][0]
    assert nothing_quarantined == 0
    assert "## Data-quality notes" not in page
