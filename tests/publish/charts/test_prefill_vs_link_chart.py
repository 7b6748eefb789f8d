"""The deployment page's "prefill against link speed" chart (pipeline/publish/charts/
ethernet_bandwidth_math.py, ``prefill_vs_link``) draws the mart's rows: each campaign's predicted
points at their link's rate and value, read back against the chart's own tick scales, the
measured one marked and labelled, on hand-made ``fct_prefill_what_if`` rows."""
from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET

import duckdb
import pytest

from pipeline.publish.charts.ethernet_bandwidth_math import prefill_vs_link

SVG = "{http://www.w3.org/2000/svg}"
# campaign, link label, line rate, measured here?, predicted tok/s, measured tok/s (the mart
# repeats the campaign's measured rate on each of its rows), order
ROWS = [
    ("c1", "1 GbE", 1e9, False, 100.0, 380.5, 1),
    ("c1", "10 GbE", 1e10, True, 400.0, 380.5, 2),
    ("c1", "25 GbE", 2.5e10, False, 450.0, 380.5, 3),
    ("c2", "1 GbE", 1e9, True, 50.0, 48.0, 1),
    ("c2", "10 GbE", 1e10, False, 60.0, 48.0, 2),
    ("c2", "25 GbE", 2.5e10, False, 61.0, 48.0, 3),
]


@pytest.fixture
def con():
    con = duckdb.connect()
    con.execute("create table fct_prefill_what_if (campaign varchar, link_label varchar, "
                "line_rate_bits_per_s double, is_measured boolean, predicted_tokens_per_s double, "
                "measured_tokens_per_s double, sort_order int)")
    con.executemany("insert into fct_prefill_what_if values (?, ?, ?, ?, ?, ?, ?)", ROWS)
    return con


def _read(svg: str):
    root = ET.fromstring(svg)
    texts = [dict(e.attrib, text=e.text) for e in root.iter(SVG + "text")]
    yticks = {float(t["text"]): float(t["y"]) - 4 for t in texts
              if t.get("text-anchor") == "end" and re.fullmatch(r"\d+", t["text"] or "")}
    xticks = {t["text"]: float(t["x"]) for t in texts if t["text"] in ("1", "10", "25")}
    top = max(yticks)
    sy = lambda v: yticks[0] - (yticks[0] - yticks[top]) * v / top        # noqa: E731
    circles = [(float(c.get("cx")), float(c.get("cy")), c.get("fill")) for c in root.iter(SVG + "circle")]
    return root, texts, xticks, yticks, sy, circles


@pytest.mark.parametrize("narrow", [False, True])
def test_each_prediction_is_a_point_at_its_rate_and_value(con, narrow):
    root, texts, xticks, yticks, sy, circles = _read(prefill_vs_link(con, narrow=narrow))
    # values up to 450: the axis tops at 500 (_nice), a tick every 100
    assert sorted(yticks) == [0, 100, 200, 300, 400, 500]
    # the rates' own ticks, in Gbit/s, on a log scale: 1 -> 10 is a decade, 10 -> 25 is 0.398 of one
    assert math.isclose((xticks["25"] - xticks["10"]) / (xticks["10"] - xticks["1"]),
                        math.log10(2.5), abs_tol=0.003)
    x_of = {1e9: xticks["1"], 1e10: xticks["10"], 2.5e10: xticks["25"]}
    # each rate's link name under its tick
    for tick, name in (("1", "1 GbE"), ("10", "10 GbE"), ("25", "25 GbE")):
        (under,) = [t for t in texts if t["text"] == name]
        assert abs(float(under["x"]) - xticks[tick]) < 0.06
    colour = {"c1": "#1f77b4", "c2": "#2ca02c"}
    assert len(circles) == len(ROWS)
    for (campaign, _, rate, _, predicted, _, _), (cx, cy, fill) in zip(ROWS, circles):
        assert abs(cx - x_of[rate]) < 0.06 and abs(cy - sy(predicted)) < 0.15 and fill == colour[campaign]
        (label,) = [t["text"] for t in texts if abs(float(t["x"]) - cx) < 0.06
                    and abs(float(t["y"]) - (cy - 10)) < 0.06]
        assert label == f"{predicted:.0f}"
    lines = [p.get("points") for p in root.iter(SVG + "polyline")]
    assert len(lines) == 2                                     # one line a campaign, through its points
    for line, first in zip(lines, (0, 3)):
        pts = [tuple(map(float, p.split(","))) for p in line.split()]
        assert [(round(x, 1), round(y, 1)) for x, y in pts] == \
            [(round(cx, 1), round(cy, 1)) for cx, cy, _ in circles[first:first + 3]]
    legend = [t["text"] for t in texts if (t["text"] or "").startswith(("predicted,", "measured ("))]
    assert legend == ["predicted, c1", "predicted, c2", "measured (journal)"]


