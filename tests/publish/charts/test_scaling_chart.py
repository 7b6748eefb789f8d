"""The Scaling out page's chart (pipeline/publish/charts/scaling_out.py) read back into numbers:
on hand-made rows (tests/support/chart_marts.py, SCALING), each (campaigns, build) median is a
marker whose title gives its values, placed by the axes: x = left + pw * campaigns / xmax and
y = top + ph - ph * median / ymax, with xmax and ymax the axes' round tops."""
from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import duckdb

from pipeline.publish.charts import scaling_out

import chart_marts

NS = "{http://www.w3.org/2000/svg}"


def _markers(svg: str) -> dict[str, tuple[float, float]]:
    out = {}
    for path in ET.fromstring(svg).iter(f"{NS}path"):
        title = path.find(f"{NS}title")
        if title is None:
            continue
        x, y = map(float, re.search(r"translate\(([\d.]+) ([\d.]+)\)", path.get("transform")).groups())
        out[title.text] = (x, y)
    return out


def test_each_median_is_a_marker_where_the_axes_put_it():
    con = duckdb.connect()
    chart_marts.scaling(con)
    marks = _markers(scaling_out.build_time(con))
    assert len(marks) == 6
    # full width: left 70, right 170, top 40, bottom 50 of 640 x 360: pw 400, ph 270;
    # xmax: 50 * 1.05 = 52.5 in at most 12 round steps is 11 steps of 5 = 55;
    # ymax = svg.nice(132 s, the largest max): 5 ticks of 1/2/2.5/5 x 10 s give tops of 50,
    # 100, 125 and 250 s, the first at or above 132 is 250
    want = {("full build", 50, 130.0): (70 + 400 * 50 / 55, 40 + 270 - 270 * 130 / 250),
            ("one campaign added", 5, 17.0): (70 + 400 * 5 / 55, 40 + 270 - 270 * 17 / 250)}
    for (operation, n, median), (x, y) in want.items():
        (title,) = [t for t in marks if t.startswith(f"{operation}, {n} campaigns: median {median:.1f} s")]
        assert marks[title] == (round(x, 1), round(y, 1)), title
    # the whisker's range and the build's own summary are in the words a reader hovers
    assert any("(61.0 to 66.0 s); campaign tables 77 built, 3850 kept" in t for t in marks)


def test_nothing_measured_says_so():
    con = duckdb.connect()
    con.execute("create table dim_pipeline_scaling (campaigns int, operation varchar, runs int, "
                "median_s double, min_s double, max_s double, what_ran varchar)")
    assert "not measured: run make bench" in scaling_out.build_time(con)


def test_the_campaigns_axis_is_round_and_reaches_past_the_largest_tree():
    # 50 * 1.05 = 52.5: steps of 1 and 2 need 53 and 27, more than 12; 5 needs 11
    assert scaling_out.x_axis(50) == (55, 5)
    # 2 * 1.05 = 2.1: steps of 1 need 3
    assert scaling_out.x_axis(2) == (3, 1)
    # 200 * 1.05 = 210: steps of 10 need 21; 20 needs 11
    assert scaling_out.x_axis(200) == (220, 20)
