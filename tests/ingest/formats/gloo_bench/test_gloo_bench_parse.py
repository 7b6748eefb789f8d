"""p2p_bench JSON lines: the parser and the benchmark's own line writer agree."""
import json
from pathlib import Path

import pytest

from pipeline.collect import p2p_bench
from pipeline.ingest.base import ParseError
from pipeline.ingest.formats.gloo_bench import FORMAT, parse

from paths import FIXTURES

FIX = FIXTURES / "gloo_bench"


def test_good_file():
    rows = parse(FIX / "good_recv.jsonl")
    assert [r["source_line"] for r in rows] == [1, 3, 4]      # blank line 2 skipped
    assert [r["time_s"] for r in rows] == [0.25, 0.5, 1.0]    # int 1 becomes float
    assert rows[2]["size_bytes"] == 2048 and rows[0]["op"] == "recv"
    for row in rows:
        assert set(FORMAT.columns) | {"source_line"} == set(row)


def test_benchmark_writes_what_the_parser_reads(tmp_path):
    line = p2p_bench.record("nccl", 2, 0, 1, "send", 4096, "float32", 3, 0.0123456789)
    path = tmp_path / "send.jsonl"
    path.write_text(line + "\n")
    (row,) = parse(path)
    assert (row["backend"], row["op"], row["iteration"], row["time_s"]) == ("nccl", "send", 3, 0.012345679)
    assert list(json.loads(line))[:2] == ["bench", "schema"]


def test_torch_is_imported_only_inside_main():
    # torch must not become a dependency of the docs build: no module-level import.
    import ast
    tree = ast.parse(Path(p2p_bench.__file__).read_text())
    top = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
    names = {a.name.split(".")[0] for n in top for a in n.names} | {
        (n.module or "").split(".")[0] for n in top if isinstance(n, ast.ImportFrom)}
    assert "torch" not in names
    main = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "main")
    assert any(isinstance(n, ast.Import) and n.names[0].name == "torch" for n in ast.walk(main))


@pytest.mark.parametrize("name, line, words", [
    ("bad_truncated_line.jsonl", 2, "expected a JSON object"),
    ("bad_missing_time.jsonl", 1, "time_s"),
    ("bad_not_p2p_bench.jsonl", 1, "p2p_bench record"),
    ("bad_schema.jsonl", 1, "schema 1"),
    ("bad_negative_time.jsonl", 1, "positive"),
])
def test_bad_files(name, line, words):
    with pytest.raises(ParseError) as info:
        parse(FIX / name)
    assert info.value.line == line and words in str(info.value) and name in str(info.value)


@pytest.mark.parametrize("data", [b"", b"\n\n", b"\xff\xfe garbage"])
def test_empty_and_binary_input(tmp_path, data):
    path = tmp_path / "x.jsonl"
    path.write_bytes(data)
    with pytest.raises(ParseError):
        parse(path)
