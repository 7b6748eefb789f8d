"""The template (every campaign model on no data, the unions' columns) is kept as a campaign is
(pipeline/warehouse/keep.py): built again only where a model's digest changed, on a copy of the
session's built tree. Its raw input is its raw tables' columns, not rows."""
from __future__ import annotations

import duckdb

from pipeline.project import Project
from pipeline.warehouse import campaign as campaign_mod
from pipeline.warehouse import campaign_files
from pipeline.warehouse.steps import Layout, build_one

from built_tree import copy_built
from model_readers import closure as model_closure
from model_readers import readers_of


def _template(layout: Layout):
    return build_one(layout, None, layout.reference_digest, lambda line: None)


def _columns(layout: Layout) -> list[tuple]:
    path = campaign_files.path_of(layout.project.warehouse, None)
    with duckdb.connect(str(path), read_only=True) as con:
        return con.execute("select table_name, column_name, data_type from duckdb_columns() "
                           "where schema_name = 'main' order by all").fetchall()


def test_an_unchanged_template_is_kept_and_an_edit_rebuilds_its_closure(tmp_path, monkeypatch):
    monkeypatch.delenv("INTERCONNECT_DB", raising=False)
    root = copy_built(tmp_path / "tree")
    layout = Layout(Project(root))
    names = {m.name for m in layout.plan.campaign}
    before = _columns(layout)
    # the session's build made the template with these inputs: every model kept, none run
    out = _template(layout)
    assert set(out.kept) == names and set(out.rows) == names
    assert _columns(layout) == before
    # one model's SQL edited: it and what reads it run again, on no data; the rest kept
    edited = root / "sql" / "intermediate" / "int_lab__series_links.sql"
    edited.write_text(edited.read_text() + "\n-- an edit that changes nothing but the text\n")
    layout = Layout(Project(root))
    closure = model_closure(layout, "int_lab__series_links")
    out = _template(layout)
    assert 1 < len(closure) < len(names)
    assert set(out.kept) == names - closure and set(out.rows) == names
    assert _columns(layout) == before               # the same columns, built again


def test_a_raw_tables_columns_rebuild_the_template(tmp_path, monkeypatch):
    monkeypatch.delenv("INTERCONNECT_DB", raising=False)
    root = copy_built(tmp_path / "tree")
    layout = Layout(Project(root))
    real = campaign_mod.raw_tables

    def one_more_column(formats):
        tables = real(formats)
        return {t: ({**cols, "added_by_test": "VARCHAR"} if t == "raw_ping" else cols)
                for t, cols in tables.items()}

    # a parser that gains a column (its code changes too, in life: here the columns alone)
    monkeypatch.setattr(campaign_mod, "raw_tables", one_more_column)
    out = _template(layout)
    # every model that reads a raw table, directly or through another model, runs again; one
    # that reads reference data alone is kept (keep.model_digests: the raw digest feeds the rest)
    refs = set(layout.reference_tables) | {m.name for m in layout.plan.reference}
    models = {m.name for m in layout.plan.campaign}
    raw = {u for m in layout.plan.campaign for u in m.upstreams} - models - refs
    readers = readers_of(layout, raw)
    assert readers and set(out.kept) == models - readers
    assert set(out.rows) == models
