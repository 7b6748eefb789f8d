"""The lab validation (fct_lab_rpc_validation, fct_lab_rpc_runs) on hand-made tables: the model
is calibrated per series on its fastest run and predicts the others by swapping only the wire
time; every expected number is worked by hand next to its assertion."""
from __future__ import annotations

import re
from pathlib import Path

import duckdb
import pytest

from pipeline import models
from pipeline.charts.lab_validation import prefill_validation

ROOT = Path(__file__).resolve().parent.parent

RUN_COLUMNS = ("campaign varchar, series varchar, tcp_bytes_per_s double, rtt_avg_s double, "
               "ubatch_tokens bigint, ubatch_s double, ubatch_bytes double, "
               "prefill_tokens_per_s double, decode_step_s double, decode_step_wire_bytes double, "
               "snapshot_s double, snapshot_bytes double, shaped_rate_bits_per_s bigint, "
               "link_label varchar, source_files varchar[]")


def _run(con, rel: str) -> None:
    path = ROOT / "sql" / rel
    models.run_model(con, models.Model(path, path.read_text()))


def _runs(con, rows):
    con.execute(f"create table fct_lab_rpc_runs ({RUN_COLUMNS})")
    con.executemany(f"insert into fct_lab_rpc_runs values ({', '.join('?' * 15)})", rows)


@pytest.fixture()
def con():
    con = duckdb.connect()
    _runs(con, [
        # series s: the calibration run is B (the highest TCP rate, 100e6 B/s)
        ("A", "s", 10e6, 0.002, 256, 1.28, 9e6, 200.0, 0.07, 2e5, 1.0, 2e7, 80_000_000, "a", []),
        ("B", "s", 100e6, 0.001, 256, 0.5, 10e6, 512.0, 0.05, 1e5, 0.2, 1e7, 800_000_000, "b", []),
        ("C", "s", None, None, 256, 0.6, 10e6, 426.0, 0.06, 1e5, 0.3, 1e7, None, "c", []),
        # series t: one run, slower than A, calibrated on itself (never on B)
        ("D", "t", 1e6, 0.010, 128, 2.0, 1e6, 64.0, 0.5, 1e4, 5.0, 1e6, 8_000_000, "d", []),
    ])
    _run(con, "marts/fct_lab_rpc_validation.sql")
    yield con
    con.close()


def _row(con, campaign, quantity):
    cur = con.execute("select * from fct_lab_rpc_validation where campaign = ? and quantity = ?",
                      [campaign, quantity])
    names = [d[0] for d in cur.description]
    return dict(zip(names, cur.fetchone()))


def test_prefill_is_predicted_by_swapping_only_the_wire_time(con):
    a = _row(con, "A", "prefill")
    # B: ubatch 0.5 s, its wire time 10e6 B / 100e6 B/s = 0.1 s, residual 0.4 s. A with B's
    # bytes: 0.4 + 10e6 / 10e6 = 1.4 s a ubatch -> 256 / 1.4 = 182.857 tok/s (A's own bytes,
    # 9e6, are not used); measured 200 -> error 182.857 / 200 - 1 = -0.085714
    assert a["calibration_campaign"] == "B" and not a["is_calibration"]
    assert a["predicted"] == pytest.approx(256 / 1.4)
    assert a["predicted_wire_s"] == pytest.approx(1.0)
    assert a["error_fraction"] == pytest.approx(256 / 1.4 / 200 - 1)
    assert a["tcp_bits_per_s"] == pytest.approx(80e6)


def test_decode_adds_the_round_trip_of_the_run(con):
    a = _row(con, "A", "decode step")
    # B: 0.05 - RTT 0.001 - 1e5 / 1e8 = 0.048 s residual; A: 0.048 + RTT 0.002 + 1e5 / 1e7 = 0.06 s
    # against 0.07 measured -> -0.142857
    assert a["predicted"] == pytest.approx(0.06)
    assert a["error_fraction"] == pytest.approx(0.06 / 0.07 - 1)


