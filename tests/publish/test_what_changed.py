"""The figures ledger and the What changed page, end to end on copies of the tree.

One copy is built four times, as a user would: as committed (its baseline is its own docs/, the
published build), after halving one iperf3 run, again unchanged, and after adding a campaign.
The expected changes are worked out from the SQL by hand: the halved file is the only VPN run
of its region pair, so ``int_p2p__pair_measurements`` (an average over that pair's VPN files)
halves ``fct_p2p_region_pairs.iperf3_vpn_bits_per_s`` of that one pair and nothing reads that
column again; the pair is shown on its campaign's page and on Point to Point (the featured
region campaign). Nothing else may move.
"""
from __future__ import annotations

import csv
import io
import json
import shutil
import subprocess
from pathlib import Path

import pytest


from built_tree import copy_built
from conftest import REPO, run_cli_build

CAMPAIGN = "swan-10-regions"
HALVED = f"raw_data/p2p/{CAMPAIGN}/iperf3/us-west-2_from_ap-northeast-1-vpn.json"
ROW = f"campaign={CAMPAIGN};receiver=us-west-2;sender=ap-northeast-1"
FIGURE = f"fct_p2p_region_pairs[{ROW}].iperf3_vpn_bits_per_s"
DATA = "docs/what-changed/data"


def _csv(path: Path) -> list[dict]:
    return list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"))))


def _docs(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes()
            for p in sorted((root / "docs").rglob("*")) if p.is_file()}


def _build(root: Path, *args: str) -> subprocess.CompletedProcess:
    proc = run_cli_build(root, "--no-site", *args)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc


def _halve(root: Path) -> float:
    path = root / HALVED
    doc = json.loads(path.read_text())
    before = doc["end"]["sum_received"]["bits_per_second"]
    for side in ("sum_sent", "sum_received"):
        doc["end"][side]["bits_per_second"] /= 2
        doc["end"][side]["bytes"] //= 2
    path.write_text(json.dumps(doc, indent=2))
    return before


@pytest.fixture(scope="module")
def history(tmp_path_factory):
    root = copy_built(tmp_path_factory.mktemp("what-changed"))   # the session's build, copied
    committed = _docs(REPO)
    first = _build(root)
    after_first = _docs(root)
    before = _halve(root)
    halved = _build(root)
    after_halving = _docs(root)
    again = _build(root, "--force")        # a real rebuild, not the no-op of an unchanged tree
    return {"root": root, "first": first, "committed": committed, "after_first": after_first,
            "before": before,
            "halved": halved, "after_halving": after_halving, "again": again,
            "after_again": _docs(root)}


def test_unchanged_tree_changes_no_docs_byte(history):
    # the copy's baseline is its own docs/: the same figures are the same build, its page kept
    assert history["after_first"] == history["committed"]
    assert "what changed: 0 measured figure(s) changed since the previous build in docs/" \
        in history["first"].stderr


def test_halving_one_iperf3_run_lists_exactly_its_figures(history):
    root = history["root"]
    changes = _csv(root / DATA / "figure_changes.csv")
    assert sorted((c["kind"], c["figure_id"]) for c in changes) == [
        ("moved", f"p2p/{CAMPAIGN}#{FIGURE}"), ("moved", f"point-to-point#{FIGURE}")]
    c = changes[0]
    # old and new in base units: the file's bits_per_second, then half of it
    assert float(c["old_value"]) == pytest.approx(history["before"], rel=1e-12)
    assert float(c["new_value"]) == pytest.approx(history["before"] / 2, rel=1e-12)
    assert float(c["relative_change"]) == pytest.approx(-0.5, rel=1e-9)
    assert c["unit"] == "bit/s"
    # shown as the page shows it (rate_sig: 3 significant figures)
    assert c["old_text"] != c["new_text"] and c["new_text"].endswith("bit/s")
    page = (root / "docs" / "what-changed.md").read_text()
    assert "## Figures that moved" in page and "-50.0%" in page
    # the entry links to the figure's section on its page
    assert f"[p2p/{CAMPAIGN}](p2p/{CAMPAIGN}.md#{c['anchor']})" in page or \
        any(f"(p2p/{CAMPAIGN}.md#{e['anchor']})" in page for e in changes)
    comparison = _csv(root / DATA / "comparison.csv")[0]
    assert comparison["figures_changed"] == "2" and comparison["moved"] == "2"
    assert comparison["baseline_build"] and comparison["baseline_build"] != comparison["build"]
    home = (root / "docs" / "index.md").read_text()
    # both moved figures are measurements (no benchmark timing moved)
    assert (f"**What changed:** 2 figures of measurements changed in build `{comparison['build']}` "
            f"since build `{comparison['baseline_build']}`") in home
    assert "**2**\nof measurements, 0 of the pipeline's own benchmark" in page
    # the build's summary line counts the same way: the two measurements, no timing
    assert ("what changed: 2 measured figure(s) changed since the previous build in docs/"
            in history["halved"].stderr)
    assert "changed since" in history["halved"].stderr and \
        ", 0 of the pipeline's own timings;" in history["halved"].stderr


def test_throughput_regression_check_is_raised(history):
    assert "regressions: link_throughput_regression: 1" in history["halved"].stderr
    assert "regressions: none" in history["first"].stderr


def test_anchor_of_each_figure_is_a_heading_of_its_page(history):
    root = history["root"]
    from pipeline.publish.figures.anchors import heading_id
    ledger = _csv(root / DATA / "figures.csv")
    by_page: dict[str, set[str]] = {}
    for page in {r["page"] for r in ledger if r["table"] != "meta_campaign_status"}:
        used: set[str] = set()
        ids = set()
        for line in (root / "docs" / f"{page}.md").read_text().splitlines():
            if line.startswith("#"):
                ids.add(heading_id(line.lstrip("#").strip(), used))
        by_page[page] = ids
    for r in ledger:
        if r["table"] != "meta_campaign_status":
            assert r["anchor"] in by_page[r["page"]] | {""}, r
    halved = next(r for r in ledger if r["figure_id"] == f"p2p/{CAMPAIGN}#{FIGURE}")
    assert halved["anchor"] == "region-pairs"  # the one table of every measured pair


def test_building_again_gives_byte_identical_docs(history):
    assert history["after_again"] == history["after_halving"]
    # and says so: nothing changed since the build it is compared with
    assert "what changed: 0 measured figure(s) changed" in history["again"].stderr


def test_adding_a_campaign_lists_it_as_added(history, tmp_path):
    root = tmp_path / "tree"         # the built tree, warehouse included: the build adds one
    shutil.copytree(history["root"], root, symlinks=True)
    src = root / "raw_data" / "p2p" / CAMPAIGN
    shutil.copytree(src, root / "raw_data" / "p2p" / "swan-copy")
    manifest = root / "raw_data" / "p2p" / "swan-copy" / "manifest.yaml"
    manifest.write_text(manifest.read_text().replace(f"campaign: {CAMPAIGN}", "campaign: swan-copy"))
    _build(root)
    changes = _csv(root / DATA / "figure_changes.csv")
    kinds = {(c["kind"], c["figure_id"]) for c in changes}
    assert ("campaign_added", "campaign:swan-copy") in kinds
    assert ("page_added", "p2p/swan-copy#") in kinds
    # the new campaign's rows are one page entry, not one entry per figure
    assert not any(c["page"] == "p2p/swan-copy" and c["kind"] != "page_added" for c in changes)
    page = (root / "docs" / "what-changed.md").read_text()
    assert "| swan-copy | added |" in page
