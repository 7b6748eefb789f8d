"""Real llama-server log excerpts of several builds (2024 to 2026), from llama.cpp's and its users'
issue threads (tests/corpora/llama_server/README.md): every line is read, and each line the
parser knows gives the event and values typed by hand from its text (expected.json). A log
line of llama-server's 2024 JSON log format is refused with a reason that names it.
The parser is the only reader of these lines (no library): there is no fast path to compare."""
from __future__ import annotations

import json

import pytest

from parser_cases import assert_rejects
from paths import TESTS
from pipeline.ingest.formats import journal

CORPUS = TESTS / "corpora" / "llama_server"
LOGS = sorted(CORPUS.rglob("*.log"))
EXPECTED = json.loads((CORPUS / "issues" / "expected.json").read_text())
KEYS = ("slot_id", "task_id", "ms", "tokens", "accepted", "generated", "state_mib", "mean_len",
        "count", "drafts", "spec_type")
REFUSED = {"ggml-org+llama.cpp-7637.log": (1, "llama-server's own JSON log (--log-format json")}


def test_every_log_has_expected_events_or_a_listed_refusal():
    # 7 excerpts, one refused
    assert sorted(p.name for p in LOGS) == sorted([*EXPECTED, *REFUSED])


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_excerpt_reads_every_line_and_the_events_in_its_text(name):
    rows = journal.parse(CORPUS / "issues" / name)
    want = EXPECTED[name]
    assert len(rows) == want["lines"]
    assert [r["source_line"] for r in rows] == list(range(1, want["lines"] + 1))
    got = [[r["source_line"], r["event"], {k: r[k] for k in KEYS if r.get(k) is not None}]
           for r in rows if r.get("event")]
    assert got == want["events"]


def test_a_pid_prefixed_text_log_is_text_and_its_bare_timing_lines_belong_to_their_task():
    # "[42027] prompt eval time = 789.03 ms / 27 tokens" follows "[42027] … slot print_timing:
    # id  0 | task 388 | " (llama.cpp PR 23269): slot 0, task 388
    rows = journal.parse(CORPUS / "issues" / "ggml-org+llama.cpp-23269.log")
    (prompt,) = [r for r in rows if r["event"] == "prompt_eval"]
    assert (prompt["slot_id"], prompt["task_id"], prompt["ms"], prompt["tokens"]) == (0, 388, 789.03, 27)


def test_the_b11434_progress_line_is_read():
    # "prompt processing, n_tokens =   1536, progress = 0.10, t =   3.42 s / 448.61 tokens per
    # second" (server-context.cpp of b11434: "prompt processing, n_tokens = %6d, progress = …")
    rows = journal.parse(CORPUS / "issues" / "ollama+ollama-18123.log")
    (progress,) = [r for r in rows if r["event"] == "prompt_progress"]
    assert (progress["source_line"], progress["tokens"]) == (12, 1536)


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_a_refused_log_names_its_line_and_what_it_is(name):
    assert_rejects(journal.parse, CORPUS / "issues" / name, *REFUSED[name])
