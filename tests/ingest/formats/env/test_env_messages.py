"""pipeline/ingest/formats/env.py's refusals word for word, and which binding of a key twice wins."""
from __future__ import annotations

import pytest

from pipeline.ingest.base import ParseError
from pipeline.ingest.formats.env import parse


def _refusal(tmp_path, text: str) -> str:
    path = tmp_path / "llama.env"
    path.write_text(text)
    with pytest.raises(ParseError) as info:
        parse(path)
    return str(info.value).replace(str(path), "llama.env")


@pytest.mark.parametrize("text, message", [
    # python-dotenv flags the line; the message quotes it as written, trailing spaces and all
    ("A=1\nFOO BAR  \n", "llama.env:2: expected a KEY=value line, found 'FOO BAR  '"),
    ("A=1\nFOO BARX\n", "llama.env:2: expected a KEY=value line, found 'FOO BARX'"),
    ("# only a comment\n\n", "llama.env:1: expected at least one KEY=value line, found only comments"),
])
def test_each_refusal_says_where_and_what(tmp_path, text, message):
    assert _refusal(tmp_path, text) == message


def test_a_key_bound_twice_keeps_its_last_value_at_its_last_line(tmp_path):
    path = tmp_path / "llama.env"
    path.write_text("UBATCH_SIZE=256\nTENSOR_SPLIT=0.68,0.32\nUBATCH_SIZE=512\n")
    assert [(r["key"], r["value"], r["source_line"]) for r in parse(path)] == [
        ("TENSOR_SPLIT", "0.68,0.32", 2), ("UBATCH_SIZE", "512", 3)]
