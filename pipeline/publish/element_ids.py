"""Stable anchors for every table and chart: a Python-Markdown extension (mkdocs.yml).

Each ``<table>`` and each chart link (``a.chart-enlarge``) without an id is given one made of
the section it is in and its place there: ``<heading-id>-table-<n>``, ``<heading-id>-figure-<n>``
(``table-<n>`` before the first heading). Heading ids are the ones the ``toc`` extension gives
(from the template's heading text, or an explicit ``{ #id }``), so an anchor moves only when the
page's structure does, never when a figure in it changes. It runs after ``toc`` and before
mkdocs collects a page's anchors, so a link to one is checked like a link to a heading.
"""
from __future__ import annotations

import xml.etree.ElementTree as ET

from markdown import Extension
from markdown.treeprocessors import Treeprocessor

_HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}


def _is_chart(el: ET.Element) -> bool:
    return el.tag == "a" and "chart-enlarge" in (el.get("class") or "").split()


class ElementIds(Treeprocessor):
    def run(self, root: ET.Element) -> None:
        section, counts = "", {}
        used = {el.get("id") for el in root.iter() if el.get("id")}
        for el in root.iter():
            if el.tag in _HEADINGS and el.get("id"):
                section, counts = el.get("id"), {}
                continue
            kind = "table" if el.tag == "table" else "figure" if _is_chart(el) else None
            if kind is None or el.get("id"):
                continue
            counts[kind] = counts.get(kind, 0) + 1
            base = f"{section}-{kind}-{counts[kind]}" if section else f"{kind}-{counts[kind]}"
            anchor, n = base, 1
            while anchor in used:              # a heading that already ends in "-table-1"
                n += 1
                anchor = f"{base}_{n}"
            used.add(anchor)
            el.set("id", anchor)


class ElementIdsExtension(Extension):
    def extendMarkdown(self, md) -> None:
        # toc gives headings their ids at priority 5 and mkdocs collects anchors at 5 after
        # every configured extension: registered after toc at the same priority, this runs
        # between the two.
        md.treeprocessors.register(ElementIds(md), "element_ids", 5)


def makeExtension(**kwargs) -> ElementIdsExtension:
    return ElementIdsExtension(**kwargs)
