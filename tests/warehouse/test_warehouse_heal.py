"""A warehouse DuckDB cannot open is moved aside and built again (pipeline/warehouse/heal.py): cut
to 0 bytes, cut to a part, or overwritten with text; a good one, or none, is left alone."""
from __future__ import annotations

import duckdb
import pytest

from pipeline.warehouse.heal import heal


def _good(path):
    con = duckdb.connect(str(path))
    con.execute("create table t as select range as x from range(100000)")
    con.close()


def test_a_good_warehouse_and_a_missing_one_are_left_alone(tmp_path):
    path = tmp_path / "interconnect.duckdb"
    assert heal(path) is None and not path.exists()
    _good(path)
    before = path.read_bytes()
    assert heal(path) is None and path.read_bytes() == before


@pytest.mark.parametrize("damage", ["empty", "cut", "text"])
def test_a_warehouse_duckdb_cannot_open_is_moved_aside_with_one_line(tmp_path, damage):
    path = tmp_path / "interconnect.duckdb"
    _good(path)
    data = path.read_bytes()
    damaged = {"empty": b"", "cut": data[: len(data) // 3], "text": b"not a database\n" * 100}[damage]
    path.write_bytes(damaged)
    (tmp_path / "interconnect.duckdb.wal").write_bytes(b"wal")
    said = heal(path)
    assert said is not None and "\n" not in said
    assert said.startswith(f"{path}: DuckDB cannot open it (")
    assert "moved aside to interconnect.duckdb.unreadable-" in said
    assert not path.exists() and not (tmp_path / "interconnect.duckdb.wal").exists()
    (aside,) = [p for p in tmp_path.glob("interconnect.duckdb.unreadable-*") if p.suffix != ".wal"]
    assert aside.read_bytes() == damaged                       # kept as it was, for a look
    assert aside.with_name(aside.name + ".wal").read_bytes() == b"wal"
    # what is left is a place for a new warehouse
    _good(path)
    assert heal(path) is None
