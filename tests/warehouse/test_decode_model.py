"""The decode model a deployment uses, tested on hand-made lab series (fct_lab_decode_model), its
row of the summary (fct_pipeline_model_range, model 'decode') and a deployment's decode what-if
with that range (fct_decode_range_what_if). Every expected number is worked by hand beside it."""
from __future__ import annotations

import duckdb
import pytest

from model_runs import dict_rows, run_sql_model
from pipeline_lab import median_error_target, stub_lab_models


_run, _rows = run_sql_model, dict_rows
# a's predictions (worked in test_each_shaped_rate_is_predicted_from_the_unshaped_step); b's
# unshaped step is a's, so its predictions are the same
A25 = 0.00995 + 0.001 + 142_000 / 3e6          # 0.0582833
A100 = 0.00995 + 0.0005 + 142_000 / 1.2e7      # 0.0222833

PARAMS = {"lab_model_range_quantile": 0.5, "lab_target_median_error": 0.05,
          "lab_target_inside_range": 0.5, "lab_target_half_width": 0.06}
# link -> (shaped rate, tbf bucket, TCP bytes/s, RTT s)
LINKS = {"veth": (None, None, 1e9, 0.0001), "tbf25": (25e6, 4000, 3e6, 0.001),
         "tbf100": (100e6, 4000, 1.2e7, 0.0005),
         "tbf8b": (8e6, 65536, 1e6, 0.0008),      # a big bucket a slow rate half fills in the compute
         "nob": (50e6, None, 6e6, 0.0008)}         # its bucket unknown: not predicted
# series -> {link: decode steps of its runs}; both series: 10,000 B to the worker and 140,000 B
# back a step (150,000 B)
SERIES = {
    "a": {"veth": [0.0102], "tbf25": [0.060, 0.061, 0.062], "tbf100": [0.0235], "nob": [0.02]},
    "b": {"veth": [0.0102], "tbf25": [0.058], "tbf100": [0.023], "nob": [0.02]},
    # one direction's bytes only: its step bytes are not measured, so it predicts nothing
    "c": {"veth": [0.0102], "tbf25": [0.05]},
}


@pytest.fixture(scope="module")
def lab():
    con = duckdb.connect()
    con.execute("create table ref_measurement_params (parameter varchar, value varchar)")
    con.executemany("insert into ref_measurement_params values (?, ?)",
                    [(k, str(v)) for k, v in PARAMS.items()])
    con.execute("create table fct_lab_series_campaigns (campaign varchar, series varchar, workers bigint)")
    con.execute("create table int_lab__series_links (campaign varchar, link_id varchar, "
                "shaped_rate_bits_per_s double, shaped_burst_bytes double, tcp_bytes_per_s double, "
                "rtt_avg_s double)")
    con.execute("create table int_lab__series_runs (campaign varchar, link_id varchar, decode_step_s double)")
    con.execute("create table fct_lab_series_traffic (campaign varchar, request varchar, "
                "direction varchar, median_bytes double)")
    for name, runs in SERIES.items():
        con.execute("insert into fct_lab_series_campaigns values (?, ?, 1)", [name, name])
        con.executemany("insert into int_lab__series_links values (?, ?, ?, ?, ?, ?)",
                        [(name, link, *LINKS[link]) for link in runs])
        con.executemany("insert into int_lab__series_runs values (?, ?, ?)",
                        [(name, link, s) for link, steps in runs.items() for s in steps])
        con.execute("insert into fct_lab_series_traffic values (?, 'decode', 'head_to_worker', 10000)", [name])
        if name != "c":
            con.execute("insert into fct_lab_series_traffic values (?, 'decode', 'worker_to_head', 140000)",
                        [name])
    _run(con, "marts/fct_lab_decode_model.sql")
    stub_lab_models(con, "fct_lab_pipeline_model", "fct_lab_snapshot_model")
    _run(con, "marts/fct_pipeline_model_range.sql")
    yield con
    con.close()


