"""The small parts of the ingest runner (pipeline/ingest/runner.py), value by value: the parse
threads setting, the raw tables' columns, a parser's rows as a frame, an empty raw table."""
from __future__ import annotations

import duckdb
import pandas as pd
import pytest

from pipeline.ingest.base import Format
from pipeline.ingest.formats import ping
from pipeline.ingest.runner import THREADS_ENV, _frame, columns_of, ensure_table, parse_config
from pipeline.ingest.store import REGISTRY_COLUMNS

FMT = Format(name="toy", table="raw_toy", version=1, columns={"a": "BIGINT", "b": "VARCHAR"},
             parse=lambda path: [])


def test_the_parse_threads_setting(monkeypatch):
    assert THREADS_ENV == "INTERCONNECT_PARSE_THREADS"
    monkeypatch.delenv(THREADS_ENV, raising=False)
    assert parse_config() == {}                                   # unset: DuckDB's own default
    monkeypatch.setenv(THREADS_ENV, "")
    assert parse_config() == {}
    for value, threads in (("1", 1), ("12", 12)):
        monkeypatch.setenv(THREADS_ENV, value)
        assert parse_config() == {"threads": threads}
    for bad in ("0", "-1", "two", "1.5", " 2"):
        monkeypatch.setenv(THREADS_ENV, bad)
        with pytest.raises(ValueError) as exc:
            parse_config()
        assert str(exc.value) == (f"INTERCONNECT_PARSE_THREADS={bad!r}: expected a whole number "
                                  f"of threads, 1 or more")


def test_every_raw_table_leads_with_its_file_campaign_and_line():
    assert list(columns_of(FMT).items()) == [
        ("source_file", "VARCHAR"), ("campaign", "VARCHAR"), ("source_line", "BIGINT"),
        ("a", "BIGINT"), ("b", "VARCHAR")]


def test_a_parsers_rows_become_a_frame_of_its_columns_in_order(tmp_path):
    rows = [{"b": "x", "a": 1, "source_line": 3, "extra": 9}]
    frame = _frame(FMT, rows, tmp_path / "f")
    assert list(frame.columns) == ["source_line", "a", "b"]       # extra columns dropped
    assert frame.to_dict("records") == [{"source_line": 3, "a": 1, "b": "x"}]
    same = _frame(FMT, pd.DataFrame(rows), tmp_path / "f")
    assert same.to_dict("records") == frame.to_dict("records")
    empty = _frame(FMT, [], tmp_path / "f")
    assert empty.empty and list(empty.columns) == ["source_line", "a", "b"]
    with pytest.raises(RuntimeError) as exc:
        _frame(FMT, [{"source_line": 1, "a": 2}], tmp_path / "f")
    assert str(exc.value) == f"parser toy returned no column(s) ['b'] for {tmp_path / 'f'}"


def test_an_empty_raw_table_and_registry_for_hand_made_raw_layers():
    con = duckdb.connect()
    ensure_table(con, ping.FORMAT)
    ensure_table(con, ping.FORMAT)                               # again: nothing changes
    cols = con.execute("select column_name, data_type from information_schema.columns "
                       "where table_name = 'raw_ping' order by ordinal_position").fetchall()
    assert [c for c, _ in cols] == list(columns_of(ping.FORMAT))
    assert cols[:3] == [("source_file", "VARCHAR"), ("campaign", "VARCHAR"), ("source_line", "BIGINT")]
    reg = [c for (c,) in con.execute("select column_name from information_schema.columns "
                                     "where table_name = 'ingest_registry' order by ordinal_position").fetchall()]
    assert reg == list(REGISTRY_COLUMNS)
    assert con.execute("select count(*) from raw_ping").fetchone() == (0,)
