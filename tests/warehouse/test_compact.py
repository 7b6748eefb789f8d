"""The warehouse is rewritten into a fresh file once its free blocks outgrow the used ones
(pipeline/warehouse/compact.py): smaller, with every schema, table, view and macro as it was."""
from __future__ import annotations

import duckdb

from pipeline.warehouse.compact import compact


def _rebuilt(path, times: int) -> None:
    """As builds do: each drops and recreates the tables (DuckDB keeps the freed blocks)."""
    con = duckdb.connect(str(path))
    for n in range(times):
        con.execute("create schema if not exists \"campaign:a\"")
        con.execute("create or replace table \"campaign:a\".t as "
                    f"select range a, md5((range + {n})::varchar) b from range(300000)")
        con.execute("create or replace view main.v as select count(*) n from \"campaign:a\".t")
        con.execute("create or replace macro main.twice(x) as 2 * x")
        con.execute("checkpoint")
    con.close()


def _contents(path):
    con = duckdb.connect(str(path), read_only=True)
    try:
        return (con.execute("select sum(hash(a, b)) from \"campaign:a\".t").fetchone(),
                con.execute("select n, twice(n) from main.v").fetchone(),
                con.execute("select schema_name, table_name from duckdb_tables() order by all").fetchall())
    finally:
        con.close()


def test_a_grown_warehouse_is_rewritten_smaller_with_the_same_contents(tmp_path):
    path = tmp_path / "w.duckdb"
    _rebuilt(path, 4)
    before, contents = path.stat().st_size, _contents(path)
    line = compact(path)
    assert line is not None and line.startswith("warehouse w.duckdb: compacted, ")
    assert path.stat().st_size < before
    assert _contents(path) == contents
    assert [p.name for p in tmp_path.iterdir()] == ["w.duckdb"]      # no temporary left
    assert compact(path) is None                                     # nothing free any more


def test_a_warehouse_with_few_free_blocks_or_a_wal_is_left_alone(tmp_path):
    path = tmp_path / "w.duckdb"
    _rebuilt(path, 1)
    size = path.stat().st_size
    assert compact(path) is None and path.stat().st_size == size
    _rebuilt(path, 4)
    wal = tmp_path / "w.duckdb.wal"
    wal.write_bytes(b"")              # a build that did not close cleanly: left to the next
    assert compact(path) is None
    assert compact(tmp_path / "absent.duckdb") is None
