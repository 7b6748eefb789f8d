"""The KV snapshot model a deployment uses, tested on hand-made lab series (fct_lab_snapshot_model),
its row of the summary (fct_pipeline_model_range, model 'snapshot') and a deployment's snapshot
what-if with that range (fct_kv_snapshot_range_what_if). Every expected number is worked by
hand beside it."""
from __future__ import annotations

import duckdb
import pytest

from model_runs import dict_rows, run_sql_model
from pipeline_lab import median_error_target, stub_lab_models


PARAMS = {"lab_model_range_quantile": 0.5, "lab_target_median_error": 0.1,
          "lab_target_inside_range": 0.6, "lab_target_half_width": 0.2}
# link -> (shaped rate, TCP bytes/s)
LINKS = {"veth": (None, 1e9), "t10": (80e6, 1e7), "t20": (160e6, 2e7)}
# series -> {link: snapshot times of its runs}; x2 has two workers and is left out
SERIES = {
    "a": {"veth": [0.02], "t10": [1.0, 1.1, 0.9], "t20": [0.55]},
    "b": {"veth": [0.02], "t10": [1.0], "t20": [0.5]},
    "c": {"veth": [0.02], "t10": [1.2], "t20": [0.5]},
    "x2": {"veth": [0.02], "t10": [9.0], "t20": [0.1]},
}


@pytest.fixture(scope="module")
def lab():
    con = duckdb.connect()
    con.execute("create table ref_measurement_params (parameter varchar, value varchar)")
    con.executemany("insert into ref_measurement_params values (?, ?)", [(k, str(v)) for k, v in PARAMS.items()])
    con.execute("create table fct_lab_series_campaigns (campaign varchar, series varchar, workers bigint)")
    con.execute("create table int_lab__series_links (campaign varchar, link_id varchar, "
                "shaped_rate_bits_per_s double, tcp_bytes_per_s double)")
    con.execute("create table int_lab__series_runs (campaign varchar, link_id varchar, snapshot_s double)")
    for name, runs in SERIES.items():
        con.execute("insert into fct_lab_series_campaigns values (?, ?, ?)", [name, name, 2 if name == "x2" else 1])
        con.executemany("insert into int_lab__series_links values (?, ?, ?, ?)",
                        [(name, link, *LINKS[link]) for link in runs])
        con.executemany("insert into int_lab__series_runs values (?, ?, ?)",
                        [(name, link, s) for link, times in runs.items() for s in times])
    run_sql_model(con, "marts/fct_lab_snapshot_model.sql")
    # no prefill or decode rates here (their own tests have them): the summary's snapshot row
    stub_lab_models(con, "fct_lab_pipeline_model", "fct_lab_decode_model")
    run_sql_model(con, "marts/fct_pipeline_model_range.sql")
    yield con
    con.close()


def _pairs(con) -> dict:
    return {(r["campaign"], r["anchor_link_id"], r["link_id"]): r
            for r in dict_rows(con, "select * from fct_lab_snapshot_model")}


def test_every_shaped_link_predicts_the_others_of_its_series(lab):
    rows = _pairs(lab)
    # two shaped links a series: each predicts the other; the unshaped link and x2 are no rows
    assert sorted(rows) == [(s, a, b) for s in "abc" for a, b in (("t10", "t20"), ("t20", "t10"))]
    r = rows[("a", "t10", "t20")]
    # a measured 1.0 s (median of 0.9, 1.0, 1.1) at 1e7 B/s: at 2e7 B/s, 1.0 x 1e7 / 2e7 = 0.5;
    # measured 0.55: error 0.5 / 0.55 - 1 = -9.09 %
    assert (r["anchor_s"], r["anchor_tcp_bits_per_s"], r["tcp_bits_per_s"]) == (1.0, 8e7, 1.6e8)
    assert r["predicted_s"] == pytest.approx(0.5) and r["measured_s"] == 0.55
    assert r["error_fraction"] == pytest.approx(0.5 / 0.55 - 1)
    # back: 0.55 x 2 = 1.1 against 1.0 (+10 %); c: 1.2 x 0.5 = 0.6 against 0.5 (+20 %) and
    # 0.5 x 2 = 1.0 against 1.2 (-16.67 %); b exact both ways
    assert rows[("a", "t20", "t10")]["error_fraction"] == pytest.approx(0.1)
    assert rows[("c", "t10", "t20")]["error_fraction"] == pytest.approx(0.2)
    assert rows[("c", "t20", "t10")]["error_fraction"] == pytest.approx(1 / 1.2 - 1)
    assert rows[("b", "t10", "t20")]["error_fraction"] == pytest.approx(0)


