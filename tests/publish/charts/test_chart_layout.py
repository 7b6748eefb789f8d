"""Every chart, at full width and on a phone, is readable: drawn on hand-made marts and checked
by ``svg_layout.problems`` (elements inside the canvas, no label over another, ticks at their
grid lines and evenly spaced, marks inside the plot, the legend and the axis labels outside it,
the title centred and equal to the SVG's <title>)."""
from __future__ import annotations

import xml.etree.ElementTree as ET

import duckdb
import pytest

from pipeline.publish.charts import (
    discover_charts,
    ethernet_bandwidth_math,
    feasibility,
    lab_series,
    lab_validation,
    point_to_point,
    scaling_out,
)

import chart_marts
import svg_layout

CHARTS = discover_charts()


@pytest.fixture(scope="module")
def con():
    con = chart_marts.every_mart()
    yield con
    con.close()


@pytest.mark.parametrize("chart", CHARTS, ids=[c.name for c in CHARTS])
@pytest.mark.parametrize("narrow", [False, True], ids=["full", "phone"])
def test_every_chart_is_readable(con, chart, narrow):
    svg = chart.narrow(con) if narrow else chart.render(con)
    assert svg_layout.problems(svg) == []


@pytest.mark.parametrize("chart", CHARTS, ids=[c.name for c in CHARTS])
def test_the_phone_variant_is_at_most_340_px_wide(con, chart):
    assert int(ET.fromstring(chart.narrow(con)).get("width")) <= 340


def test_a_matrix_of_long_names_is_readable_on_a_phone():
    con = duckdb.connect()
    chart_marts.region_matrix(con, ("Frankfurt am Main", "North Virginia us-east-1", "Sao Paulo",
                                    "Singapore", "Tokyo"))
    for draw in (point_to_point.delay_matrix, point_to_point.bandwidth_matrix):
        for narrow in (False, True):
            assert svg_layout.problems(draw(con, narrow=narrow)) == [], (draw.__name__, narrow)


def test_every_chart_module_is_found_in_module_order():
    want = [c.name for m in (ethernet_bandwidth_math, feasibility, lab_series, lab_validation,
                             point_to_point, scaling_out)
            for c in m.CHARTS]
    assert [c.name for c in discover_charts()] == want and len(want) == 15


def test_two_charts_of_one_name_are_refused_by_name(monkeypatch):
    monkeypatch.setattr(point_to_point, "CHARTS", [*point_to_point.CHARTS, lab_validation.CHARTS[0],
                                                   point_to_point.CHARTS[0]])
    with pytest.raises(RuntimeError, match=r"^two charts share the name\(s\) "
                       r"ebm_lab_validation_prefill, p2p_delay_matrix$"):
        discover_charts()


def test_a_chart_file_and_its_phone_variant_land_in_the_pages_folder():
    chart = next(c for c in discover_charts() if c.name == "p2p_delay_matrix")
    assert chart.path("p2p/aws") == "p2p/aws/delay-matrix.svg"
    assert chart.narrow_file == "delay-matrix-narrow.svg"


def _data_marks(svg: str) -> int:
    """Elements that draw a measured value: lanes, prediction dots, series markers (not the
    legend's), heatmap cells holding a value."""
    root = ET.fromstring(svg)
    ns = svg_layout.NS
    n = len(root.findall(f".//{ns}polygon")) + len(root.findall(f".//{ns}circle"))
    n += sum(1 for g in root.iter(ns + "g") for _ in g.iter(ns + "path"))
    n += sum(1 for r in root.iter(ns + "rect") if r.get("stroke") == "#ffffff"
             and r.get("fill") not in ("none", "#d9d9d9"))
    return n


@pytest.mark.parametrize("chart", CHARTS, ids=[c.name for c in CHARTS])
def test_every_chart_draws_its_marts_rows(con, chart):
    assert _data_marks(chart.render(con)) > 0 and _data_marks(chart.narrow(con)) > 0


@pytest.fixture(scope="module")
def empty():
    """Every mart with its columns and no row."""
    con = chart_marts.every_mart()
    for (table,) in con.execute("select table_name from information_schema.tables").fetchall():
        con.execute(f'delete from "{table}"')
    yield con
    con.close()


@pytest.mark.parametrize("chart", CHARTS, ids=[c.name for c in CHARTS])
@pytest.mark.parametrize("narrow", [False, True], ids=["full", "phone"])
def test_every_chart_of_empty_marts_is_drawn_empty_and_readable(empty, chart, narrow):
    svg = chart.narrow(empty) if narrow else chart.render(empty)
    assert svg_layout.problems(svg) == [] and _data_marks(svg) == 0


def test_a_lab_series_without_a_range_is_drawn_without_its_band():
    # two calibration rates and nothing between them: no rate was left out, so no range
    con = duckdb.connect()
    chart_marts.lab_series(con)
    con.execute("update fct_lab_series_validation set predicted_low = null, predicted_high = null")
    for narrow in (False, True):
        svg = lab_series.prefill(con, narrow=narrow)
        assert 'data-series="model range"' not in svg and "no range: no rate was left out" in svg
        assert svg_layout.problems(svg) == []
