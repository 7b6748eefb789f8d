"""Templates: front matter declares marts; data strings cannot break tables or inject markup."""
import duckdb
import pytest

from pipeline.publish import pages


def _template(tmp_path, body, marts="[t]"):
    path = tmp_path / "p.md.j2"
    path.write_text("{#---\ntitle: P\nmarts: " + marts + "\n---#}\n" + body)
    return path


def test_front_matter_required(tmp_path):
    path = tmp_path / "x.md.j2"
    path.write_text("# no front matter\n")
    with pytest.raises(pages.PageError, match="x.md.j2:1"):
        pages.front_matter(path)


def test_unknown_mart_fails_naming_template(tmp_path):
    _template(tmp_path, "hi", marts="[fct_missing]")
    found = pages.discover_pages(tmp_path)
    with pytest.raises(pages.PageError, match=r"p\.md\.j2.*fct_missing"):
        pages.check_marts(found, {"fct_other"})


def test_rows_and_filters(tmp_path):
    con = duckdb.connect()
    con.execute("create table t as select 'eno1' as iface, 40755.0 as b")
    path = _template(tmp_path, "{{ row('t').iface }} {{ row('t').b | bytes_as('KiB', 1) }}")
    # 40755 / 1024 = 39.799 -> 39.8 KiB
    assert pages.render_template(con, path) == "eno1 39.8 KiB\n"


def test_row_requires_exactly_one(tmp_path):
    con = duckdb.connect()
    con.execute("create table t as select * from (values (1), (2)) v(x)")
    path = _template(tmp_path, "{{ row('t').x }}")
    with pytest.raises(pages.PageError, match="exactly one row"):
        pages.render_template(con, path)


HOSTILE = "evil|host`x`<script>alert(1)</script>{{ 7*7 }}\nnext *bold* _it_ [l](u)"


def test_hostile_text_is_inert(tmp_path):
    con = duckdb.connect()
    con.execute("create table t as select ? as name", [HOSTILE])
    path = _template(tmp_path, "| a | b |\n|---|---|\n{% for r in t %}| {{ r.name }} | x |\n{% endfor %}")
    out = pages.render_template(con, path)
    row = out.splitlines()[2]
    assert row.count("|") == 3           # the cell did not split the row
    assert "<script>" not in out and "`" not in out
    assert "{{" not in out and "49" not in out  # not evaluated as a template either
    assert "\n" not in row
    assert "*bold*" not in out and "_it_" not in out   # no emphasis from data


def test_filters_escape_data_text_too(tmp_path):
    con = duckdb.connect()
    con.execute("create table t as select ? as name", [HOSTILE])
    path = _template(tmp_path, "| {{ row('t').name | dash }} |")
    out = pages.render_template(con, path)
    assert out.count("|") == 2 and "<script>" not in out


def test_intraword_underscore_kept_readable(tmp_path):
    con = duckdb.connect()
    con.execute("create table t as select 'q8_0' as k")
    assert pages.render_template(con, _template(tmp_path, "{{ row('t').k }}")) == "q8_0\n"


def test_missing_value_is_an_error(tmp_path):
    con = duckdb.connect()
    con.execute("create table t as select 1 as x")
    path = _template(tmp_path, "{{ row('t').nope }}")
    with pytest.raises(Exception, match="nope"):
        pages.render_template(con, path)
