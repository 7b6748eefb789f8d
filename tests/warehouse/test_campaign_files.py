"""Each campaign's own DuckDB file (pipeline/warehouse/campaign_files.py): written by one
connection at a time, its summary removed while it is written, read by attaching it under the
name its schema had; a file DuckDB cannot open is moved aside; a warehouse left by a build
before campaign files had its campaign schemas dropped, so the names are not ambiguous."""
from __future__ import annotations

import duckdb

from pipeline.warehouse import campaign_files


def test_a_file_is_written_then_summarised_and_a_fresh_one_starts_empty(tmp_path):
    db = tmp_path / "w.duckdb"
    with campaign_files.writing(db, "a", fresh=True) as con:
        con.execute("create table t as select 'a' as campaign, 1 as v")
    campaign_files.write_summary(db, "a", {"status": "published", "reasons": [], "tables": {"t": "d1"}})
    assert campaign_files.on_disk(db) == ["a"]
    assert campaign_files.read_summary(db, "a")["tables"] == {"t": "d1"}
    with campaign_files.writing(db, "a", fresh=False) as con:
        # being written: no summary says what the file holds
        assert campaign_files.read_summary(db, "a") is None
        assert con.execute("select v from t").fetchall() == [(1,)]      # kept, not fresh
    with campaign_files.writing(db, "a", fresh=True) as con:
        assert con.execute("select count(*) from duckdb_tables()").fetchone() == (0,)
    campaign_files.remove(db, "a")
    assert campaign_files.on_disk(db) == [] and not campaign_files.lock_of(db, "a").exists()


def test_attached_detaches_only_what_it_attached(tmp_path):
    db = tmp_path / "w.duckdb"
    for name in ("a", "b"):
        with campaign_files.writing(db, name, fresh=True) as con:
            con.execute(f"create table t as select '{name}' as campaign")
    con = duckdb.connect()
    assert campaign_files.attach(con, db, "a")
    with campaign_files.attached(con, db, ["a", "b", "gone"]) as found:
        assert found == ["a", "b"]          # 'gone' has no file
        rows = con.execute('select campaign from "campaign:a".t union all '
                           'select campaign from "campaign:b".t order by 1').fetchall()
        assert rows == [("a",), ("b",)]
    names = campaign_files.attached_names(con)
    assert "campaign:a" in names and "campaign:b" not in names
    campaign_files.detach(con, "a")
    # detached: the file can be opened for writing in this process again
    with campaign_files.writing(db, "a", fresh=False) as w:
        assert w.execute("select campaign from t").fetchall() == [("a",)]


def test_a_file_duckdb_cannot_open_is_moved_aside_and_started_again(tmp_path):
    db = tmp_path / "w.duckdb"
    path = campaign_files.path_of(db, "a")
    path.parent.mkdir(parents=True)
    path.write_bytes(b"not a database at all" * 100)
    said = []
    with campaign_files.writing(db, "a", fresh=False, log=said.append) as con:
        con.execute("create table t as select 1 as v")
    assert said and "moved aside" in said[0] and str(path) in said[0]
    assert [p.name for p in path.parent.iterdir() if ".unreadable-" in p.name]


def test_connecting_drops_the_campaign_schemas_of_an_earlier_layout(tmp_path, monkeypatch):
    from pipeline.orchestration.resources import Warehouse
    root = tmp_path / "t"
    root.mkdir()
    db = tmp_path / "w.duckdb"
    con = duckdb.connect(str(db))
    con.execute('create schema "campaign:a"; create table "campaign:a".t as select 1 as v')
    con.execute('create schema "campaign template"; create schema keep_me')
    con.close()
    monkeypatch.delenv("INTERCONNECT_LOCK_OWNER", raising=False)
    with Warehouse(root=str(root), db_path=str(db)).connect() as con:
        schemas = {r[0] for r in con.execute("select schema_name from duckdb_schemas() "
                                             "where database_name = 'w'").fetchall()}
    assert "campaign:a" not in schemas and "campaign template" not in schemas
    assert "keep_me" in schemas