def test_each_series_is_judged_by_a_range_made_without_it(lab):
    rows = _pairs(lab)
    # q = 0.5, 4 other errors: k = ceil(0.5 x 5) = 3rd smallest
    # a: b's 0, 0 and c's 0.1667, 0.2 -> 0.1667; 0.55 in 0.5 x (1 +/- 0.1667) = 0.4167 .. 0.5833
    assert rows[("a", "t10", "t20")]["range_fraction"] == pytest.approx(1 - 1 / 1.2)
    assert rows[("a", "t10", "t20")]["inside_range"] is True
    # c: a's 0.0909, 0.1 and b's 0, 0 -> 0.0909; 0.5 is below 0.6 x (1 - 0.0909) = 0.5455: out
    assert rows[("c", "t10", "t20")]["range_fraction"] == pytest.approx(1 - 0.5 / 0.55)
    assert rows[("c", "t10", "t20")]["inside_range"] is False
    # per series: a's two |errors| 0.0909 and 0.1, both inside; c's none inside
    a = rows[("a", "t20", "t10")]
    assert a["series_predictions"] == 2
    assert a["series_median_abs_error_fraction"] == pytest.approx((1 - 0.5 / 0.55 + 0.1) / 2)
    assert a["series_max_abs_error_fraction"] == pytest.approx(0.1)
    assert a["series_inside_range_fraction"] == 1
    assert rows[("c", "t20", "t10")]["series_inside_range_fraction"] == 0


def test_the_summary_row(lab):
    (r,) = dict_rows(lab, "select * from fct_pipeline_model_range")
    # |errors| sorted: 0, 0, 0.0909, 0.1, 0.1667, 0.2
    assert (r["model"], r["series"], r["rates"]) == ("snapshot", 3, 6)
    assert r["median_abs_error_fraction"] == pytest.approx((1 - 0.5 / 0.55 + 0.1) / 2)
    assert r["max_abs_error_fraction"] == pytest.approx(0.2)
    # h: k = ceil(0.5 x 7) = 4th smallest = 0.1; a and b inside (4 of 6); widest: a's 0.1667
    assert r["range_fraction"] == pytest.approx(0.1)
    assert r["inside_range_fraction"] == pytest.approx(4 / 6)
    assert r["max_range_half_width_fraction"] == pytest.approx(1 - 1 / 1.2)
    # 0.0955 <= 0.1, 0.667 >= 0.6, 0.1667 <= 0.2
    assert r["meets_targets"] is True


def test_a_deployment_snapshot_carries_the_range_only_while_the_model_meets_the_targets(lab):
    lab.execute("create table fct_kv_snapshot_what_if as select * from (values "
                "('d', '1gbe', '1 GbE', 1, false, 34.0::double), ('d', '2.5gbe', '2.5 GbE', 2, true, 13.6)) "
                "as t(campaign, link_class, link_label, sort_order, is_measured, duration_s)")
    run_sql_model(lab, "marts/fct_kv_snapshot_range_what_if.sql")
    rows = {r["link_class"]: r for r in dict_rows(lab, "select * from fct_kv_snapshot_range_what_if")}
    # h = 0.1: 34 x 0.9 = 30.6 to 34 x 1.1 = 37.4; the measured class has no range
    assert (rows["1gbe"]["low_s"], rows["1gbe"]["high_s"]) == (pytest.approx(30.6), pytest.approx(37.4))
    assert rows["2.5gbe"]["low_s"] is None and rows["2.5gbe"]["duration_s"] == 13.6
    assert (rows["1gbe"]["model_series"], rows["1gbe"]["model_predictions"]) == (3, 6)
    # a 9 % median target is missed (9.55 %): no range anywhere, the durations stay
    with median_error_target(lab, 0.09, ["marts/fct_pipeline_model_range.sql",
                                         "marts/fct_kv_snapshot_range_what_if.sql"]):
        rows = {r["link_class"]: r for r in dict_rows(lab, "select * from fct_kv_snapshot_range_what_if")}
        assert rows["1gbe"]["low_s"] is None and rows["1gbe"]["model_meets_targets"] is False
        assert rows["1gbe"]["duration_s"] == 34.0