def test_the_measured_run_is_marked_at_its_own_value_and_labelled(con):
    root, texts, xticks, _, sy, _ = _read(prefill_vs_link(con))
    marks = [p.get("d") for p in root.iter(SVG + "path") if p.get("stroke") == "#d62728"
             and " L " in p.get("d")]
    # one diamond per campaign, at its measured class ("M x y-8 L …": the diamond's top); the
    # legend's mark is drawn with relative moves
    tops = [tuple(float(v) for v in d.split()[1:3]) for d in marks]
    assert len(tops) == 2
    (x, y), (x2, y2) = tops
    assert abs(x - xticks["10"]) < 0.06 and abs(y + 8 - sy(380.5)) < 0.15
    assert abs(x2 - xticks["1"]) < 0.06 and abs(y2 + 8 - sy(48.0)) < 0.15
    # a diamond: top, right, bottom, left, 8 px from the measured point
    for d in marks:
        pts = [tuple(float(v) for v in p.split()) for p in d[2:-2].split(" L ")]
        (cx, cy) = (pts[0][0], pts[0][1] + 8)
        assert pts == [(cx, cy - 8), (cx + 8, cy), (cx, cy + 8), (cx - 8, cy)] and d.endswith(" Z")
    notes = [t for t in texts if (t["text"] or "").startswith("measured ") and t["text"][9].isdigit()]
    assert [t["text"] for t in notes] == ["measured 380.5", "measured 48.0"]
    assert notes[0]["text-anchor"] == "start" and abs(float(notes[0]["x"]) - (x + 12)) < 0.06


def test_a_measured_run_at_the_right_edge_is_labelled_left_of_its_mark(con):
    con.execute("update fct_prefill_what_if set is_measured = (line_rate_bits_per_s = 2.5e10), "
                "measured_tokens_per_s = 440.25 where campaign = 'c1'")
    con.execute("update fct_prefill_what_if set is_measured = false where campaign = 'c2'")
    root, texts, xticks, _, sy, _ = _read(prefill_vs_link(con, narrow=True))
    (note,) = [t for t in texts if (t["text"] or "").startswith("measured 4")]
    # "measured 440.2" is 14 characters, 90 px at 6.4 px each: past the 340 px phone width
    assert note["text"] == "measured 440.2" and note["text-anchor"] == "end"
    assert abs(float(note["x"]) - (xticks["25"] - 12)) < 0.06


def test_a_missing_prediction_is_not_drawn_and_takes_no_neighbours_value(con):
    # c2's prefill was never measured: no prediction, no measurement; c1 is drawn as before
    con.execute("update fct_prefill_what_if set predicted_tokens_per_s = null, "
                "measured_tokens_per_s = null where campaign = 'c2'")
    root, texts, xticks, _, sy, circles = _read(prefill_vs_link(con))
    assert [fill for _, _, fill in circles] == ["#1f77b4"] * 3
    assert len(list(root.iter(SVG + "polyline"))) == 1
    assert [t["text"] for t in texts if (t["text"] or "").startswith("measured ")
            and t["text"][9].isdigit()] == ["measured 380.5"]
    # one prediction left: a point, and no line through it
    con.execute("update fct_prefill_what_if set predicted_tokens_per_s = 50 "
                "where campaign = 'c2' and sort_order = 1")
    root, _, _, _, _, circles = _read(prefill_vs_link(con))
    assert [fill for _, _, fill in circles] == ["#1f77b4"] * 3 + ["#2ca02c"]
    assert len(list(root.iter(SVG + "polyline"))) == 1


def test_no_rows_draw_the_frame_and_legend_only(con):
    con.execute("delete from fct_prefill_what_if")
    root, texts, _, yticks, _, circles = _read(prefill_vs_link(con))
    assert circles == [] and list(root.iter(SVG + "polyline")) == []
    assert [t["text"] for t in texts if (t["text"] or "").startswith("measured (")] == ["measured (journal)"]


def test_a_value_label_that_would_cover_another_moves_under_its_point():
    import chart_marts
    con = duckdb.connect()
    chart_marts.what_if(con)
    root = ET.fromstring(prefill_vs_link(con))
    texts = {t.text: (float(t.get("x")), float(t.get("y"))) for t in root.iter(SVG + "text")}
    circles = [(float(c.get("cx")), float(c.get("cy"))) for c in root.iter(SVG + "circle")]
    # c1's 450 at 25 GbE stays above its point; c4's 350 at 25 GbE, placed after c1's
    # "measured 380.5" note (18 px under the 10 GbE mark, running right), would cover it: it
    # goes 18 px under its own point
    (x450, y450), (x350, y350) = texts["450"], texts["350"]
    assert (x450, y450 + 10) in circles and (x350, y350 - 18) in circles
