"""SQL models: upstreams come from DuckDB's parser; bad names fail at load, naming the file."""
from pathlib import Path

import duckdb
import pytest

from pipeline.warehouse import models

from paths import REPO


@pytest.mark.parametrize("sql, expected", [
    ("select * from raw_a", {"raw_a"}),
    # CTE names are local, not upstreams
    ("with x as (select * from raw_a) select * from x join stg_b using (k)", {"raw_a", "stg_b"}),
    # subqueries, exists, unions, asof joins
    ("select * from (select * from a) s where exists (select 1 from b) union all select * from c",
     {"a", "b", "c"}),
    ("select * from a asof left join b on a.t >= b.t", {"a", "b"}),
    # table functions are not tables
    ("select * from generate_series(1, 3)", set()),
])
def test_referenced_tables(sql, expected):
    assert models.referenced_tables(sql) == expected


def test_unparseable_sql_names_file(tmp_path):
    with pytest.raises(models.ModelError, match="broken.sql"):
        models.referenced_tables("selec nonsense from", tmp_path / "broken.sql")


def _write(root: Path, rel: str, sql: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(sql)


def test_unknown_table_fails_naming_file(tmp_path):
    _write(tmp_path, "marts/fct_x.sql", "-- grain: one row\nselect * from raw_typo")
    found = models.discover(tmp_path)
    with pytest.raises(models.ModelError, match=r"fct_x\.sql.*raw_typo"):
        models.check_upstreams(found, {"raw_real"})


def test_cycle_detected(tmp_path):
    _write(tmp_path, "intermediate/a.sql", "select * from b")
    _write(tmp_path, "intermediate/b.sql", "select * from a")
    with pytest.raises(models.ModelError, match="cycle"):
        models.topological(models.discover(tmp_path))


def test_build_all_in_dependency_order(tmp_path):
    # b reads a, a reads the raw table: discovery order is alphabetical within a layer, but
    # b must be built after a.
    _write(tmp_path, "intermediate/b.sql", "-- grain: one row\nselect sum(v) * 2 as w from a")
    _write(tmp_path, "intermediate/a.sql", "-- grain: one row per v\nselect v + 1 as v from raw_t")
    con = duckdb.connect()
    con.execute("create table raw_t as select * from (values (1), (2)) t(v)")
    counts = models.build_all(con, tmp_path)
    assert list(counts) == ["a", "b"]
    # a = {2, 3}; b = (2 + 3) * 2 = 10
    assert con.execute("select w from b").fetchall() == [(10,)]


def test_grain_comment_read(tmp_path):
    _write(tmp_path, "marts/fct_y.sql", "-- grain: one row per link\n-- why it exists\nselect 1")
    (model,) = models.discover(tmp_path)
    assert model.grain == "one row per link"
    assert model.description == "why it exists"


def test_every_project_model_has_a_grain():
    root = REPO / "sql"
    missing = [str(m.path) for m in models.discover(root) if not m.grain]
    assert not missing, f"models without a '-- grain:' comment: {missing}"


@pytest.mark.parametrize("schema", [None, "s"])
def test_a_model_replaces_the_view_of_its_name_that_a_scope_change_left(tmp_path, schema):
    # the last build made fct_x a view (a campaign model's union of the campaign schemas); the
    # SQL now declares it a comparison model, built as a table of the same name
    con = duckdb.connect()
    con.execute("create schema s")
    target = "fct_x" if schema is None else "s.fct_x"
    con.execute(f"create view {target} as select 1 as v")
    _write(tmp_path, "marts/fct_x.sql", "-- grain: one row\nselect 2 as v")
    (model,) = models.discover(tmp_path)
    assert models.run_model(con, model, schema) == 1
    assert con.execute(f"select v from {target}").fetchall() == [(2,)]
    kinds = con.execute("select count(*) from duckdb_tables() where table_name = 'fct_x'").fetchall()
    assert kinds == [(1,)]


def test_a_forked_child_parses_sql_on_its_own_connection():
    # a DuckDB database does not survive fork (its threads stay in the parent): a child opens
    # its own scratch database to parse on and leaves the parent's alone (pipeline/util/per_process.py)
    import os
    import signal

    from pipeline.util import scratch
    from pipeline.warehouse import models
    models._parse_tree("select 1 as parent")
    pid = os.fork()
    if pid == 0:                                        # the child: report by exit status only
        try:
            signal.alarm(20)                            # a hung child dies of SIGALRM
            models._parse_tree.cache_clear()
            models._parse_tree("select 2 as child")
            os._exit(0 if len(scratch.DATABASE.inherited) == 1 else 3)
        except BaseException:  # noqa: BLE001 - any failure is the child's exit status
            os._exit(4)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
