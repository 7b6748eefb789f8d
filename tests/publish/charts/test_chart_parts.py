"""The charts' small parts, value by value: round axis tops, tick labels, word wrapping, the
Gbit/s cell format, series names and styles, fit lines, and how chart modules are found."""
from __future__ import annotations

import re
import sys

import duckdb
import pytest

from pipeline.publish.charts import discover_charts
from pipeline.publish.charts import point_to_point as p2p
from pipeline.publish.charts import svg as toolkit

import chart_marts


@pytest.mark.parametrize("top, nice", [
    # the smallest 1 / 2 / 2.5 / 5 / 10 x 10^n, times 5, at or above top
    (1.0, 1.0),        # 10^-1 steps: 0.5, 1.0
    (12.0, 12.5),      # 5, 10, 12.5
    (22.0, 25.0),      # 5, 10, 12.5, 25
    (30.0, 50.0),      # ... 25, 50 (no 6 x 5)
    (50.0, 50.0),
    (0.3, 0.5),        # 10^-2 steps: 0.05, 0.1, 0.125, 0.25, 0.5
])
def test_an_axis_tops_at_a_round_number(top, nice):
    assert toolkit.nice(top) == pytest.approx(nice)


@pytest.mark.parametrize("value, shown", [
    (0.0, "0"), (0.5, "0.5"), (2.0, "2"), (0.1 + 0.2, "0.3"), (0.04, "0.04"), (1480.0, "1480"),
    (123456.7, "123457"),
])
def test_a_tick_is_written_with_up_to_six_significant_digits(value, shown):
    assert toolkit.tick(value) == shown


def test_small_values_get_ticks_that_differ():
    con = duckdb.connect()
    chart_marts.tc_times(con, rows=[("nccl", 2**20, 0.0, 1e8, 0.0021), ("nccl", 2**20, 0.0, 2e8, 0.0012)],
                         fits=[("nccl", 2**20, 0.001, None)])
    svg = p2p.time_vs_cap(con)
    # y: 2.1 ms tops at 2.5 (steps of 0.5); x: caps of 0.1 and 0.2 Gbit/s, 5 steps of 0.04
    assert re.findall(r'text-anchor="end"[^>]*>([^<]+)<', svg) == ["0", "0.5", "1", "1.5", "2", "2.5"]
    assert re.findall(r'text-anchor="middle"[^>]*>([\d.]+)<', svg) == \
        ["0", "0.04", "0.08", "0.12", "0.16", "0.2"]


def test_words_wrap_exactly_at_the_width():
    # "aaaa bbbb" is 9 characters: it fits in 9 characters' width, not in 8.99
    assert toolkit.wrap("aaaa bbbb", 9 * toolkit.CHAR_PX) == ["aaaa bbbb"]
    assert toolkit.wrap("aaaa bbbb", 8.99 * toolkit.CHAR_PX) == ["aaaa", "bbbb"]
    assert toolkit.wrap("a-very-long-word b", 3 * toolkit.CHAR_PX) == ["a-very-long-word", "b"]
    assert toolkit.wrap("", 100) == [""]


@pytest.mark.parametrize("bps, shown", [
    (9.994e9, "9.99"), (10e9, "10.0"), (10.5e9, "10.5"), (12.34e9, "12.3"), (0.85e9, "0.85"),
])
def test_a_phone_cell_writes_gbit_in_four_characters(bps, shown):
    assert p2p._gbit(bps) == shown


@pytest.mark.parametrize("bps, shown", [(1e9, "1.00 G"), (2.345e9, "2.35 G"), (999e6, "999 M"),
                                        (4.6e8, "460 M")])
def test_a_full_width_cell_writes_m_or_g(bps, shown):
    assert p2p._rate(bps) == shown


def test_a_backend_we_do_not_name_keeps_its_own_name():
    assert p2p._series_key({"backend": "mpi", "size_bytes": 3 * 2**20}) == "mpi 3 MiB"
    assert p2p._series_key({"backend": "nccl", "size_bytes": 2**20}) == "NCCL 1 MiB"


