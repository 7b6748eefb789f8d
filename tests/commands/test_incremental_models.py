"""A build rebuilds only the campaign tables whose inputs changed (pipeline/warehouse/keep.py),
on a small copy of the tree, one kind of change at a time, and ends where a --force build ends.

Which tables were built and which kept is read from the build's summary line ("campaign
tables: B built, K kept") and from each campaign schema's recorded digests, never from time.
The expected counts come from the plan: M campaign models per campaign, and for a SQL edit the
edited model's downstream closure, worked out here from the models' upstreams."""
from __future__ import annotations

import re
import shutil
from pathlib import Path

import duckdb
import pytest

from pipeline.commands.in_process import copy_tree
from pipeline.project import Project
from pipeline.warehouse.steps import Layout

from conftest import REPO, run_cli_build

KEEP = ("lab-rpc-tbf100", "lab-rpc-shape-h256", "aws-p3-tc")
SUMMARY = re.compile(r"campaign tables: (\d+) built, (\d+) kept")


def _build(root: Path, *args: str) -> tuple[int, int]:
    proc = run_cli_build(root, "--no-site", *args)
    assert proc.returncode in (0, 3), proc.stderr[-3000:]
    found = SUMMARY.search(proc.stderr)
    assert found, proc.stderr[-2000:]
    return int(found.group(1)), int(found.group(2))


def _campaigns(root: Path) -> list[Path]:
    return sorted(d for area in (root / "raw_data").iterdir() if area.is_dir()
                  for d in area.iterdir() if d.is_dir() and (d / "manifest.yaml").is_file())


def _closure(layout: Layout, name: str) -> set[str]:
    """``name`` and every campaign model that reads it, directly or not."""
    out = {name}
    for model in layout.plan.campaign:          # dependency order: upstreams come first
        if out & set(model.upstreams):
            out.add(model.name)
    return out


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
    # the first build keeps nothing: 3 campaigns x M tables
    assert _build(root) == (3 * m, 0)
    # a campaign added (a copy of one under a new name): only its M tables are built
    shutil.copytree(root / "raw_data" / "deployments" / "lab-rpc-tbf100",
                    root / "raw_data" / "deployments" / "lab-rpc-tbf100-again")
    assert _build(root) == (m, 3 * m)
    # one raw file of one campaign changed: that campaign's tables, none of the others'
    ping = sorted((root / "raw_data" / "labs" / "lab-rpc-shape-h256" / "ping").glob("*.txt"))[0]
    ping.write_text(ping.read_text() + "\n")
    assert _build(root) == (m, 3 * m)
    # a campaign removed: nothing built, the rest kept
    shutil.rmtree(root / "raw_data" / "deployments" / "lab-rpc-tbf100-again")
    assert _build(root) == (0, 3 * m)
    # one SQL model edited: it and its downstream closure, in every campaign
    edited = root / "sql" / "intermediate" / "int_lab__series_links.sql"
    edited.write_text(edited.read_text() + "\n-- an edit that changes nothing but the text\n")
    closure = _closure(layout, "int_lab__series_links")
    assert 1 < len(closure) < m
    assert _build(root) == (3 * len(closure), 3 * (m - len(closure)))
    # a reference CSV edited: every model that reads reference data, directly or not
    params = root / "raw_data" / "reference" / "measurement_params.csv"
    text = params.read_text()
    assert "Idle baseline of a netdev capture" in text
    params.write_text(text.replace("Idle baseline of a netdev capture", "Idle baseline of one netdev capture", 1))
    readers: set[str] = set()
    refs = set(layout.reference_tables) | {x.name for x in layout.plan.reference}
    for model in layout.plan.campaign:
        if refs & set(model.upstreams) or readers & set(model.upstreams):
            readers.add(model.name)
    built, kept = _build(root)
    assert (built, kept) == (3 * len(readers), 3 * (m - len(readers))) and 0 < len(readers) < m


def test_every_schema_records_the_digest_of_every_table(tree):
    con = duckdb.connect(str(tree["root"] / ".warehouse" / "interconnect.duckdb"), read_only=True)
    try:
        for name in KEEP:
            rows = con.execute(f'select count(*) from "campaign:{name}".meta_model_digests').fetchall()
            assert rows == [(tree["m"],)]
        # the removed campaign's schema is gone with it
        schemas = {r[0] for r in con.execute("select schema_name from duckdb_schemas()").fetchall()}
        assert "campaign:lab-rpc-tbf100-again" not in schemas
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


def test_a_model_that_now_fails_leaves_no_table_of_an_earlier_build(tree):
    root = tree["root"]
    probe = root / "sql" / "intermediate" / "int_zz_probe.sql"
    text = ("-- grain: one row per campaign (a probe of this test)\n"
            "select campaign, {value} as v from raw_campaigns\n")
    probe.write_text(text.format(value="1"))
    _build(root)
    probe.write_text(text.format(value="case when campaign = 'aws-p3-tc' then error('probe') else 1 end"))
    _build(root)            # aws-p3-tc is withheld: its probe failed on its data
    con = duckdb.connect(str(root / ".warehouse" / "interconnect.duckdb"), read_only=True)
    try:
        tables = {(s, t) for s, t in con.execute(
            "select schema_name, table_name from duckdb_tables() where table_name = 'int_zz_probe'").fetchall()}
        # the other campaigns have it; the failed one has none (not last build's table)
        assert ("campaign:lab-rpc-tbf100", "int_zz_probe") in tables
        assert ("campaign:aws-p3-tc", "int_zz_probe") not in tables
        status = con.execute("select status from \"campaign:aws-p3-tc\".meta_campaign_status").fetchall()
        assert status == [("withheld",)]
    finally:
        con.close()
        probe.unlink()
