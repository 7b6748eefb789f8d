"""A build rebuilds only the campaign tables (pipeline/warehouse/keep.py) and the campaign pages
(pipeline/publish/page_keep.py) whose inputs changed, on a small copy of the tree, one kind of
change at a time, and ends where a --force build ends.

Which tables and pages were built and which kept is read from the build's summary lines
("campaign tables: B built, K kept", "pages: R rendered, K kept") and from each campaign file's
recorded digests, never from time. The expected counts come from the plan: M campaign models per
campaign, and for a SQL edit the edited model's downstream closure, worked out here from the
models' upstreams; a campaign page is rendered when a table it (or a chart of it) reads is in
the rebuilt set, and every shared page (S of them) is rendered by every build."""
from __future__ import annotations

import re
import shutil
from pathlib import Path

import duckdb
import pytest

from pipeline.commands.in_process import copy_tree
from pipeline.project import Project
from pipeline.warehouse.steps import Layout

from build_runs import files_of
from model_readers import closure as model_closure
from model_readers import readers_of
from conftest import REPO, run_cli_build

KEEP = ("lab-rpc-tbf100", "lab-rpc-shape-h256", "aws-p3-tc")
SUMMARY = re.compile(r"campaign tables: (\d+) built, (\d+) kept")
RAW_FILES = re.compile(r"raw files: (\d+) data file\(s\) in (\d+) campaign")
PAGES = re.compile(r"pages: (\d+) rendered, (\d+) kept")
LAST_PAGES: dict[str, tuple[int, int]] = {}


def _build(root: Path, *args: str) -> tuple[int, int]:
    """(tables built, tables kept); the pages' (rendered, kept) go to LAST_PAGES["counts"]."""
    proc = run_cli_build(root, "--no-site", *args)
    assert proc.returncode in (0, 3), proc.stderr[-3000:]
    found, pages = SUMMARY.search(proc.stderr), PAGES.search(proc.stderr)
    assert found and pages, proc.stderr[-2000:]
    LAST_PAGES["counts"] = (int(pages.group(1)), int(pages.group(2)))
    LAST_PAGES["raw files"] = int(RAW_FILES.search(proc.stderr).group(1))  # of the run's campaigns
    return int(found.group(1)), int(found.group(2))


def _pages(rendered_campaign_pages: int, kept: int, shared: int) -> None:
    """The last build rendered every shared page and ``rendered_campaign_pages`` campaign pages."""
    assert LAST_PAGES["counts"] == (shared + rendered_campaign_pages, kept)


def _page_readers(root: Path, tables: set[str]) -> set[str]:
    """The campaigns of KEEP whose page (or one of its charts) reads one of ``tables``."""
    from pipeline.project import AREA_OF_KIND
    from pipeline.publish.charts import discover_charts
    from pipeline.publish.pages import discover_pages
    charts = discover_charts()
    areas = {AREA_OF_KIND[p.per_campaign] for p in discover_pages(root / "templates")
             if p.per_campaign and {*p.marts, *(m for c in charts if c.page == p.name
                                                 for m in c.marts)} & tables}
    return {c.name for c in _campaigns(root) if c.name in KEEP and c.parent.name in areas}


def _campaigns(root: Path) -> list[Path]:
    return sorted(d for area in (root / "raw_data").iterdir() if area.is_dir()
                  for d in area.iterdir() if d.is_dir() and (d / "manifest.yaml").is_file())


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    root = copy_tree(REPO, tmp_path_factory.mktemp("incremental")).root
    for folder in _campaigns(root):
        if folder.name not in KEEP:
            shutil.rmtree(folder)
    layout = Layout(Project(root))
    return {"root": root, "layout": layout, "m": len(layout.plan.campaign)}


