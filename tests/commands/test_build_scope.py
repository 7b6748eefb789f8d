"""Which campaigns a build runs (pipeline/commands/build_key.py, campaigns_to_build, and
pipeline/commands/in_process.py, run_range): after a change to campaign folders alone, only
those campaigns' partitions; after any other change, or with no build on record, every one;
after a move of the tree with its warehouse, or an edit of a template no campaign page
reads, none. Records are written by hand; each expected list is read off the change made to the tree."""
from __future__ import annotations

import json
import shutil

import pytest

from pipeline.commands import build_key
from pipeline.commands.in_process import run_range
from pipeline.project import Project


@pytest.fixture
def tree(tmp_path, monkeypatch):
    monkeypatch.delenv("INTERCONNECT_DB", raising=False)
    root = tmp_path / "t"
    for area, name in (("deployments", "a"), ("p2p", "b"), ("labs", "c")):
        folder = root / "raw_data" / area / name
        folder.mkdir(parents=True)
        (folder / "manifest.yaml").write_text(f"campaign: {name}\n")
    (root / "raw_data" / "reference").mkdir()
    (root / "raw_data" / "reference" / "x.csv").write_text("a,source\n1,s\n")
    (root / "sql").mkdir()
    (root / "templates").mkdir()
    (root / "docs").mkdir()
    project = Project(root)
    project.warehouse.parent.mkdir(parents=True)
    return project


def _remember(project: Project) -> dict:
    inputs = build_key.inputs_key(project, [])
    build_key.remember(project, inputs, 0, "done")
    return inputs


def test_no_record_or_another_change_means_every_campaign(tree):
    assert build_key.campaigns_to_build(tree, build_key.inputs_key(tree, [])) is None
    _remember(tree)
    (tree.root / "raw_data" / "reference" / "x.csv").write_text("a,source\n2,s\n")
    assert build_key.campaigns_to_build(tree, build_key.inputs_key(tree, [])) is None
    _remember(tree)
    (tree.root / "sql" / "m.sql").write_text("select 1")
    assert build_key.campaigns_to_build(tree, build_key.inputs_key(tree, [])) is None
    _remember(tree)
    (tree.root / "docs" / "index.md").write_text("edited by hand")     # what the build left
    assert build_key.campaigns_to_build(tree, build_key.inputs_key(tree, [])) is None


def test_campaign_folders_alone_name_the_campaigns(tree):
    _remember(tree)
    assert build_key.campaigns_to_build(tree, build_key.inputs_key(tree, [])) == []
    (tree.root / "raw_data" / "p2p" / "b" / "ping.txt").write_text("a new file")
    shutil.copytree(tree.root / "raw_data" / "labs" / "c", tree.root / "raw_data" / "labs" / "d")
    assert build_key.campaigns_to_build(tree, build_key.inputs_key(tree, [])) == ["b", "d"]
    _remember(tree)
    shutil.rmtree(tree.root / "raw_data" / "deployments" / "a")      # removed only: none
    assert build_key.campaigns_to_build(tree, build_key.inputs_key(tree, [])) == []


def test_a_tree_moved_with_its_warehouse_changes_none_of_its_campaigns(tree, tmp_path):
    _remember(tree)
    moved = Project(tmp_path / "moved")
    shutil.move(tree.root, moved.root)                  # the warehouse and its record go along
    inputs = build_key.inputs_key(moved, [])
    recorded = json.loads(build_key.record_path(moved).read_text())["inputs"]
    assert recorded["root"] == str(tree.root) != inputs["root"]
    assert build_key.campaigns_to_build(moved, inputs) == []
    assert build_key.unchanged(moved, inputs) is None   # but it is built: not a no-op


def _templates(root):
    """A per-campaign page that includes a partial, a shared page, and the withheld notice."""
    t = root / "templates"
    (t / "partials").mkdir(exist_ok=True)
    (t / "p2p.md.j2").write_text("{#---\nper_campaign: p2p\nmarts: []\n---#}\n"
                                 "{% include 'partials/row.md.j2' %}\n")
    (t / "home.md.j2").write_text("{#---\nmarts: []\n---#}\nHome\n")
    (t / "partials" / "row.md.j2").write_text("a row\n")
    (t / "partials" / "withheld.md.j2").write_text("withheld\n")


@pytest.mark.parametrize("edited, every", [
    ("home.md.j2", False),                   # a shared page: no campaign page reads it
    ("p2p.md.j2", True),                     # a per-campaign page
    ("partials/row.md.j2", True),            # included by a per-campaign page
    ("partials/withheld.md.j2", True),       # a withheld campaign's notice
])
def test_a_template_edit_changes_the_campaigns_whose_pages_read_it(tree, edited, every):
    _templates(tree.root)
    _remember(tree)
    path = tree.root / "templates" / edited
    path.write_text(path.read_text() + "edited\n")
    expected = None if every else []
    assert build_key.campaigns_to_build(tree, build_key.inputs_key(tree, [])) == expected


def test_a_template_that_cannot_be_read_means_every_campaign(tree):
    _templates(tree.root)
    _remember(tree)
    (tree.root / "templates" / "home.md.j2").write_text("no front matter\n")   # a PageError
    assert build_key.inputs_key(tree, [])["campaign_templates"] is None
    assert build_key.campaigns_to_build(tree, build_key.inputs_key(tree, [])) is None


def test_a_record_that_is_not_one_means_every_campaign(tree):
    _remember(tree)
    record = build_key.record_path(tree)
    data = json.loads(record.read_text())
    data["inputs"]["campaigns"] = "not a mapping"
    record.write_text(json.dumps(data))
    # the other inputs are equal, and every campaign counts as changed
    assert build_key.campaigns_to_build(tree, build_key.inputs_key(tree, [])) == ["a", "b", "c"]
    record.write_text("[1, 2]")
    assert build_key.campaigns_to_build(tree, build_key.inputs_key(tree, [])) is None


def test_the_run_spans_the_changed_campaigns_in_partition_order():
    ordered = ["p", "q", "r", "s", "t"]
    assert run_range(ordered, None) == ordered
    assert run_range(ordered, ["t"]) == ["t"]                 # one added: it alone
    assert run_range(ordered, ["s", "q"]) == ["q", "r", "s"]  # consecutive partitions only
    assert run_range(ordered, []) == ["t"]          # a removal: one campaign, its pages checked
    assert run_range(ordered, ["gone"]) == ["t"]
    assert run_range([], ["t"]) == []