def test_the_snapshot_copies_the_calibration_bytes_at_the_run_rate(con):
    a = _row(con, "A", "KV snapshot")
    # B: 0.2 - 1e7 / 1e8 = 0.1 s residual; A: 0.1 + 1e7 / 1e7 = 1.1 s against 1.0 -> +0.1
    assert a["predicted"] == pytest.approx(1.1)
    assert a["error_fraction"] == pytest.approx(0.1)


def test_the_calibration_run_predicts_itself(con):
    for quantity in ("prefill", "decode step", "KV snapshot"):
        b = _row(con, "B", quantity)
        assert b["is_calibration"] and b["error_fraction"] == pytest.approx(0.0, abs=1e-12)
        assert not b["is_largest_error"]


def test_a_run_without_a_tcp_rate_is_kept_unpredicted(con):
    c = _row(con, "C", "prefill")
    assert c["measured"] == 426.0
    assert c["predicted"] is None and c["error_fraction"] is None and not c["is_largest_error"]


def test_series_are_not_pooled(con):
    d = _row(con, "D", "prefill")
    # D is the only run of series t: calibrated on itself, although B is faster
    assert d["calibration_campaign"] == "D" and d["is_calibration"]
    assert d["predicted"] == pytest.approx(64.0)


def test_the_largest_error_is_named_per_quantity(con):
    rows = con.execute("select series, quantity, campaign, predicted_runs from fct_lab_rpc_validation "
                       "where is_largest_error order by series, sort_order").fetchall()
    # series s: A is the only predicted run (C has no rate, B is the calibration); t: none
    assert rows == [("s", "prefill", "A", 1), ("s", "decode step", "A", 1),
                    ("s", "KV snapshot", "A", 1)]


def test_the_chart_draws_each_run_at_its_rate_and_value(con):
    svg = prefill_validation(con)
    groups = dict(re.findall(r'<g data-series="([^"]+)">(.*?)</g>', svg, re.S))
    marks = {name: re.findall(r'translate\(([\d.]+) ([\d.]+)\)', body) for name, body in groups.items()}
    # series s: measured at A, B, C? no: C has no TCP rate, so it has no x; A and B are drawn
    assert len(marks["measured, s"]) == 2 and len(marks["predicted, s"]) == 2
    assert len(marks["measured, t"]) == 1
    xa, ya = map(float, marks["measured, s"][0])
    xb, yb = map(float, marks["measured, s"][1])
    # rows in rate order (A 80 Mbit/s before B 800 Mbit/s): left of B; A's 200 tok/s above
    # the axis by less than B's 512 tok/s (SVG y grows downwards)
    assert xa < xb and ya > yb
    # B's predicted point is its measured point (the calibration)
    assert marks["predicted, s"][1] == marks["measured, s"][1]


def test_the_verdict_says_which_way_the_model_errs(con):
    verdicts = dict(con.execute("select quantity, model_verdict from fct_lab_rpc_validation "
                                "where campaign = 'A'").fetchall())
    # A: prefill predicted 182.9 < 200 tok/s measured: slower than it ran -> pessimistic;
    # decode 0.06 < 0.07 s measured: a shorter step than it took -> optimistic;
    # snapshot 1.1 > 1.0 s: longer than it took -> pessimistic
    assert verdicts == {"prefill": "pessimistic", "decode step": "optimistic",
                        "KV snapshot": "pessimistic"}
    assert con.execute("select count(*) from fct_lab_rpc_validation where is_calibration "
                       "and model_verdict is not null").fetchone() == (0,)


def test_the_time_charts_are_drawn_in_milliseconds(con):
    from pipeline.charts.lab_validation import decode_validation
    svg = decode_validation(con)
    # decode steps 0.07, 0.05, 0.5 s (D) -> 70, 50, 500 ms: the y axis tops at 500 (ticks of
    # 100), where seconds would top at 0.5
    ticks = re.findall(r'text-anchor="end"[^>]*>([^<]+)</text>', svg)
    assert ticks == ["0", "100", "200", "300", "400", "500"]
