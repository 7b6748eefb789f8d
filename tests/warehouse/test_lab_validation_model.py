"""The lab validation (fct_lab_rpc_validation, fct_lab_rpc_runs) on hand-made tables: the model
is calibrated per series on its fastest run and predicts the others by swapping only the wire
time; every expected number is worked by hand next to its assertion."""
from __future__ import annotations

import math
import re

import duckdb
import pytest

from pipeline.publish.charts.lab_validation import prefill_validation
from pipeline.warehouse import models

from paths import REPO

ROOT = REPO

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
    from pipeline.publish.charts.lab_validation import decode_validation
    svg = decode_validation(con)
    # decode steps 0.07, 0.05, 0.5 s (D) -> 70, 50, 500 ms: the y axis tops at 500 (ticks of
    # 100), where seconds would top at 0.5
    ticks = re.findall(r'text-anchor="end"[^>]*>([^<]+)</text>', svg)
    assert ticks == ["0", "100", "200", "300", "400", "500"]


# --- the chart on a hand-made validation table -------------------------------------------

def _validation_table(rows):
    con = duckdb.connect()
    con.execute("create table fct_lab_rpc_validation (series varchar, campaign varchar, "
                "quantity varchar, tcp_bits_per_s double, measured double, predicted double)")
    con.executemany("insert into fct_lab_rpc_validation values (?, ?, ?, ?, ?, ?)", rows)
    return con


VALIDATION = [
    # series s: three runs a decade apart (8, 80, 800 Mbit/s)
    ("s", "s1", "prefill", 8e6, 100.0, 110.0),
    ("s", "s2", "prefill", 80e6, 300.0, 290.0),
    ("s", "s3", "prefill", 800e6, 400.0, 400.0),
    ("s", "s2", "decode step", 80e6, 0.9, 0.8),            # another quantity: not on this chart
    ("s", "s4", "prefill", None, 999.0, 999.0),            # no TCP rate: no x, not drawn
    # series t: one run, not predicted
    ("t<&>", "t1", "prefill", 80e6, 50.0, None),        # a name to escape
]


def _points(svg: str) -> dict[str, list[tuple[float, float]]]:
    groups = re.findall(r'<g data-series="([^"]+)">(.*?)</g>', svg, re.S)
    return {name: [tuple(map(float, p)) for p in re.findall(r'translate\(([\d.]+) ([\d.]+)\)', body)]
            for name, body in groups}


def _axes(svg: str):
    """The chart's own scales, read from its tick labels: x of a rate (log), y of a value."""
    texts = re.findall(r'<text x="([\d.]+)" y="([\d.]+)" text-anchor="(\w+)"[^>]*>([^<]*)</text>', svg)
    yticks = {float(label): float(y) - 4 for x, y, anchor, label in texts
              if anchor == "end" and re.fullmatch(r"[\d.]+", label)}
    base, top_value = yticks[0.0], max(yticks)
    xaxis_y = max(float(y) for _, y, a, label in texts if a == "middle" and re.fullmatch(r"\d+", label))
    xticks = {float(label): float(x) for x, y, a, label in texts
              if a == "middle" and float(y) == xaxis_y}
    (a, xa), (b, xb) = min(xticks.items()), max(xticks.items())
    sx = lambda mbit: xa + (xb - xa) * math.log10(mbit / a) / math.log10(b / a)   # noqa: E731
    sy = lambda v: base - (base - yticks[top_value]) * v / top_value          # noqa: E731
    return sx, sy, sorted(yticks), sorted(xticks)


