"""`make mutate` runs the corpus tests against each mutant: every test_<format>_corpus.py is in
mutmut's test selection (pyproject.toml), and every file that selection names exists. The GGUF
stock-reader comparison is the one corpus test left out (about a minute a run)."""
from __future__ import annotations

import tomllib

from paths import REPO

SELECTION = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["mutmut"][
    "pytest_add_cli_args_test_selection"]


def test_every_corpus_test_is_run_against_the_mutants():
    corpus_tests = sorted(str(p.relative_to(REPO)) for p in REPO.glob("tests/**/test_*_corpus.py"))
    # ping, gguf, netdev, ethtool, iperf3, nccl_tests, journal, nccl_debug, env
    assert len(corpus_tests) == 9
    assert [t for t in corpus_tests if t not in SELECTION] == []
    assert "tests/ingest/formats/gguf/test_gguf_corpus_stock_reader.py" not in SELECTION


def test_every_selected_test_file_exists():
    assert [t for t in SELECTION if not (REPO / t).is_file()] == []
