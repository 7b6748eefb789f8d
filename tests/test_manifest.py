"""Manifests give files their context; anything without context is recorded, not dropped."""
import duckdb

from pipeline.ingest.manifest import scan, write_tables

MANIFEST = """campaign: c1
kind: deployment
date: 2026-08-17
hosts: {a: {role: head}}
files:
  - path: one.txt
    format: ping
    context: {link: l1}
  - path: gone.txt
    format: ping
"""


def _campaign(tmp_path, manifest=MANIFEST, files=("one.txt", "stray.txt")):
    folder = tmp_path / "deployments" / "c1"
    folder.mkdir(parents=True)
    for name in files:
        (folder / name).write_text("x")
    if manifest is not None:
        (folder / "manifest.yaml").write_text(manifest)
    return tmp_path


def test_statuses(tmp_path):
    campaigns, files = scan(_campaign(tmp_path))
    by = {f.source_file: f for f in files}
    assert [c.campaign for c in campaigns] == ["c1"]
    assert by["deployments/c1/one.txt"].status == "listed"
    assert by["deployments/c1/one.txt"].context == {"link": "l1"}
    assert by["deployments/c1/one.txt"].sha256 is not None
    assert by["deployments/c1/gone.txt"].status == "missing"
    assert by["deployments/c1/stray.txt"].status == "unlisted"
    assert "not listed in deployments/c1/manifest.yaml" in by["deployments/c1/stray.txt"].reason


def test_no_manifest(tmp_path):
    _, files = scan(_campaign(tmp_path, manifest=None))
    assert {f.status for f in files} == {"no_manifest"}


def test_bad_yaml_names_line(tmp_path):
    _, files = scan(_campaign(tmp_path, manifest="campaign: c1\nfiles: [\n  - x: [\n"))
    assert {f.status for f in files} == {"bad_manifest"}
    assert "manifest.yaml:" in files[0].reason


def test_tables(tmp_path):
    campaigns, files = scan(_campaign(tmp_path))
    con = duckdb.connect()
    write_tables(con, campaigns, files)
    assert con.execute("select hosts->'a'->>'role' from raw_campaigns").fetchall() == [("head",)]
    assert con.execute("select context->>'link' from raw_files where manifest_status = 'listed'"
                       ).fetchall() == [("l1",)]