def test_the_validation_chart_draws_each_runs_values_at_its_rate():
    from pipeline.publish.charts.lab_validation import validation
    svg = validation(_validation_table(VALIDATION), "prefill", "T", "prefill (tok/s)")
    sx, sy, yticks, xticks = _axes(svg)
    # values up to 400: the axis tops at 500 (_nice: 5 steps of 100), ticks every 100
    assert yticks == [0.0, 100.0, 200.0, 300.0, 400.0, 500.0]
    # rates 8 .. 800 Mbit/s padded by 8 % of the two decades each side: 5.5 .. 1156 Mbit/s,
    # so the 1-2-5 ticks from 10 to 1000
    assert xticks == [10.0, 20.0, 50.0, 100.0, 200.0, 500.0, 1000.0]
    points = _points(svg)
    assert list(points) == ["predicted, s", "measured, s", "predicted, t&lt;&amp;&gt;",
                            "measured, t&lt;&amp;&gt;"]
    want = {"predicted, s": [(8, 110), (80, 290), (800, 400)],
            "measured, s": [(8, 100), (80, 300), (800, 400)],
            "predicted, t&lt;&amp;&gt;": [], "measured, t&lt;&amp;&gt;": [(80, 50)]}
    for name, expected in want.items():
        assert len(points[name]) == len(expected), name
        for (x, y), (mbit, v) in zip(points[name], expected):
            assert abs(x - sx(mbit)) < 0.15 and abs(y - sy(v)) < 0.15, (name, mbit, v)
    # predicted points joined by a dashed line; a series with one or no prediction has none
    assert svg.count("<polyline") == 1
    # measured filled, predicted hollow, each series in its own colour; the legend says which
    marks = dict(re.findall(r'<g data-series="([^"]+)">\s*(?:<polyline[^>]*>\s*)?<path[^>]*fill="(#\w+)"', svg))
    assert marks == {"predicted, s": "#ffffff", "measured, s": "#1f77b4",
                     "measured, t&lt;&amp;&gt;": "#ff7f0e"}
    legend = re.findall(r'data-legend="1"[^>]*/>\s*<text[^>]*>([^<]*)</text>', svg)
    assert legend == list(points)


def test_the_phone_chart_has_a_tick_a_decade_and_the_legend_under_the_plot():
    from pipeline.publish.charts.lab_validation import validation
    svg = validation(_validation_table(VALIDATION), "prefill", "T", "prefill (tok/s)", narrow=True)
    sx, sy, _, xticks = _axes(svg)
    assert xticks == [10.0, 100.0, 1000.0]
    assert re.search(r'<svg[^>]*width="340"', svg)
    points = _points(svg)
    for (x, y), (mbit, v) in zip(points["measured, s"], [(8, 100), (80, 300), (800, 400)]):
        assert abs(x - sx(mbit)) < 0.15 and abs(y - sy(v)) < 0.15
    # the legend's markers one a line under the plot, at the same x
    legend = [tuple(map(float, m)) for m in re.findall(
        r'data-legend="1" transform="translate\(([\d.]+) ([\d.]+)\)', svg)]
    assert len(legend) == 4 and len({x for x, _ in legend}) == 1
    assert [b - a for (_, a), (_, b) in zip(legend, legend[1:])] == [16.0, 16.0, 16.0]
    assert min(y for _, y in legend) > sy(0)


def test_a_quantity_in_seconds_is_drawn_in_milliseconds_by_its_scale():
    from pipeline.publish.charts.lab_validation import validation
    svg = validation(_validation_table(VALIDATION), "decode step", "T", "ms", 1e3)
    sx, sy, _, _ = _axes(svg)
    points = _points(svg)
    assert list(points) == ["predicted, s", "measured, s"]
    (px, py), (mx, my) = points["predicted, s"][0], points["measured, s"][0]
    assert abs(py - sy(800)) < 0.15 and abs(my - sy(900)) < 0.15 and px == mx
    # 0.9 s measured -> 900 ms, 0.8 s predicted -> 800 ms: the axis tops at 1000 (_nice(900))
    ticks = re.findall(r'text-anchor="end"[^>]*>([^<]+)</text>', svg)
    assert ticks == ["0", "200", "400", "600", "800", "1000"]


def test_no_run_with_a_rate_draws_empty_axes():
    from pipeline.publish.charts.lab_validation import validation
    svg = validation(_validation_table([("s", "s4", "prefill", None, 1.0, 1.0)]), "prefill", "T", "y")
    assert _points(svg) == {} and "<polyline" not in svg
    # the default decade 10 .. 1000 Mbit/s, padded half a decade: ticks 10 to 1000 (1-2-5)
    assert _axes(svg)[3] == [10.0, 20.0, 50.0, 100.0, 200.0, 500.0, 1000.0]


def test_a_series_with_one_prediction_has_no_line():
    from pipeline.publish.charts.lab_validation import validation
    svg = validation(_validation_table([("s", "a", "prefill", 8e6, 10.0, 12.0),
                                        ("s", "b", "prefill", 80e6, 20.0, None)]), "prefill", "T", "y")
    assert len(_points(svg)["predicted, s"]) == 1 and "<polyline" not in svg


def test_decade_ticks_include_both_ends():
    from pipeline.publish.charts.svg import decade_ticks as _decade_ticks
    assert _decade_ticks(10, 1000) == [10, 20, 50, 100, 200, 500, 1000]
    assert _decade_ticks(10, 1000, (1,)) == [10, 100, 1000]
    assert _decade_ticks(2, 4.9) == [2]
    assert _decade_ticks(0.5, 0.5) == [0.5]