def test_each_kind_of_change_rebuilds_what_it_touches(tree):
    root, layout, m = tree["root"], tree["layout"], tree["m"]
    from pipeline.publish.pages import discover_pages
    shared = sum(p.per_campaign is None for p in discover_pages(root / "templates"))
    # the first build keeps nothing: 3 campaigns x M tables, every page
    assert _build(root) == (3 * m, 0)
    _pages(3, 0, shared)
    # a campaign added (a copy of one under a new name): only its M tables and its page
    shutil.copytree(root / "raw_data" / "deployments" / "lab-rpc-tbf100",
                    root / "raw_data" / "deployments" / "lab-rpc-tbf100-again")
    manifest = root / "raw_data" / "deployments" / "lab-rpc-tbf100-again" / "manifest.yaml"
    manifest.write_text(manifest.read_text().replace("campaign: lab-rpc-tbf100\n",
                                                     "campaign: lab-rpc-tbf100-again\n"))
    assert _build(root) == (m, 3 * m)
    _pages(1, 3, shared)
    # one raw file of one campaign changed: that campaign's tables and page, none of the others'
    ping = sorted((root / "raw_data" / "labs" / "lab-rpc-shape-h256" / "ping").glob("*.txt"))[0]
    ping.write_text(ping.read_text() + "\n")
    assert _build(root) == (m, 3 * m)
    _pages(1, 3, shared)
    # a campaign removed: nothing built, the rest kept
    shutil.rmtree(root / "raw_data" / "deployments" / "lab-rpc-tbf100-again")
    assert _build(root) == (0, 3 * m)
    _pages(0, 3, shared)
    # one SQL model edited: it and its downstream closure, in every campaign; the pages that
    # read a table of the closure
    edited = root / "sql" / "intermediate" / "int_lab__series_links.sql"
    edited.write_text(edited.read_text() + "\n-- an edit that changes nothing but the text\n")
    closure = model_closure(layout, "int_lab__series_links")
    assert 1 < len(closure) < m
    assert _build(root) == (3 * len(closure), 3 * (m - len(closure)))
    readers = _page_readers(root, closure)
    assert 0 < len(readers) < 3        # the lab page reads the series' tables, the p2p page none
    _pages(len(readers), 3 - len(readers), shared)
    # one per-campaign template edited (a Jinja comment: the text it renders is the same):
    # every page of that template, no table
    template = root / "templates" / "p2p.md.j2"
    template.write_text(template.read_text() + "{# an edit that renders nothing #}\n")
    assert _build(root) == (0, 3 * m)
    _pages(1, 2, shared)               # aws-p3-tc is the one p2p campaign
    every = LAST_PAGES["raw files"]    # the run spans every campaign: their raw files all read
    # a shared page's template edited: no campaign page, and the run spans no campaign but the
    # one a run always checks (in_process.run_range), so fewer raw files are read
    template = root / "templates" / "point-to-point.md.j2"
    template.write_text(template.read_text() + "{# an edit that renders nothing #}\n")
    assert _build(root) == (0, 3 * m)
    _pages(0, 3, shared)
    assert LAST_PAGES["raw files"] < every
    # a reference CSV edited: every model that reads reference data, directly or not
    params = root / "raw_data" / "reference" / "measurement_params.csv"
    text = params.read_text()
    assert "Idle baseline of a netdev capture" in text
    params.write_text(text.replace("Idle baseline of a netdev capture", "Idle baseline of one netdev capture", 1))
    refs = set(layout.reference_tables) | {x.name for x in layout.plan.reference}
    readers = readers_of(layout, refs)
    built, kept = _build(root)
    assert (built, kept) == (3 * len(readers), 3 * (m - len(readers))) and 0 < len(readers) < m
    pages = _page_readers(root, readers)
    _pages(len(pages), 3 - len(pages), shared)


def test_a_page_changed_in_docs_is_rendered_again(tree):
    """Same inputs, but docs/ no longer holds what the page's last render wrote (edited by hand,
    or restored from git): the page is rendered again and docs/ gets its text back."""
    root = tree["root"]
    page = root / "docs" / "p2p" / "aws-p3-tc.md"
    good = page.read_bytes()
    page.write_bytes(good + b"\nan edit by hand\n")
    _build(root)
    assert LAST_PAGES["counts"][1] == 2         # the other two campaign pages are kept
    assert page.read_bytes() == good


def _warehouse(root: Path):
    """The warehouse with every campaign's file attached (READ_ONLY)."""
    from pipeline.warehouse.campaign_files import attach_all
    path = root / ".warehouse" / "interconnect.duckdb"
    return attach_all(duckdb.connect(str(path), read_only=True), path)


def test_every_campaign_file_records_the_digest_of_every_table(tree):
    con = _warehouse(tree["root"])
    try:
        for name in KEEP:
            rows = con.execute(f'select count(*) from "campaign:{name}".meta_model_digests').fetchall()
            assert rows == [(tree["m"] + 1,)]      # and one for the campaign's checks
        # the removed campaign's file is gone with it, and its rows with the file
        assert not (tree["root"] / ".warehouse" / "interconnect.campaigns" /
                    "lab-rpc-tbf100-again.duckdb").exists()
        assert con.execute('select count(*) from "every campaign".stg_raw__campaigns where '
                           "campaign = 'lab-rpc-tbf100-again'").fetchone() == (0,)
    finally:
        con.close()


