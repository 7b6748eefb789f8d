"""Incremental ingest: unchanged files are not parsed again, bad ones are quarantined."""
import duckdb
import pytest

from pipeline.ingest.base import Format, ParseError
from pipeline.ingest.manifest import scan, write_tables
from pipeline.ingest.runner import ingest_format

calls = []


def _parse(path):
    calls.append(path.name)
    text = path.read_text()
    if not text.startswith("v="):
        raise ParseError(path, 1, "a line 'v=<number>'", repr(text[:10]))
    return [{"source_line": 1, "v": int(text[2:])}]


FMT = Format(name="toy", table="raw_toy", version=1, columns={"v": "bigint"}, parse=_parse)


@pytest.fixture
def tree(tmp_path):
    folder = tmp_path / "deployments" / "c"
    folder.mkdir(parents=True)
    (folder / "manifest.yaml").write_text(
        "campaign: c\nfiles:\n" + "".join(f"  - {{path: {n}, format: toy}}\n" for n in "abcd"))
    (folder / "a").write_text("v=1")
    (folder / "b").write_text("v=2")
    (folder / "c").write_text("garbage")
    (folder / "d").write_text("v=1")          # same bytes as a, other name
    return tmp_path


def _run(con, root):
    write_tables(con, *scan(root))
    return ingest_format(con, FMT, root)


def test_quarantine_and_duplicates(tree):
    con = duckdb.connect()
    calls.clear()
    s = _run(con, tree)
    assert (s.parsed, s.quarantined) == (2, 2)
    assert con.execute("select source_file, v from raw_toy order by 1").fetchall() == [
        ("deployments/c/a", 1), ("deployments/c/b", 2)]
    reasons = dict(con.execute("select source_file, reason from ingest_registry "
                               "where status in ('quarantined', 'duplicate')").fetchall())
    assert reasons["deployments/c/c"] == "deployments/c/c:1: expected a line 'v=<number>', found 'garbage'"
    assert "same content" in reasons["deployments/c/d"] and "deployments/c/a" in reasons["deployments/c/d"]


def test_unchanged_files_not_reparsed(tree):
    con = duckdb.connect()
    _run(con, tree)
    calls.clear()
    s = _run(con, tree)
    assert calls == []  # a quarantined file with unchanged bytes would fail the same way
    assert s.skipped >= 2
    (tree / "deployments/c/b").write_text("v=5")
    calls.clear()
    _run(con, tree)
    assert "b" in calls and "a" not in calls
    assert con.execute("select v from raw_toy where source_file like '%/b'").fetchall() == [(5,)]


def test_removed_file_takes_rows(tree):
    con = duckdb.connect()
    _run(con, tree)
    (tree / "deployments/c/b").unlink()
    s = _run(con, tree)
    assert s.removed == 1
    assert con.execute("select count(*) from raw_toy where source_file like '%/b'").fetchall() == [(0,)]


def test_same_bytes_other_context_both_ingested(tmp_path):
    # ethtool output carries no host name: two hosts with the same NIC give identical files
    folder = tmp_path / "deployments" / "c"
    folder.mkdir(parents=True)
    (folder / "manifest.yaml").write_text(
        "campaign: c\nfiles:\n  - {path: x, format: toy, context: {host: h1}}\n"
        "  - {path: y, format: toy, context: {host: h2}}\n")
    (folder / "x").write_text("v=7")
    (folder / "y").write_text("v=7")
    con = duckdb.connect()
    s = _run(con, tmp_path)
    assert (s.parsed, s.quarantined) == (2, 0)


def test_duplicate_ingested_once_its_twin_is_gone(tree):
    con = duckdb.connect()
    _run(con, tree)
    (tree / "deployments/c/a").unlink()
    _run(con, tree)
    # d has a's bytes; with a removed it is no longer a duplicate and its row appears
    assert con.execute("select v from raw_toy where source_file like '%/d'").fetchall() == [(1,)]
