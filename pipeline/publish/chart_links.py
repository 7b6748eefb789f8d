"""A chart's link, carrying the links to the data it is drawn from.

``chart('x.svg')`` in a template returns a :class:`ChartLink`: the chart's address, which
renders as itself, plus ``data``, the (table, CSV link) of each mart the chart reads, as the
page that draws it publishes them (``<page>/data/<mart>.csv``). The ``figure`` macro
(templates/partials/figure.md.j2) prints those links under the chart, so a reader gets the
numbers behind every chart, not only behind every table.
"""
from __future__ import annotations

import functools

from markupsafe import Markup


class ChartLink(Markup):
    data: tuple[tuple[str, Markup], ...] = ()


def chart_link(href: Markup, data: list[tuple[str, Markup]]) -> ChartLink:
    link = ChartLink(href)
    link.data = tuple(data)
    return link


@functools.cache
def marts_by_file() -> dict[str, tuple[str, ...]]:
    """The marts each chart file reads (file names are unique across the chart modules)."""
    from pipeline.publish.charts import discover_charts
    found: dict[str, tuple[str, ...]] = {}
    for chart in discover_charts():
        if chart.file in found:
            raise RuntimeError(f"two charts are drawn to the file name {chart.file}")
        found[chart.file] = tuple(chart.marts)
    return found
