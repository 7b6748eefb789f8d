"""How a deployment decodes and where its prefill window lies, from the data
(int_deployment__journal_runs, int_deployment__decoding) on hand-made upstream rows."""

import duckdb
import pandas as pd
import pytest

from pipeline.warehouse import models

from paths import REPO

SQL = REPO / "sql"


def _model(rel):
    return models.Model(SQL / rel, (SQL / rel).read_text())


def _table(con, name, rows):
    con.register("_rows", pd.DataFrame(rows))
    con.execute(f"create or replace table {name} as select * from _rows")
    con.unregister("_rows")


def _stats(drafts, generated):
    """A "statistics draft-mtp: … #gen drafts = <drafts>, … #gen tokens = <generated>" line."""
    return {"event": "spec_statistics", "unix_s": 1000.0, "duration_s": None, "tokens": None,
            "task_id": None, "spec_type": "draft-mtp", "drafts": drafts, "generated": generated}


def _journal(campaign, task, new_prompt=True, drafts=True, mean_len=None, before=(), after=(),
             later=(), prompt_tokens=1000):
    """A task that prefills 1000 tokens in 2.0 s and decodes 100 tokens in 5.0 s; the timing
    block is printed at unix time 1000.0, when the task ends. ``before``: statistics lines of
    earlier tasks; ``after``: the lines printed after its draft acceptance; ``later``: lines
    after its release (another task's)."""
    rows = list(before)
    if new_prompt:
        rows.append({"event": "new_prompt", "unix_s": 993.5, "duration_s": None, "tokens": prompt_tokens})
    rows += [{"event": "prompt_eval", "unix_s": 1000.0, "duration_s": 2.0, "tokens": 1000},
             {"event": "eval", "unix_s": 1000.0, "duration_s": 5.0, "tokens": 100}]
    if drafts:
        rows.append({"event": "draft_acceptance", "unix_s": 1000.0, "duration_s": None,
                     "tokens": None, "accepted": 60, "generated": 80, "mean_len": mean_len})
    rows += list(after)
    if later:
        rows += [{"event": "release", "unix_s": 1000.0, "duration_s": None, "tokens": 1100}, *later]
    return [{"campaign": campaign, "source_file": f"{campaign}.log", "source_line": i + 1,
             "task_id": task, "accepted": None, "generated": None, "mean_len": None,
             "spec_type": None, "drafts": None, **r}
            for i, r in enumerate(rows)]


@pytest.fixture
def con():
    c = duckdb.connect()
    cases = {  # campaign: (spec_type, draft_model, nextn_layers, journal kwargs)
        "mtp": (None, None, 1, {}),
        "draft": (None, "/m/draft.gguf", 0, {}),
        "typed": ("ngram-simple", None, 0, {}),
        "plain": (None, None, 0, {"drafts": False}),
        "nolog": (None, None, 1, {"new_prompt": False}),
        # builds since 2026: "draft acceptance = 0.75000 (60 accepted / 80 generated), mean len = 2.50"
        "meanlen": (None, None, 1, {"mean_len": 2.5}),
        # statistics count since the server started: 35 - 10 = 25 drafts of 115 - 35 = 80 tokens
        # since the line before, the task's own 80 generated; a later task's line is not its
        "stats": (None, None, 1, {"before": [_stats(10, 35)], "after": [_stats(35, 115)],
                                  "later": [_stats(99, 999)]}),
        # one line, counting earlier tasks (200 tokens, not the task's 80); its 200 / 50 = 4.0
        # tokens per draft agree with n_max 4
        "cumul": (None, None, 1, {"after": [_stats(50, 200)]}),
        # 200 / 70 = 2.86 tokens per draft: drafts are not all n_max 4 long
        "vary": (None, None, 1, {"after": [_stats(70, 200)]}),
        # lower than the line before it: the server restarted, the line counts from zero
        "restart": (None, None, 1, {"before": [_stats(500, 2000)], "after": [_stats(25, 80)]}),
        # "new prompt, … task.n_tokens = 11396" and a prompt eval of 1000 tokens: 10,396 reused
        "cached": (None, None, 0, {"prompt_tokens": 11396}),
    }
    _table(c, "raw_campaigns", [{"campaign": k, "kind": "deployment",
                                 "params": '{"prefill_task": 7, "decode_task": 7}'} for k in cases])
    c.execute("create table raw_campaigns2 as select campaign, kind, params::json as params from raw_campaigns")
    c.execute("drop table raw_campaigns")
    c.execute("alter table raw_campaigns2 rename to raw_campaigns")
    _table(c, "stg_deployment__journal", [r for k, v in cases.items() for r in _journal(k, 7, **v[3])])
    _table(c, "int_deployment__service_config", [
        {"campaign": k, "spec_type": v[0], "draft_model": v[1], "spec_draft_n_max": 4,
         "spec_draft_n_max_is_default": k == "cumul"} for k, v in cases.items()])
    _table(c, "int_deployment__model_shape", [{"campaign": k, "nextn_layers": v[2]} for k, v in cases.items()])
    models.run_model(c, _model("staging/stg_raw__campaigns.sql"))
    models.run_model(c, _model("intermediate/int_deployment__journal_runs.sql"))
    models.run_model(c, _model("intermediate/int_deployment__draft_statistics.sql"))
    models.run_model(c, _model("intermediate/int_deployment__decoding.sql"))
    return c


