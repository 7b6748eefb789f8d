"""Incremental ingest into the raw store: unchanged files are not parsed again, bad ones are
quarantined with their reason, rows and registry entry are one file."""
import duckdb
import pytest

from pipeline.ingest.base import Format, ParseError
from pipeline.ingest.runner import columns_of, ingest_files
from pipeline.ingest.scan import scan_campaign
from pipeline.ingest.store import RawStore

calls = []


def _parse(path):
    calls.append(path.name)
    text = path.read_text()
    if text.startswith("boom"):
        raise ZeroDivisionError("a parser bug")
    if not text.startswith("v="):
        raise ParseError(path, 1, "a line 'v=<number>'", repr(text[:10]))
    return [{"source_line": 1, "v": int(text[2:])}]


FMT = Format(name="toy", table="raw_toy", version=1, columns={"v": "bigint"}, parse=_parse)

MANIFEST = "campaign: c\nkind: deployment\nprovenance: captured\nfiles:\n" + "".join(
    f"  - {{path: {n}, format: toy}}\n" for n in "abcd")


@pytest.fixture
def tree(tmp_path):
    folder = tmp_path / "raw" / "deployments" / "c"
    folder.mkdir(parents=True)
    (folder / "manifest.yaml").write_text(MANIFEST)
    (folder / "a").write_text("v=1")
    (folder / "b").write_text("v=2")
    (folder / "c").write_text("garbage")
    (folder / "d").write_text("v=1")          # same bytes as a, other name
    return tmp_path


def _run(root, fmt=FMT):
    store = RawStore(root / "store")
    files = scan_campaign(root / "raw", "deployments", "c", {"toy"}).files
    return store, ingest_files(store, fmt, root / "raw", "c", files), files


def _rows(store, fmt=FMT):
    con = duckdb.connect()
    return con.execute(store.relation("c", fmt.table, columns_of(fmt)) + " order by 1").fetchall()


def _registry(store):
    return {e["source_file"]: e for e in store.registry("c", ["raw_toy"])}


def test_quarantine_and_duplicates(tree):
    calls.clear()
    store, s, files = _run(tree)
    assert (s.parsed, s.quarantined) == (2, 1)
    assert [(r[0], r[3]) for r in _rows(store)] == [("deployments/c/a", 1), ("deployments/c/b", 2)]
    reg = _registry(store)
    assert reg["deployments/c/c"]["reason"] == \
        "deployments/c/c:1: expected a line 'v=<number>', found 'garbage'"
    assert reg["deployments/c/a"]["rows_ingested"] == 1 and reg["deployments/c/a"]["status"] == "ok"
    dupe = next(f for f in files if f.source_file == "deployments/c/d")
    assert dupe.status == "duplicate" and "deployments/c/a" in dupe.reason


def test_unchanged_files_not_reparsed(tree):
    _run(tree)
    calls.clear()
    _, s, _ = _run(tree)
    assert calls == []  # a quarantined file with unchanged bytes would fail the same way
    assert s.skipped == 3
    (tree / "raw/deployments/c/b").write_text("v=5")
    calls.clear()
    store, _, _ = _run(tree)
    assert calls == ["b"]
    assert [r[3] for r in _rows(store) if r[0].endswith("/b")] == [5]


def test_parser_version_bump_reparses_everything(tree):
    _run(tree)
    calls.clear()
    bumped = Format(name="toy", table="raw_toy", version=2, columns={"v": "bigint"}, parse=_parse)
    store, s, _ = _run(tree, bumped)
    assert sorted(calls) == ["a", "b", "c"] and s.parsed == 2
    assert {e["parser_version"] for e in store.registry("c", ["raw_toy"])} == {2}
    assert len(store.files("c", "raw_toy")) == 3   # the version-1 files are gone


def test_removed_file_takes_rows(tree):
    _run(tree)
    (tree / "raw/deployments/c/b").unlink()
    store, s, _ = _run(tree)
    assert not [r for r in _rows(store) if r[0].endswith("/b")]
    assert "deployments/c/b" not in _registry(store)


def test_a_parser_crash_is_a_quarantine_not_a_failed_build(tree):
    (tree / "raw/deployments/c/c").write_text("boom")
    store, s, _ = _run(tree)
    assert s.parsed == 2 and s.quarantined == 1
    reason = _registry(store)["deployments/c/c"]["reason"]
    assert "the toy parser failed on this file (ZeroDivisionError: a parser bug)" in reason


def test_same_bytes_other_context_both_ingested(tmp_path):
    # ethtool output carries no host name: two hosts with the same NIC give identical files
    folder = tmp_path / "raw" / "deployments" / "c"
    folder.mkdir(parents=True)
    (folder / "manifest.yaml").write_text(
        "campaign: c\nkind: deployment\nprovenance: captured\nfiles:\n"
        "  - {path: x, format: toy, context: {host: h1}}\n"
        "  - {path: y, format: toy, context: {host: h2}}\n")
    (folder / "x").write_text("v=7")
    (folder / "y").write_text("v=7")
    _, s, _ = _run(tmp_path)
    assert (s.parsed, s.quarantined) == (2, 0)


def test_duplicate_ingested_once_its_twin_is_gone(tree):
    _run(tree)
    (tree / "raw/deployments/c/a").unlink()
    store, _, _ = _run(tree)
    # d has a's bytes; with a removed it is no longer a duplicate and its row appears
    assert [r[3] for r in _rows(store) if r[0].endswith("/d")] == [1]
