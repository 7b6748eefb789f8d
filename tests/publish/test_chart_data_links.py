"""Every chart on the built site has the CSV of each table it is drawn from under it
(pipeline/publish/chart_links.py, templates/partials/figure.md.j2), and those files exist."""
from __future__ import annotations

import re
from pathlib import Path

from markupsafe import Markup

from pipeline.publish.chart_links import chart_link, marts_by_file

# a chart: its enlarge link around the <img>, then the paragraph of its data links
CHART = re.compile(r'<a class="chart-enlarge" href="([^"]+\.svg)".*?</p>\s*'
                   r'(<p class="chart-data"[^>]*>.*?</p>)?', re.S)
LINK = re.compile(r'<a href="([^"]+\.csv)">([^<]+)</a>')


def test_a_chart_link_renders_as_its_address_and_carries_its_data():
    link = chart_link(Markup("a/x.svg"), [("fct_t", Markup("a/data/fct_t.csv"))])
    assert str(link) == "a/x.svg" and link.data == (("fct_t", "a/data/fct_t.csv"),)


def test_every_chart_on_the_site_links_the_csv_of_each_table_it_reads(built):
    site = built.site.resolve()
    seen = 0
    for html in sorted(site.rglob("index.html")):
        for m in CHART.finditer(html.read_text(encoding="utf-8")):
            chart = Path(m[1]).name
            where = html.relative_to(site).parent
            assert m[2], f"{where}: chart {chart} has no data links under it"
            assert 'data-search-exclude' in m[2]
            links = LINK.findall(m[2])
            # the links name exactly the marts the chart module says it reads
            assert [name for _, name in links] == [f"{t}.csv" for t in marts_by_file()[chart]]
            for href, _ in links:
                target = (html.parent / href).resolve()
                assert target.is_file(), f"{where}: {href} of {chart} is not on the site"
                assert target.read_text(encoding="utf-8").split("\n", 1)[0], target
            seen += 1
    # 11 chart modules' charts, a campaign's drawn on its own page and some on shared ones
    assert seen >= len(marts_by_file()), seen
