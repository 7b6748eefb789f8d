"""pipeline/ingest/formats/gloo_bench.py's refusals word for word (file, line, expected, found), and the
zero boundaries of time and size. Found by mutation testing."""
from __future__ import annotations

import json

import pytest

from pipeline.ingest.base import ParseError
from pipeline.ingest.formats.gloo_bench import parse

GOOD = {"bench": "p2p_bench", "schema": 1, "backend": "gloo", "world_size": 2, "rank": 1, "peer": 0,
        "op": "recv", "size_bytes": 1048576, "dtype": "float32", "iteration": 0, "time_s": 0.012}


def _refusal(tmp_path, second_line: str) -> str:
    path = tmp_path / "bench.jsonl"
    path.write_text(json.dumps(GOOD) + "\n" + second_line + "\n")
    with pytest.raises(ParseError) as info:
        parse(path)
    return str(info.value).replace(str(path), "bench.jsonl")


def _with(**changes) -> str:
    return json.dumps({**GOOD, **changes})


LONG = json.dumps({"bench": "other", "note": "x" * 80})


@pytest.mark.parametrize("line, message", [
    # another tool's JSON: the line quoted, cut at 60 characters
    (LONG, f"bench.jsonl:2: expected a p2p_bench record ({{\"bench\": \"p2p_bench\", …}}), found {LONG[:60]!r}"),
    (_with(schema=2), "bench.jsonl:2: expected schema 1, found 2"),
    (_with(rank="1"), "bench.jsonl:2: expected rank: an integer rank, found '1'"),
    (_with(size_bytes=True), "bench.jsonl:2: expected size_bytes: an integer size_bytes, found True"),
    (_with(op="bcast"), "bench.jsonl:2: expected op 'send' or 'recv', found 'bcast'"),
    (_with(time_s=0), "bench.jsonl:2: expected positive time_s and size_bytes, found time_s=0, size_bytes=1048576"),
    (_with(size_bytes=0), "bench.jsonl:2: expected positive time_s and size_bytes, found time_s=0.012, size_bytes=0"),
])
def test_each_refusal_word_for_word(tmp_path, line, message):
    assert _refusal(tmp_path, line) == message