def test_the_kept_build_publishes_what_a_forced_build_does(tree, tmp_path):
    root = tree["root"]
    kept_docs = tmp_path / "kept"
    shutil.copytree(root / "docs", kept_docs)
    assert _build(root, "--force")[1] == 0          # --force keeps nothing
    differ = []
    for path in sorted(kept_docs.rglob("*")):
        if path.is_file():
            other = root / "docs" / path.relative_to(kept_docs)
            if not other.is_file() or other.read_bytes() != path.read_bytes():
                differ.append(path.relative_to(kept_docs).as_posix())
    # byte for byte: the build ids and stamps derive from the inputs, not from what was rebuilt
    assert differ == []



def test_a_tree_moved_with_its_warehouse_reads_its_own_files(tree, tmp_path):
    """Built in one folder, then moved (nothing is left where its files were made): the next
    build runs the campaigns of a removal, not every one (in_process.run_range), publishes the
    same docs/, and each campaign file's views read the moved tree's Parquet files."""
    first, moved = tmp_path / "first", tmp_path / "moved"
    shutil.copytree(tree["root"], first, symlinks=True)
    proc = run_cli_build(first, "--no-site", "--force")   # every campaign file made in `first`
    assert proc.returncode == 0, proc.stderr[-3000:]
    every = int(RAW_FILES.search(proc.stderr).group(1))
    docs = files_of(first / "docs")
    shutil.move(first, moved)
    proc = run_cli_build(moved, "--no-site")
    assert proc.returncode == 0, proc.stderr[-3000:]
    ran, campaigns = map(int, RAW_FILES.search(proc.stderr).groups())
    assert campaigns == len(KEEP) and ran < every
    assert files_of(moved / "docs") == docs
    from pipeline.warehouse import campaign_files
    layout = Layout(Project(moved))
    con = duckdb.connect()
    for name in KEEP:
        assert campaign_files.attach(con, moved / ".warehouse" / "interconnect.duckdb", name)
        schema = f"campaign:{name}"
        for view in ("raw_files", layout.reference_tables[0]):
            (sql,) = con.execute("select sql from duckdb_views() where database_name = ? and "
                                 "view_name = ?", [schema, view]).fetchone()
            assert str(tmp_path) not in sql, sql
            assert con.execute(f'select count(*) from "{schema}"."{view}"').fetchone()[0] > 0
    con.close()


def test_a_model_that_now_fails_leaves_no_table_of_an_earlier_build(tree):
    root = tree["root"]
    probe = root / "sql" / "intermediate" / "int_zz_probe.sql"
    text = ("-- grain: one row per campaign (a probe of this test)\n"
            "select campaign, {value} as v from raw_campaigns\n")
    probe.write_text(text.format(value="1"))
    _build(root)
    probe.write_text(text.format(value="case when campaign = 'aws-p3-tc' then error('probe') else 1 end"))
    _build(root)            # aws-p3-tc is withheld: its probe failed on its data
    con = _warehouse(root)
    try:
        tables = {(s, t) for s, t in con.execute(
            "select database_name, table_name from duckdb_tables() where table_name = 'int_zz_probe'").fetchall()}
        # the other campaigns have it; the failed one has none (not last build's table)
        assert ("campaign:lab-rpc-tbf100", "int_zz_probe") in tables
        assert ("campaign:aws-p3-tc", "int_zz_probe") not in tables
        status = con.execute("select status from \"campaign:aws-p3-tc\".meta_campaign_status").fetchall()
        assert status == [("withheld",)]
    finally:
        con.close()
        probe.unlink()


def test_a_campaign_withheld_for_its_page_is_published_once_the_template_is_mended(tree):
    """A campaign kept whole (no model or check runs) drops a withholding that came from its
    page: the page is rendered again from the mended template and the campaign is published."""
    root = tree["root"]
    template = root / "templates" / "p2p.md.j2"
    good = template.read_text()
    template.write_text(good + "{% if campaign == 'aws-p3-tc' %}{{ row('no_such_mart') }}{% endif %}\n")
    proc = run_cli_build(root, "--no-site")
    assert proc.returncode == 3 and "withheld campaign aws-p3-tc" in proc.stderr, proc.stderr[-2000:]
    template.write_text(good)
    proc = run_cli_build(root, "--no-site")
    assert proc.returncode == 0, proc.stderr[-2000:]
    # every table of aws-p3-tc was kept: its schema was kept whole, yet it is published again
    assert "campaign tables: 0 built" in proc.stderr
    assert "withheld: none" in proc.stderr or "withheld none" in proc.stderr
    assert "no_such_mart" not in (root / "docs" / "p2p" / "aws-p3-tc.md").read_text()
