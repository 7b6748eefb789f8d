"""Env-file parser (python-dotenv's parse_stream): bindings, lines, rejected lines."""

import duckdb
import pandas as pd
import pytest

from pipeline.ingest.formats.env import FORMAT, parse
from pipeline.ingest.runner import ensure_table

from parser_cases import assert_rejects
from paths import FIXTURES

FIX = FIXTURES / "env"
GOOD = sorted((FIX / "good").glob("*.env"))
BAD = sorted((FIX / "bad").glob("*.env"))

BAD_REASONS = {
    "leading-equals.env": (2, "found '=x'"),
    "space-in-key.env": (3, "found 'FOO BAR'"),
    "latin1.env": (1, "byte 0xff"),
    "only-comments.env": (1, "only comments"),
}


def test_fixture_sets_are_complete():
    assert [p.name for p in GOOD] == ["llama-head.env", "worker.env"]
    assert {p.name for p in BAD} == set(BAD_REASONS)


@pytest.mark.parametrize("path", GOOD, ids=lambda p: p.name)
def test_good_fixtures_have_every_column(path):
    rows = parse(path)
    assert rows
    for row in rows:
        assert set(row) == set(FORMAT.columns) | {"source_line"}


def test_llama_head_values_and_lines():
    rows = parse(FIX / "good" / "llama-head.env")
    kv = {r["key"]: (r["value"], r["source_line"]) for r in rows}
    # 14 distinct keys; UBATCH_SIZE is bound twice (lines 5 and 20)
    assert len(rows) == 14
    assert kv["MODEL"] == ("/srv/models/Fixture-27B-Q8_0.gguf", 3)
    assert kv["TENSOR_SPLIT"] == ("0.68,0.32", 8)
    assert kv["RPC_SERVERS"] == ("192.168.0.21:50052", 9)            # quotes removed
    assert kv["LLAMA_ARG_HOST"] == ("0.0.0.0", 15)                   # `export` prefix
    assert kv["EXTRA_ARGS"] == ("--jinja --no-mmap --metrics", 16)
    assert kv["LOG_DIR"] == ("${STATE_DIRECTORY}/logs", 17)          # no interpolation
    assert kv["PROMPT_HINT"] == ("first line\nsecond line", 18)      # multi-line value
    assert kv["UBATCH_SIZE"] == ("512", 20)                          # the last binding wins
    assert [r["source_line"] for r in rows] == sorted(r["source_line"] for r in rows)


def test_worker_inline_comment_and_empty_value():
    rows = parse(FIX / "good" / "worker.env")
    assert [(r["key"], r["value"], r["source_line"]) for r in rows] == [
        ("RPC_PORT", "50052", 1), ("RPC_HOST", "0.0.0.0", 2), ("GGML_CUDA_VISIBLE", "", 3)]


@pytest.mark.parametrize("path", BAD, ids=lambda p: p.name)
def test_bad_fixtures_name_file_line_and_reason(path):
    line, words = BAD_REASONS[path.name]
    assert_rejects(parse, path, line, words)


@pytest.mark.parametrize("data, line, words", [
    (b"", 1, "an empty file"),
    (b"  \n\n", 1, "an empty file"),
    (b"A=1\n\x00\x01garbage here\n", 2, "garbage here"),
    (b"A=1\nB=2\nnot an assignment\n", 3, "'not an assignment'"),
])
def test_inline_bad_bytes(tmp_path, data, line, words):
    path = tmp_path / "inline.env"
    path.write_bytes(data)
    assert_rejects(parse, path, line, words)


def test_bare_key_has_null_value(tmp_path):
    path = tmp_path / "bare.env"
    path.write_text("DEBUG\nLEVEL=3\n")
    assert parse(path) == [{"key": "DEBUG", "value": None, "source_line": 1},
                           {"key": "LEVEL", "value": "3", "source_line": 2}]


def test_rows_fit_the_declared_table():
    con = duckdb.connect()
    ensure_table(con, FORMAT)
    con.register("incoming", pd.DataFrame(parse(FIX / "good" / "llama-head.env")))
    con.execute(f"insert into {FORMAT.table} by name select * from incoming")
    assert con.execute(f"select count(*) from {FORMAT.table}").fetchall() == [(14,)]
