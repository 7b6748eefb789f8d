"""Every published column says what it holds, from a comment beside the SQL that makes it.

The rules (pipeline/warehouse/column_notes.py) are tested on small SQL written here; the project is held
to them on its own build: no column of a mart without a description, no ``-- column`` line for
a column its model does not have, no glossary line nothing uses, and the Data dictionary page
prints each description.
"""
from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

from pipeline.warehouse import column_notes, models
from tests.conftest import warehouse


def _model(tmp_path: Path, layer: str, name: str, sql: str) -> models.Model:
    path = tmp_path / layer / f"{name}.sql"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(sql, encoding="utf-8")
    return models.Model(path, sql)


# --- reading the lines -------------------------------------------------------------------------

def test_a_column_line_and_its_continuation_are_one_description():
    sql = ("-- grain: one row per thing\n"
           "-- column rate_bits_per_s: the rate the link carried,\n"
           "--    averaged over the run\n"
           "-- column n: how many\n"
           "select 1 as rate_bits_per_s, 2 as n\n")
    assert column_notes.parse(sql) == {
        "rate_bits_per_s": "the rate the link carried, averaged over the run", "n": "how many"}


def test_a_comment_after_a_column_line_that_is_not_indented_is_not_part_of_it():
    sql = "-- column n: how many\n-- the model's own prose\nselect 1 as n\n"
    assert column_notes.parse(sql) == {"n": "how many"}


def test_a_column_described_twice_names_the_file_and_line(tmp_path):
    sql = "-- column n: how many\n-- column N: again\nselect 1 as n\n"
    with pytest.raises(column_notes.ColumnNoteError, match=r"x\.sql:2: column 'n' is described twice"):
        column_notes.parse(sql, tmp_path / "x.sql")


def test_an_empty_description_names_the_file_and_line(tmp_path):
    with pytest.raises(column_notes.ColumnNoteError, match=r"x\.sql:1: .*has no description"):
        column_notes.parse("-- column n:   \nselect 1 as n\n", tmp_path / "x.sql")


def test_column_lines_are_not_part_of_the_model_description(tmp_path):
    m = _model(tmp_path, "marts", "fct_x", "-- grain: one row\n-- What the table is for.\n"
               "-- column n: how many,\n--    counted twice\n-- More prose.\nselect 1 as n\n")
    assert m.description == "What the table is for. More prose."
    assert m.column_notes == {"n": "how many, counted twice"}


# --- which line a column gets ------------------------------------------------------------------

def test_own_line_then_glossary_then_the_nearest_upstream(tmp_path):
    up = _model(tmp_path, "marts", "dim_a", "-- column basis: upstream wording\n"
                "-- column pairs: upstream pairs\nselect 1 as basis, 2 as pairs, 3 as n\n")
    mid = _model(tmp_path, "marts", "fct_b", "-- column pairs: the middle's pairs\n"
                 "select basis, pairs, n from dim_a\n")
    down = _model(tmp_path, "marts", "fct_c", "-- column n: own wording\n"
                  "select basis, pairs, n from fct_b\n")
    shared = {"basis": "glossary wording"}
    got = column_notes.describe([up, mid, down], [("fct_c", "n"), ("fct_c", "basis"),
                                                   ("fct_c", "pairs"), ("fct_c", "other")], shared)
    assert got[("fct_c", "n")] == ("own wording", "fct_c")
    # the glossary beats an upstream table's narrower wording
    assert got[("fct_c", "basis")] == ("glossary wording", "glossary")
    # the nearest upstream wins over one further up
    assert got[("fct_c", "pairs")] == ("the middle's pairs", "fct_b")
    # nothing describes it: left out, so the completeness test can name it
    assert ("fct_c", "other") not in got


def test_upstream_order_is_the_order_the_sql_reads_them(tmp_path):
    a = _model(tmp_path, "marts", "dim_z", "-- column n: from z\nselect 1 as n\n")
    b = _model(tmp_path, "marts", "dim_a", "-- column n: from a\nselect 1 as n\n")
    c = _model(tmp_path, "marts", "fct_c", "select z.n from dim_z as z join dim_a as a on true\n")
    assert c.upstreams == ("dim_a", "dim_z")                       # sorted, for the graph
    assert column_notes.describe([a, b, c], [("fct_c", "n")], {})[("fct_c", "n")] == ("from z", "dim_z")


# --- the project's own tables ------------------------------------------------------------------

def _columns(built) -> list[tuple]:
    con = warehouse(built)
    try:
        return con.execute(
            "select c.table_name, c.column_name, c.description, c.described_in "
            "from main.meta_columns as c join main.meta_models as m "
            "on m.model = c.table_name and m.layer = 'marts' "
            "order by c.table_name, c.column_index").fetchall()
    finally:
        con.close()


def test_every_published_column_has_a_description(built):
    rows = _columns(built)
    assert len(rows) > 500                                       # every mart's columns were read
    missing = [f"{t}.{c}" for t, c, d, _ in rows if not d]
    assert not missing, (f"{len(missing)} column(s) say nothing about what they hold: add "
                         f"'-- column <name>: ...' to the model's SQL (or sql/glossary.sql for a "
                         f"name that means the same everywhere): {', '.join(missing)}")


def test_every_column_line_names_a_column_its_model_has(built):
    by_table: dict[str, set[str]] = {}
    for t, c, _, _ in _columns(built):
        by_table.setdefault(t, set()).add(c.lower())
    stale = []
    for m in models.discover(built.sql):
        if m.layer == "marts" and m.name in by_table:
            stale += [f"{m.path.name}: {c}" for c in m.column_notes if c not in by_table[m.name]]
    assert not stale, f"'-- column' lines for columns the table does not have: {stale}"


def test_every_glossary_line_is_used_by_some_column(built):
    used = {c.lower() for _, c, _, w in _columns(built) if w == "glossary"}
    unused = sorted(set(column_notes.glossary(built.sql)) - used)
    assert not unused, f"sql/glossary.sql describes names no table takes from it: {unused}"


def test_the_dictionary_page_prints_each_description(built):
    page = (built.site / "data-dictionary" / "index.html").read_text(encoding="utf-8")
    # cell and block boundaries become spaces; inline tags (an <abbr> the glossary of terms
    # wraps round "MTU") vanish, so the words read as written
    blocks = re.sub(r"</?(?:td|th|tr|p|li|h\d)\b[^>]*>", " ", page)
    text = re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", "", blocks)))
    rows = _columns(built)
    absent = [f"{t}.{c}" for t, c, d, _ in rows if re.sub(r"\s+", " ", d) not in text]
    assert not absent, f"descriptions not on the Data dictionary page: {absent[:10]}"
    # a description sits on its own column's row (the table's 4th cell)
    row = re.search(r"<tr>\s*<td>rtt_worst_s</td>(.*?)</tr>", page, re.S)
    assert row and "the longer of the two directions" in html.unescape(row.group(1))
