"""The bench's generated campaigns are ingested, and a bench whose campaigns were not refuses
to time them (bench/targets.py). The scale-out targets once timed 8 campaigns whose one capture
was refused (a hard link, refused since the manifest learned `hard_links`), so "identical"
compared two empty raw layers and the models target timed 77 models on no rows."""
from __future__ import annotations

import pytest

from bench.targets import not_ingested, require_ingested, scale_tree
from pipeline.orchestration.raw_digest import raw_digest
from pipeline.project import Project
from pipeline.warehouse.steps import Layout, ingest, scan


def _ingest_all(tree) -> Project:
    layout = Layout(Project(tree))
    for _, campaign in layout.campaigns():
        scan(layout, campaign)
        for fmt in layout.formats.values():
            ingest(layout, campaign, fmt)
    return Project(tree)


def test_scale_tree_campaigns_are_ingested(tmp_path):
    tree = scale_tree(tmp_path, 2, 1)            # two campaigns, one 1 MB capture hard-linked
    project = _ingest_all(tree)
    assert not_ingested(project) == []
    require_ingested(project)                     # does not raise
    digest = raw_digest(project)
    for k in range(2):
        rows, _ = digest[f"scale-{k}/raw_netdev"]
        assert rows > 0
    # the same bytes under two names: the same rows, apart from the campaign column
    assert digest["scale-0/raw_netdev"][0] == digest["scale-1/raw_netdev"][0]


def test_a_refused_capture_fails_the_bench(tmp_path):
    tree = scale_tree(tmp_path, 2, 1)
    manifest = tree / "raw_data" / "deployments" / "scale-1" / "manifest.yaml"
    manifest.write_text(manifest.read_text().replace("hard_links: allowed\n", ""))
    project = _ingest_all(tree)
    bad = not_ingested(project)
    assert len(bad) == 1 and bad[0].startswith("deployments/scale-1/netdev/head.netdev: refused")
    with pytest.raises(SystemExit, match="scale-1/netdev/head.netdev: refused"):
        require_ingested(project)


def test_no_campaign_fails_the_bench(tmp_path):
    tree = scale_tree(tmp_path, 1, 1)
    with pytest.raises(SystemExit, match="no campaign"):
        require_ingested(Project(tree))                  # nothing scanned yet