def test_each_shaped_rate_is_predicted_from_the_unshaped_step(lab):
    rows = {(r["campaign"], r["link_id"]): r for r in _rows(lab, "select * from fct_lab_decode_model")}
    # the link without a known bucket and series c (one direction counted) are not rows
    assert sorted(rows) == [(s, link) for s in "ab" for link in ("tbf100", "tbf25")]
    a25 = rows[("a", "tbf25")]
    # compute = 0.0102 - RTT 0.0001 - 150,000 / 1e9 = 0.00995
    assert a25["step_bytes"] == 150_000 and a25["compute_s"] == pytest.approx(0.00995)
    # the bucket: min(4,000, 25e6 / 8 x 0.00995 = 31,093.75) = 4,000 free each way
    assert a25["bucket_free_bytes"] == pytest.approx(4000)
    # at 3 MB/s: wire (6,000 + 136,000) / 3e6 = 0.047333; step 0.00995 + 0.001 + 0.047333
    # = 0.058283; measured median 0.061
    assert a25["wire_s"] == pytest.approx(142_000 / 3e6)
    assert a25["predicted_s"] == pytest.approx(0.01095 + 142_000 / 3e6)
    assert (a25["measured_s"], a25["runs"]) == (0.061, 3)
    assert a25["error_fraction"] == pytest.approx(A25 / 0.061 - 1)
    # at 12 MB/s: wire 142,000 / 1.2e7 = 0.011833, step 0.00995 + 0.0005 + 0.011833 = 0.022283
    assert rows[("a", "tbf100")]["predicted_s"] == pytest.approx(A100)
    assert rows[("b", "tbf25")]["error_fraction"] == pytest.approx(A25 / 0.058 - 1)


def test_a_big_bucket_counts_only_what_the_compute_refills():
    """8 Mbit/s refills 1e6 B/s x 0.00995 s = 9,950 B of a 65,536 B bucket during the compute."""
    con = duckdb.connect()
    try:
        con.execute("create table ref_measurement_params as select 'lab_model_range_quantile' as parameter, "
                    "'0.5' as value")
        con.execute("create table fct_lab_series_campaigns as select 'a' as campaign, 'a' as series, "
                    "1::bigint as workers")
        con.execute("create table int_lab__series_links as select * from (values "
                    "('a', 'veth', null::double, null::double, 1e9, 0.0001), "
                    "('a', 'tbf8b', 8e6, 65536.0, 1e6, 0.0008)) as t(campaign, link_id, "
                    "shaped_rate_bits_per_s, shaped_burst_bytes, tcp_bytes_per_s, rtt_avg_s)")
        con.execute("create table int_lab__series_runs as select * from (values "
                    "('a', 'veth', 0.0102), ('a', 'tbf8b', 0.15)) as t(campaign, link_id, decode_step_s)")
        con.execute("create table fct_lab_series_traffic as select * from (values "
                    "('a', 'decode', 'head_to_worker', 10000.0), ('a', 'decode', 'worker_to_head', "
                    "140000.0)) as t(campaign, request, direction, median_bytes)")
        _run(con, "marts/fct_lab_decode_model.sql")
        (r,) = _rows(con, "select * from fct_lab_decode_model")
        assert r["bucket_free_bytes"] == pytest.approx(9950)
        # wire (50 + 130,050) / 1e6 = 0.1301; step 0.00995 + 0.0008 + 0.1301 = 0.14085
        assert r["wire_s"] == pytest.approx(0.1301)
        assert r["predicted_s"] == pytest.approx(0.14085)
        assert r["range_fraction"] is None and r["inside_range"] is None
    finally:
        con.close()


