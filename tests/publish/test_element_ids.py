"""Every table and chart on the site has a stable anchor (pipeline/publish/element_ids.py)."""
from __future__ import annotations

import re
from collections import Counter

import markdown

EXTENSIONS = ["tables", "attr_list", "toc", "pipeline.publish.element_ids"]

PAGE = """intro

| a | b |
|---|---|
| {x} | 2 |

## 2.3 Feasibility

| a |
|---|
| {x} |

[![chart](c.svg)](c.svg){{ .chart-enlarge }}

| a |
|---|
| 1 |

## Other {{ #other }}

| a |
|---|
| 1 |

## Ends in -table-1 {{ #other-table-1 }}
"""


def _ids(text: str) -> list[tuple[str, str]]:
    out = markdown.Markdown(extensions=EXTENSIONS).convert(text)
    return re.findall(r'<(table|a|h2)\b[^>]*?\bid="([^"]+)"', out)


def test_tables_and_charts_are_numbered_within_their_section():
    ids = _ids(PAGE.format(x=1))
    assert ids == [("table", "table-1"),                    # before any heading
                   ("h2", "23-feasibility"),
                   ("table", "23-feasibility-table-1"),
                   ("a", "23-feasibility-figure-1"),        # charts count apart from tables
                   ("table", "23-feasibility-table-2"),
                   ("h2", "other"),
                   # a heading already holds "other-table-1": the table's id does not clash
                   ("table", "other-table-1_2"),
                   ("h2", "other-table-1")]


def test_an_anchor_does_not_move_when_a_figure_in_the_table_changes():
    assert _ids(PAGE.format(x=1)) == _ids(PAGE.format(x="12,345.6"))


def test_every_table_and_chart_on_the_site_has_a_unique_id(built):
    checked = 0
    for page in sorted(built.site.rglob("index.html")):
        text = page.read_text(encoding="utf-8")
        article = text[text.find("<article"):text.rfind("</article>")]
        tags = re.findall(r"<table\b[^>]*>|<a\b[^>]*\bchart-enlarge\b[^>]*>", article)
        missing = [t for t in tags if " id=" not in t]
        assert not missing, (page, missing[:3])
        ids = re.findall(r'\bid="([^"]+)"', article)
        dupes = [i for i, n in Counter(ids).items() if n > 1]
        assert not dupes, (page, dupes)
        checked += len(tags)
    assert checked > 100
