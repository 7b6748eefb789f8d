"""The join (pipeline/warehouse/unions.py): each campaign's rows copied from its own file into
the warehouse's unions, only when the digest of the table they come from changed.

Hand-made campaign files (two campaigns, tables ``t`` and ``u``, a template) and summaries:
every expected row below is what the files hold, worked out by hand."""
from __future__ import annotations

from types import SimpleNamespace

import duckdb
import pytest

from pipeline.ingest.store import RawStore
from pipeline.warehouse import campaign_files, unions

CHECK = ("create table meta_check_results (campaign varchar, check_name varchar, statement varchar, "
         "blocking boolean, passed boolean, failing_rows bigint, first_rows varchar, sql_file varchar)")
REGISTRY = ("create table ingest_registry (source_file varchar, campaign varchar, format varchar, "
            "sha256 varchar, parser_version integer, status varchar, reason varchar, "
            "rows_ingested bigint)")
STATUS = "create table meta_campaign_status (campaign varchar, area varchar, status varchar, reasons json)"


def _file(path, *statements):
    path.parent.mkdir(parents=True, exist_ok=True)
    con = duckdb.connect(str(path))
    for sql in (CHECK, REGISTRY, STATUS, *statements):
        con.execute(sql)
    con.close()


def _campaign(db, name, tables: dict[str, str], digests: dict[str, str | None], status="published"):
    """A campaign file whose table ``t`` is ``select …`` and its summary (None: no summary)."""
    path = campaign_files.path_of(db, name)
    path.unlink(missing_ok=True)
    _file(path, *(f"create table {t} as {sql}" for t, sql in tables.items()),
          f"insert into meta_campaign_status values ('{name}', 'deployments', '{status}', '[]')")
    if digests is not None:
        campaign_files.write_summary(db, name, {"status": status, "reasons": [], "tables": {
            **digests, "ingest_registry": "r", "meta_check_results": "c"}})
    else:
        campaign_files.summary_of(db, name).unlink(missing_ok=True)


@pytest.fixture
def tree(tmp_path):
    db = tmp_path / "w.duckdb"
    _file(campaign_files.path_of(db, None), "create table t (campaign varchar, v int)",
          "create table u (campaign varchar)")
    layout = SimpleNamespace(project=SimpleNamespace(warehouse=db), formats={},
                             plan=SimpleNamespace(campaign_tables=["t", "u"]),
                             store=RawStore(tmp_path / "w.raw"))
    con = duckdb.connect(str(db))
    yield db, layout, con
    con.close()


def _rows(con, sql):
    return sorted(con.execute(sql).fetchall())


def _spy(monkeypatch) -> list:
    attached = []
    real = campaign_files.attach

    def spy(con, warehouse, campaign):
        attached.append(campaign)
        return real(con, warehouse, campaign)
    monkeypatch.setattr(campaign_files, "attach", spy)
    return attached


def test_a_campaign_without_a_table_adds_no_rows_and_main_shows_the_published(tree):
    db, layout, con = tree
    _campaign(db, "a", {"t": "select 'a' as campaign, 1 as v", "u": "select 'a' as campaign"},
              {"t": "ta1", "u": "ua1"})
    _campaign(db, "b", {"u": "select 'b' as campaign"}, {"u": "ub1"}, status="withheld")
    found = unions.join(con, layout, ["a", "b"])
    assert {c: s["status"] for c, s in found.items()} == {"a": "published", "b": "withheld"}
    assert _rows(con, 'select * from "every campaign".t') == [("a", 1)]
    assert _rows(con, 'select * from "every campaign".u') == [("a",), ("b",)]
    assert _rows(con, "select * from main.u") == [("a",)]          # b is withheld
    assert unions.statuses(con)["b"]["status"] == "withheld"
    # nothing stays attached after the join
    assert not [n for n in campaign_files.attached_names(con) if n.startswith("campaign")]


def test_only_a_changed_campaign_is_read_again(tree, monkeypatch):
    db, layout, con = tree
    _campaign(db, "a", {"t": "select 'a' as campaign, 1 as v", "u": "select 'a' as campaign"},
              {"t": "ta1", "u": "ua1"})
    _campaign(db, "b", {"t": "select 'b' as campaign, 2 as v", "u": "select 'b' as campaign"},
              {"t": "tb1", "u": "ub1"})
    unions.join(con, layout, ["a", "b"])
    _campaign(db, "a", {"t": "select 'a' as campaign, 10 as v", "u": "select 'a' as campaign"},
              {"t": "ta2", "u": "ua1"})           # only a's t changed
    attached = _spy(monkeypatch)
    unions.join(con, layout, ["a", "b"])
    assert [c for c in attached if c is not None] == ["a"]    # b's file is not opened (None: the template)
    assert _rows(con, 'select * from "every campaign".t') == [("a", 10), ("b", 2)]
    assert _rows(con, 'select * from "every campaign".u') == [("a",), ("b",)]
    # a's rows were copied after b's, yet they are read first, as a build from nothing reads
    # them (the tables that compare campaigns, and their CSVs, come out in the same order)
    assert con.execute('select campaign from "campaign rows".t').fetchall() == [("b",), ("a",)]
    assert con.execute('select campaign from "every campaign".t').fetchall() == [("a",), ("b",)]
    assert con.execute("select campaign from main.t").fetchall() == [("a",), ("b",)]


def test_a_gone_campaign_leaves_and_a_column_change_remakes_the_table(tree):
    db, layout, con = tree
    _campaign(db, "a", {"t": "select 'a' as campaign, 1 as v", "u": "select 'a' as campaign"},
              {"t": "ta1", "u": "ua1"})
    _campaign(db, "b", {"t": "select 'b' as campaign, 2 as v", "u": "select 'b' as campaign"},
              {"t": "tb1", "u": "ub1"})
    unions.join(con, layout, ["a", "b"])
    campaign_files.remove(db, "b")
    unions.join(con, layout, ["a"])
    assert _rows(con, 'select * from "every campaign".t') == [("a", 1)]
    # the template's t gains a column (an edited model): the union is made again with it, and
    # a's t, rebuilt with it, is copied although the join had its rows
    template = campaign_files.path_of(db, None)
    template.unlink()
    _file(template, "create table t (campaign varchar, v int, w int)", "create table u (campaign varchar)")
    _campaign(db, "a", {"t": "select 'a' as campaign, 1 as v, 7 as w", "u": "select 'a' as campaign"},
              {"t": "ta1", "u": "ua1"})
    unions.join(con, layout, ["a"])
    assert _rows(con, 'select * from "every campaign".t') == [("a", 1, 7)]


def test_a_campaign_without_a_summary_is_copied_every_time_and_rows_carry_it(tree, monkeypatch):
    db, layout, con = tree
    # a model that leaves the campaign column empty: the union says whose rows they are
    _campaign(db, "a", {"t": "select null::varchar as campaign, 1 as v", "u": "select 'a' as campaign"},
              None)
    unions.join(con, layout, ["a"])
    attached = _spy(monkeypatch)
    unions.join(con, layout, ["a"])
    assert "a" in attached                        # no summary: read again
    assert _rows(con, 'select * from "every campaign".t') == [("a", 1)]   # once, not twice