def test_each_series_is_judged_by_the_others(lab):
    rows = {(r["campaign"], r["link_id"]): r for r in _rows(lab, "select * from fct_lab_decode_model")}
    # |errors|: a 0.04454 (25: 1 - 0.058283 / 0.061), 0.05177 (100: 1 - 0.022283 / 0.0235);
    # b 0.00489 (25: 0.058283 / 0.058 - 1), 0.03116 (100: 1 - 0.022283 / 0.023).
    # q = 0.5, two others: the ceil(1.5) = 2nd smallest. a: b's 0.03116; b: a's 0.05177
    assert rows[("a", "tbf25")]["range_fraction"] == pytest.approx(1 - A100 / 0.023)
    assert rows[("b", "tbf25")]["range_fraction"] == pytest.approx(1 - A100 / 0.0235)
    # a at 25: 0.061 > 0.058283 x 1.03116 = 0.060099: out; at 100: 0.0235 > 0.022283 x 1.03116
    # = 0.022978: out. b: 0.058 and 0.023 lie within x (1 +/- 0.05177): in
    inside = {key: r["inside_range"] for key, r in rows.items()}
    assert inside == {("a", "tbf25"): False, ("a", "tbf100"): False, ("b", "tbf25"): True,
                      ("b", "tbf100"): True}


def test_the_summary_row_of_decode(lab):
    (r,) = _rows(lab, "select * from fct_pipeline_model_range")
    assert (r["model"], r["series"], r["rates"], r["exposed_wire_fraction"]) == ("decode", 2, 4, None)
    # sorted |errors| 0.00489, 0.03116, 0.04454, 0.05177: median (0.03116 + 0.04454) / 2
    assert r["median_abs_error_fraction"] == pytest.approx(
        ((1 - A100 / 0.023) + (1 - A25 / 0.061)) / 2)
    # h: k = ceil(0.5 x 5) = 3rd smallest, 0.04454; 2 of 4 inside; widest 0.05177 (b's)
    assert r["range_fraction"] == pytest.approx(1 - A25 / 0.061)
    assert r["inside_range_fraction"] == pytest.approx(0.5)
    assert r["max_range_half_width_fraction"] == pytest.approx(1 - A100 / 0.0235)
    # 0.0379 <= 0.05, 0.5 >= 0.5, 0.0518 <= 0.06
    assert r["meets_targets"] is True


def test_a_deployment_decode_what_if_carries_the_range(lab):
    lab.execute("create or replace table fct_decode_what_if as select * from (values "
                "('d', '1g', '1 GbE', 1, false, 20.0, -0.05, 1, 'captured'), "
                "('d', '2g5', '2.5 GbE', 2, true, 21.0, 0.0, 1, 'captured'), "
                "('d', '10g', '10 GbE', 3, false, 21.5, 0.5 / 21, 1, 'captured')) as t(campaign, "
                "link_class, link_label, sort_order, is_measured, predicted_tokens_per_s, "
                "gain_vs_measured_fraction, parallel_slots, provenance)")
    _run(lab, "marts/fct_decode_range_what_if.sql")
    rows = {r["link_class"]: r for r in _rows(lab, "select * from fct_decode_range_what_if")}
    h = 1 - A25 / 0.061            # the summary's h, 0.04454
    # 10 GbE: 21.5 tok/s, a step within T (1 +/- h), so the rate within 21.5 / (1 +/- h)
    assert rows["10g"]["low_tokens_per_s"] == pytest.approx(21.5 / (1 + h))
    assert rows["10g"]["high_tokens_per_s"] == pytest.approx(21.5 / (1 - h))
    # the gain +2.38 %: (21.5 / 21) / (1 +/- h) - 1 (the rate is 1 / step)
    assert rows["10g"]["gain_low_fraction"] == pytest.approx(21.5 / 21 / (1 + h) - 1)
    assert rows["10g"]["gain_high_fraction"] == pytest.approx(21.5 / 21 / (1 - h) - 1)
    assert rows["2g5"]["low_tokens_per_s"] is None and rows["2g5"]["predicted_tokens_per_s"] == 21.0
    assert (rows["1g"]["model_series"], rows["1g"]["model_rates"]) == (2, 4)
    # a model that misses the targets publishes no range
    with median_error_target(lab, 0.01, ["marts/fct_pipeline_model_range.sql", "marts/fct_decode_range_what_if.sql"]):
        rows = {r["link_class"]: r for r in _rows(lab, "select * from fct_decode_range_what_if")}
        assert rows["10g"]["low_tokens_per_s"] is None and rows["10g"]["model_meets_targets"] is False
        assert rows["10g"]["predicted_tokens_per_s"] == 21.5
