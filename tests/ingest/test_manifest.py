"""Manifests give files their context; anything without context is recorded, not dropped; a
manifest with problems names each of them and withholds only its own campaign."""
import duckdb
import pytest

from pipeline.ingest.campaign_tables import campaign_frame, files_frame
from pipeline.ingest.scan import campaign_folders, scan_campaign

MANIFEST = """campaign: c1
kind: deployment
date: 2026-08-17
provenance: captured
hosts: {a: {role: head}}
files:
  - path: one.txt
    format: ping
    context: {link: l1}
  - path: gone.txt
    format: ping
"""


def _campaign(tmp_path, manifest=MANIFEST, files=("one.txt", "stray.txt"), name="c1"):
    folder = tmp_path / "deployments" / name
    folder.mkdir(parents=True)
    for f in files:
        (folder / f).write_text("x")
    if manifest is not None:
        (folder / "manifest.yaml").write_text(manifest)
    return tmp_path


def _scan(root, name="c1"):
    return scan_campaign(root, "deployments", name, {"ping", "iperf3"})


def test_statuses(tmp_path):
    result = _scan(_campaign(tmp_path))
    by = {f.source_file: f for f in result.files}
    assert result.campaign.campaign == "c1" and result.problem is None
    assert by["deployments/c1/one.txt"].status == "listed"
    assert by["deployments/c1/one.txt"].context == {"link": "l1"}
    assert by["deployments/c1/one.txt"].sha256 is not None
    assert by["deployments/c1/gone.txt"].status == "missing"
    assert by["deployments/c1/stray.txt"].status == "unlisted"
    assert "not listed in deployments/c1/manifest.yaml" in by["deployments/c1/stray.txt"].reason


def test_no_manifest(tmp_path):
    result = _scan(_campaign(tmp_path, manifest=None))
    assert result.campaign is None
    assert {f.status for f in result.files} == {"no_manifest"}


def test_bad_yaml_names_line(tmp_path):
    result = _scan(_campaign(tmp_path, manifest="campaign: c1\nfiles: [\n  - x: [\n"))
    assert {f.status for f in result.files} == {"bad_manifest"}
    assert "deployments/c1/manifest.yaml:" in result.problem


@pytest.mark.parametrize("edit, expected", [
    ("campaign: c1", "campaign: expected the folder's name 'c1'"),          # replaced below
    ("kind: deployment", "kind: expected 'deployment'"),
    ("date: 2026-08-17", "date: expected an ISO date such as 2026-08-17, found 'not-a-date'"),
    ("provenance: captured", "provenance: expected one of reconstructed, captured"),
    ("  - path: one.txt", "files[0].path: expected a path relative to the campaign folder, found the absolute path '/etc/shadow'"),
    ("  - path: gone.txt", "files[1].path: expected a path inside the campaign folder, found '../x/y'"),
])
def test_each_field_checked_with_a_specific_reason(tmp_path, edit, expected):
    replacement = {"campaign: c1": "campaign: other", "kind: deployment": "kind: p2p",
                   "date: 2026-08-17": "date: not-a-date",
                   "provenance: captured": "provenance: guessed",
                   "  - path: one.txt": "  - path: /etc/shadow",
                   "  - path: gone.txt": "  - path: ../x/y"}[edit]
    result = _scan(_campaign(tmp_path, manifest=MANIFEST.replace(edit, replacement)))
    assert result.campaign is None
    assert expected in result.problem
    assert {f.status for f in result.files} == {"bad_manifest"}


@pytest.mark.parametrize("path_value, found", [("123", "int"), ("null", "nothing"), ("[a, b]", "list")])
def test_non_string_paths(tmp_path, path_value, found):
    result = _scan(_campaign(tmp_path, manifest=MANIFEST.replace("path: one.txt", f"path: {path_value}")))
    assert f"files[0].path: expected a path relative to the campaign folder, found {found}" in result.problem


def test_every_problem_reported_at_once(tmp_path):
    bad = MANIFEST.replace("kind: deployment", "kind: nope").replace("date: 2026-08-17", "date: 12x")
    problem = _scan(_campaign(tmp_path, manifest=bad)).problem
    assert "kind:" in problem and "date:" in problem


def test_alias_bomb_refused_before_expansion(tmp_path):
    bomb = MANIFEST + "params:\n  a: &a [x, x, x, x, x, x, x, x, x]\n  b: &b [*a, *a, *a, *a, *a, *a]\n"
    problem = _scan(_campaign(tmp_path, manifest=bomb)).problem
    assert "found the alias *a" in problem and "manifest.yaml:" in problem


def test_oversized_value_refused(tmp_path):
    huge = MANIFEST + "title: " + "x" * 5000 + "\n"
    assert "at most 4096 characters, found 5000" in _scan(_campaign(tmp_path, manifest=huge)).problem


def test_tables(tmp_path):
    result = _scan(_campaign(tmp_path))
    con = duckdb.connect()
    frame = campaign_frame(result)
    con.register("c", frame)
    assert con.execute("select hosts::json->'a'->>'role' from c").fetchall() == [("head",)]
    files = files_frame(result)
    con.register("f", files)
    assert con.execute("select context::json->>'link' from f where manifest_status = 'listed'"
                       ).fetchall() == [("l1",)]


def test_campaign_folder_names(tmp_path):
    for name in ("good-1", "bad name", "_hidden"):
        (tmp_path / "p2p" / name).mkdir(parents=True)
    assert [n for _, n, _ in campaign_folders(tmp_path)] == ["good-1"]