def test_a_fit_line_is_drawn_only_for_a_series_on_the_chart():
    con = duckdb.connect()
    mib = 2**20
    chart_marts.tc_times(con, rows=[("nccl", mib, 0.0, None, 0.01), ("nccl", mib, 0.02, None, 0.05)],
                         fits=[("nccl", mib, 0.01, 2.0), ("gloo", mib, 0.02, 3.0),
                               ("nccl", 4 * mib, 0.01, 1.0)])
    svg = p2p.time_vs_delay(con)
    dashed = re.findall(r'<polyline points="([^"]+)"[^>]*stroke-dasharray', svg)
    # one fit (NCCL 1 MiB): from (0, 10 ms) to (20 ms, 10 + 2 x 20 = 50 ms), the chart's own
    # top point (20, 50): the same place as the series' last marker
    assert len(dashed) == 1
    last = re.findall(r'translate\(([\d.]+) ([\d.]+)\)', svg)[-2]      # [-1]: the legend's
    assert dashed[0].split()[-1] == ",".join(last)


def test_the_ninth_series_repeats_the_first_ones_marker():
    con = duckdb.connect()
    mib = 2**20
    rows = [(b, k * mib, d, None, 0.01 + d) for k in (1, 2, 4, 8, 16) for b in ("gloo", "nccl")
            for d in (0.0, 0.01)]
    chart_marts.tc_times(con, rows=rows, fits=[("nccl", mib, 0.01, None)])
    legend = re.findall(r'<path data-legend="1" transform="[^"]+" d="([^"]+)" fill="([^"]+)" '
                        r'stroke="([^"]+)"', p2p.time_vs_delay(con))
    assert len(legend) == 10
    shape = [(d, fill == stroke) for d, fill, stroke in legend]
    # four shapes filled, the same four hollow, then filled again
    assert shape[8] == shape[0] and shape[4] == (shape[0][0], False) and shape[0][1]


# --- discover_charts -------------------------------------------------------------------------

def test_a_private_module_or_one_without_charts_adds_nothing(tmp_path, monkeypatch):
    import pipeline.publish.charts as charts
    (tmp_path / "_private.py").write_text("raise RuntimeError('a private module was imported')\n")
    (tmp_path / "aaa_no_charts.py").write_text("X = 1\n")
    monkeypatch.setattr(charts, "__path__", [*charts.__path__, str(tmp_path)])
    try:
        names = [c.name for c in discover_charts()]
    finally:
        sys.modules.pop("pipeline.publish.charts.aaa_no_charts", None)
    # "_private" sorts before every other module: skipping it must not end the search
    assert len(names) == 15 and names[0] == "ebm_prefill_utilisation"


# --- value labels that take turns ------------------------------------------------------------

def test_a_label_takes_the_first_free_place():
    from pipeline.publish.charts.labels import Placer, text_box
    placer = Placer([(0.0, 100.0, 200.0, 120.0)])          # the tick labels' strip
    # "abc" is 3 x 6.4 = 19.2 px wide, 11 px tall
    assert text_box("abc", 50.0, 20.0, "middle") == pytest.approx((40.4, 11.5, 59.6, 22.5))
    assert placer.place("abc", [(50.0, 20.0, "middle"), (50.0, 40.0, "middle")]) == (50.0, 20.0, "middle")
    # the same place again is taken: the next candidate
    assert placer.place("abd", [(50.0, 20.0, "middle"), (50.0, 40.0, "middle")]) == (50.0, 40.0, "middle")
    assert text_box("abc", 50.0, 20.0, "end") == pytest.approx((30.8, 11.5, 50.0, 22.5))
    assert text_box("abc", 50.0, 20.0, "start") == pytest.approx((50.0, 11.5, 69.2, 22.5))
    # boxes that only touch do not overlap: "aaaaa" is 5 x 6.4 = 32 px from 300 to 332; the
    # next starts at 332, one under it starts where it ends (22.5), one left of it ends at 300
    far = (0.0, 90.0, "start")
    assert placer.place("aaaaa", [(300.0, 20.0, "start"), far]) == (300.0, 20.0, "start")
    assert placer.place("bbbbb", [(332.0, 20.0, "start"), far]) == (332.0, 20.0, "start")
    assert placer.place("ccccc", [(300.0, 31.0, "start"), far]) == (300.0, 31.0, "start")
    assert placer.place("ddddd", [(300.0, 9.0, "start"), far]) == (300.0, 9.0, "start")
    assert placer.place("eeeee", [(300.0, 42.0, "end"), far]) == (300.0, 42.0, "end")
    # nothing free (the strip, then the first label): the first candidate all the same
    assert placer.place("abc", [(50.0, 110.0, "middle"), (50.0, 20.0, "end")]) == (50.0, 110.0, "middle")
