"""python-dotenv's own parser cases (tests/corpora/env/README.md): the env parser wraps
dotenv.parser.parse_stream, so on each of the 45 inputs of dotenv's suite it must give exactly
the bindings that suite expects: a row per key (the last binding of a key wins, in line order)
with its value and line, a refusal at the line of the first binding dotenv marks as an error,
and a refusal of an input with no binding at all."""
from __future__ import annotations

import json

import pytest

from parser_cases import assert_rejects
from paths import TESTS
from pipeline.ingest.base import ParseError
from pipeline.ingest.formats import env

CASES = json.loads((TESTS / "corpora" / "env" / "python-dotenv" / "test_parser_cases.json").read_text())


def test_the_corpus_holds_dotenvs_45_cases():
    # 45 inputs with 57 expected bindings; 2 of the inputs hold a binding dotenv calls an error
    assert len(CASES) == 45 and sum(len(c["bindings"]) for c in CASES) == 57
    assert sum(any(b["error"] for b in c["bindings"]) for c in CASES) == 2


def _expected_rows(bindings: list[dict]) -> list[dict]:
    rows = {}
    for b in bindings:
        if b["key"] is not None:
            rows[b["key"]] = {"key": b["key"], "value": b["value"], "source_line": b["line"]}
    return sorted(rows.values(), key=lambda r: r["source_line"])


@pytest.mark.parametrize("case", CASES, ids=lambda c: repr(c["input"])[:40])
def test_each_case_gives_the_bindings_dotenvs_suite_expects(case, tmp_path):
    path = tmp_path / "service.env"
    path.write_text(case["input"])
    errors = [b for b in case["bindings"] if b["error"]]
    rows = _expected_rows(case["bindings"])
    if errors:
        assert_rejects(env.parse, path, errors[0]["line"], repr(errors[0]["string"].rstrip("\n")))
    elif not rows:
        with pytest.raises(ParseError):        # empty, or only comments and blank lines
            env.parse(path)
    else:
        assert env.parse(path) == rows
