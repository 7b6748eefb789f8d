"""A chart mark's value on a tap (a phone) and on a click (a desktop): docs/javascripts/charts.js
shows the mark's SVG <title> (pipeline/publish/charts/svg.py mark) in a box beside it,
and the tap does not open the chart at full size."""
from __future__ import annotations

import csv

from site_browser import browser, site_url, visit  # noqa: F401 (fixtures)


def _first_feasibility_row(built) -> dict:
    path = built.docs / "ethernet-bandwidth-math" / "data" / "fct_link_feasibility.csv"
    with path.open(encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    # the heatmap's first cell: first model, scheme, batch; lowest token rate; first link class
    return min(rows, key=lambda r: (int(r["model_sort_order"]), r["scheme"], int(r["batch_size"]),
                                    float(r["tokens_per_s"]), int(r["link_sort_order"])))


def _open(visit, site_url, **context):
    v = visit(**context)
    v.page.goto(site_url + "ethernet-bandwidth-math/", wait_until="load")
    v.page.wait_for_function("() => document.documentElement.dataset.charts === 'ready'")
    return v


def test_a_tap_on_a_heatmap_cell_shows_its_value_and_stays_on_the_page(site_url, visit, built):
    r = _first_feasibility_row(built)
    share = f"{float(r['usable_share_fraction']) * 100:.1f} %"
    expected = (f"{r['model_label']}, {r['scheme_label']}, batch {r['batch_size']}, "
                f"{float(r['tokens_per_s']):g} tok/s per sequence on {r['link_label']}: "
                f"{share} of the usable rate ({r['feasibility_label']})")
    v = _open(visit, site_url, viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
    page = v.page
    url = page.url
    cell = page.locator("svg.chart rect:has(> title)").first
    cell.scroll_into_view_if_needed()
    cell.tap()
    box = page.locator(".chart-value")
    box.wait_for(state="visible")
    assert box.inner_text() == expected
    assert page.url == url                      # the tap read the value, it did not navigate
    page.locator("h1").first.tap()              # a tap elsewhere closes the box
    assert page.locator(".chart-value").count() == 0
    assert v.errors == [], v.errors


def test_a_click_on_a_lab_validation_point_shows_its_value(site_url, visit):
    v = _open(visit, site_url, viewport={"width": 1440, "height": 900})
    page = v.page
    point = page.locator('svg.chart g[data-series^="measured"] path:has(> title)').first
    point.scroll_into_view_if_needed()
    title = point.locator("title").text_content()
    assert title.startswith("measured, ") and "Mbit/s TCP link" in title
    point.click()
    assert page.locator(".chart-value").inner_text() == title
    assert v.errors == [], v.errors


def test_every_point_and_cell_of_every_built_chart_carries_its_value(built):
    import re
    checked = 0
    for svg_file in sorted(built.docs.rglob("*.svg")):
        text = svg_file.read_text(encoding="utf-8")
        # a marker of a series (legend markers excepted) and a heatmap cell (the grey diagonal
        # of a region matrix, a region with itself, excepted)
        marks = re.findall(r'<path transform="translate\([^"]*\)" d="[^"]*"[^>]*?(/>|>)', text)
        cells = re.findall(r'<rect [^>]*fill="(?!#d9d9d9)[^"]*" stroke="#ffffff"(/>|>)', text)
        bare = [m for m in marks + cells if m == "/>"]
        assert not bare, f"{svg_file.relative_to(built.docs)}: {len(bare)} mark(s) without a value"
        checked += len(marks) + len(cells)
    assert checked > 400, checked      # the heatmap alone has one cell per fct_link_feasibility row
