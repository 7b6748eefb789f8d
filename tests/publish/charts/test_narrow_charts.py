"""Every chart has a phone variant: at most 340 px wide, its text still 11 px and inside the
drawing, showing the same data as the full chart (the same cells with the same labels and
fills, the same series with as many points, the same lanes), written beside it by the build."""
from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections import Counter

import pytest

from pipeline.publish.charts import discover_charts
from pipeline.publish.charts.svg import CHAR_PX, NARROW
from pipeline.warehouse.schemas import campaign_schema, set_search_path

from conftest import warehouse

CHARTS = discover_charts()
# the campaign whose schema a per-campaign chart is drawn from, and its page's folder
CAMPAIGN = {"deployment": "qwen38-27b-pp", "p2p": None, "lab-series": "lab-rpc-series-h512"}
SVG = "{http://www.w3.org/2000/svg}"


def _slug_and_schema(chart, con):
    if chart.page == "deployment":
        set_search_path(con, campaign_schema("qwen38-27b-pp"))
        return "deployments/qwen38-27b-pp"
    if chart.page == "p2p":
        campaign = "aws-p3-tc" if chart.file.startswith("tc-") else "swan-10-regions"
        set_search_path(con, campaign_schema(campaign))
        return f"p2p/{campaign}"
    if chart.page == "lab-series":
        set_search_path(con, campaign_schema(CAMPAIGN["lab-series"]))
        return f"labs/{CAMPAIGN['lab-series']}"
    return chart.page


def _drawn(svg: str) -> dict:
    """What a chart shows, independent of where it is drawn: heatmap cells (fill and the label
    on it), each series' name and point count, the lanes (filled areas) and the value labels."""
    root = ET.fromstring(svg)
    elements = list(root.iter())
    cells = Counter()
    for i, el in enumerate(elements):
        if el.tag == f"{SVG}rect" and el.get("stroke") == "#ffffff":
            label = elements[i + 1].text if i + 1 < len(elements) and elements[i + 1].tag == f"{SVG}text" else None
            cells[(el.get("fill"), label)] += 1
    series = {g.get("data-series"): len(g.findall(f"{SVG}path")) + len(g.findall(f"{SVG}circle"))
              for g in root.iter(f"{SVG}g") if g.get("data-series")}
    lanes = len(root.findall(f"{SVG}polygon"))
    return {"cells": cells, "series": series, "lanes": lanes}


def _gbit_value(label):
    """A cell label as a number: '460 M' -> 0.46 and '1.14 G' -> 1.14 (Gbit/s), '0.46' as is,
    '12.5 %' -> 12.5; None for a label that is no number ('·', '—')."""
    m = re.fullmatch(r"([0-9.]+)(?: (G|M|%))?", label or "")
    if not m:
        return None
    return float(m.group(1)) / (1000 if m.group(2) == "M" else 1)


def _by_fill(cells: Counter, value) -> list:
    """(fill, value) of every cell, in one order, for an approximate comparison."""
    pairs = sorted(((f, value(l)) for f, l in cells.elements() if value(l) is not None))
    return [v for _, v in pairs]


@pytest.mark.parametrize("chart", CHARTS, ids=[c.name for c in CHARTS])
def test_the_phone_variant_fits_and_shows_the_same_data(built, chart):
    assert chart.narrow is not None, f"{chart.name} has no phone variant"
    with warehouse(built) as c:
        slug = _slug_and_schema(chart, c)
        wide, narrow = chart.render(c), chart.narrow(c)
    root = ET.fromstring(narrow)
    width = float(root.get("width"))
    assert width <= NARROW and root.get("viewBox") == f"0 0 {root.get('width')} {root.get('height')}"
    for t in root.iter(f"{SVG}text"):
        assert t.get("font-size") == "11", ET.tostring(t)
        if t.get("transform"):                 # written upwards: its length runs along y
            continue
        x, n = float(t.get("x")), len(t.text or "")
        # every line stays inside the drawing (CHAR_PX is a generous 11 px character)
        span = {"start": (x, x + n * CHAR_PX), "end": (x - n * CHAR_PX, x),
                "middle": (x - n * CHAR_PX / 2, x + n * CHAR_PX / 2)}[t.get("text-anchor")]
        assert span[0] >= -1 and span[1] <= width + 1, (chart.name, t.text, span, width)
    got, want = _drawn(narrow), _drawn(wide)
    assert (got["series"], got["lanes"]) == (want["series"], want["lanes"])
    # the same cells: the same fills, each with the same value (the phone's bandwidth matrix
    # writes Gbit/s in four characters where the full one writes "460 M" / "1.14 G")
    assert _by_fill(got["cells"], _gbit_value) == pytest.approx(_by_fill(want["cells"], _gbit_value), abs=0.006)
    assert sorted(f for f, _ in got["cells"].elements()) == sorted(f for f, _ in want["cells"].elements())
    # the build wrote it beside the full chart, where the figure's data-narrow points
    assert (built.docs / slug / chart.narrow_file).read_text() == narrow


def test_each_figure_names_its_phone_variant(built):
    seen = 0
    for page in built.docs.rglob("*.md"):
        for src, narrow in re.findall(r'!\[[^\]]*\]\(([^)]+\.svg)\)\{ data-narrow="([^"]+)" \}',
                                      page.read_text(encoding="utf-8")):
            # a file name beside the chart (charts.js resolves it against the image's address)
            assert narrow == src.rsplit("/", 1)[-1][:-4] + "-narrow.svg"
            assert ((page.parent / src).parent / narrow).resolve().is_file(), (page, narrow)
            seen += 1
    assert seen >= 10


def test_a_matrix_of_more_regions_than_fit_says_so_by_its_width():
    """14 regions at the smallest cell (24 px) need 80 + 14 x 24 + 4 = 420 px: the phone
    variant is drawn that wide (every cell inside it), so charts.js keeps the full chart."""
    import duckdb

    from pipeline.publish.charts.point_to_point import delay_matrix
    con = duckdb.connect()
    names = [f"r{i:02d}" for i in range(14)]
    con.execute("create table fct_p2p_region_matrix (receiver_name varchar, receiver_order int, "
                "sender_name varchar, sender_order int, is_diagonal boolean, rtt_avg_s double)")
    con.executemany("insert into fct_p2p_region_matrix values (?, ?, ?, ?, ?, ?)",
                    [(a, i + 1, b, j + 1, a == b, None if a == b else 0.001 * (i + j + 1))
                     for i, a in enumerate(names) for j, b in enumerate(names)])
    root = ET.fromstring(delay_matrix(con, narrow=True))
    width = float(root.get("width"))
    assert width == 420
    cells = [r for r in root.iter(f"{SVG}rect") if r.get("stroke") == "#ffffff"]
    assert len(cells) == 14 * 14
    assert max(float(r.get("x")) + float(r.get("width")) for r in cells) <= width