def _rows(con, table):
    cur = con.execute(f"select * from {table} order by campaign")
    cols = [d[0] for d in cur.description]
    return {r[0]: dict(zip(cols, r)) for r in cur.fetchall()}


def test_mode_from_the_data(con):
    d = _rows(con, "int_deployment__decoding")
    assert {k: v["decoding_mode"] for k, v in d.items()} == {
        "mtp": "mtp",            # draft statistics and nextn layers in the GGUF
        "draft": "draft_model",  # a draft model configured
        "typed": "ngram",        # the spec type says so
        "plain": "none",         # no draft statistics at all
        "nolog": "mtp",
        "meanlen": "mtp", "stats": "mtp", "cumul": "mtp", "vary": "mtp", "restart": "mtp",
        "cached": "speculative"}


def test_steps_follow_the_mode(con):
    d = _rows(con, "int_deployment__decoding")
    # speculative: 80 drafted / n_max 4 = 20 verify steps of 1 + 4 = 5 positions; 5.0 s / 20
    assert (d["mtp"]["verify_positions"], d["mtp"]["verify_steps"]) == (5, 20)
    assert d["mtp"]["verify_step_s"] == pytest.approx(0.25)
    assert d["mtp"]["tokens_per_step"] == pytest.approx(100 / 20)
    # no speculation: one position and one token per step, 100 steps of 50 ms
    assert (d["plain"]["verify_positions"], d["plain"]["verify_steps"]) == (1, 100)
    assert d["plain"]["verify_step_s"] == pytest.approx(0.05)
    assert d["plain"]["tokens_per_step"] == 1
    # mean len = 1 + accepted / steps: 60 / (2.5 - 1) = 40 steps (not 80 / 4 = 20)
    assert d["meanlen"]["verify_steps"] == 40
    assert d["meanlen"]["verify_step_s"] == pytest.approx(5.0 / 40)


def test_steps_from_the_speculative_statistics_when_they_are_the_tasks_own(con):
    d = _rows(con, "int_deployment__decoding")
    # 25 drafts, each one verify step: 5.0 s / 25 = 0.2 s, 100 tokens / 25 = 4.0 a step
    # (not 80 drafted / n_max 4 = 20)
    assert (d["stats"]["verify_steps"], d["stats"]["steps_basis"]) == (25, "gen drafts in the log")
    assert d["stats"]["verify_step_s"] == pytest.approx(0.2)
    assert d["stats"]["tokens_per_step"] == pytest.approx(4.0)
    # lines: 1 statistics (an earlier task), 2 new prompt, 3 prompt eval, 4 eval, 5 acceptance, 6
    assert d["stats"]["statistics_line"] == 6
    assert (d["restart"]["verify_steps"], d["restart"]["steps_basis"]) == (25, "gen drafts in the log")


def test_a_default_n_max_is_named_and_one_the_statistics_rule_out_is_not_used(con):
    d = _rows(con, "int_deployment__decoding")
    # the statistics agree with n_max 4 (200 / 50 = 4.0): 80 / 4 = 20 steps, from the default
    assert (d["cumul"]["verify_steps"], d["cumul"]["steps_basis"]) == (20, "drafted / default n_max")
    assert d["cumul"]["server_tokens_per_draft"] == pytest.approx(4.0)
    # 200 / 70 = 2.857 tokens per draft: "every step drafts 4" is false, no steps published
    assert d["vary"]["verify_steps"] is None and d["vary"]["verify_step_s"] is None
    assert d["vary"]["steps_basis"] == "not measured"
    # no statistics in the log: drafted / n_max as before, the configured n_max named
    assert d["mtp"]["steps_basis"] == "drafted / n_max"


def test_prefill_window_from_the_new_prompt_line_or_the_timing_block(con):
    r = _rows(con, "int_deployment__journal_runs")
    # with the line: starts at 993.5 and lasts the prompt eval time, 2.0 s
    assert (r["mtp"]["prefill_start_unix_s"], r["mtp"]["prefill_end_unix_s"]) == (993.5, 995.5)
    assert r["mtp"]["prefill_window_basis"] == "new prompt line"
    # without it: the timing block at 1000.0 follows the eval (5.0 s) which follows the
    # prompt eval (2.0 s): the prefill ran from 1000 - 5 - 2 = 993 to 995
    assert (r["nolog"]["prefill_start_unix_s"], r["nolog"]["prefill_end_unix_s"]) == (993.0, 995.0)
    assert r["nolog"]["prefill_window_basis"] == "timing block"
    assert r["nolog"]["prefill_tokens_per_s"] == pytest.approx(1000 / 2.0)


def test_a_prompt_partly_from_the_cache_is_not_called_fresh(con):
    r = _rows(con, "int_deployment__journal_runs")
    # 11,396 prompt tokens - 1,000 evaluated = 10,396 from the slot's cache
    assert (r["cached"]["prompt_tokens"], r["cached"]["cached_tokens"]) == (11396, 10396)
    # 1,000 - 1,000: a fresh prompt; no "new prompt" line: unknown
    assert r["mtp"]["cached_tokens"] == 0
    assert r["nolog"]["cached_tokens"] is None
