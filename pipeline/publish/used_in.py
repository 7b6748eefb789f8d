"""The Data dictionary's "Used in" links: for each table, the sections of the site that show it.

A mkdocs plugin (``used-in`` in mkdocs.yml's plugins, registered by pyproject.toml's
``mkdocs.plugins`` entry point, so it loads wherever the package is installed). A section shows a table when it prints one of the
table's figures (the figures ledger, ``what-changed/data/figures.csv``, records the section
of every figure a page prints) or when the "Data behind this table" note under one of its
tables offers the table's CSV (``Download: … data/<table>.csv``, from ``sources()`` in
pipeline/publish/pages.py). Every page's HTML is read as mkdocs converts it; when the dictionary is
written (after every page was converted), each placeholder
``<span class="used-in" data-table="<table>"></span>`` becomes links to those sections: the
shared pages in nav order, then one campaign page of each kind (every campaign's page has the
same sections); a table a page ships as CSV but prints no tracked figure of links to that page's
title. The ids and headings are the pages' own, so a link cannot point at nothing; a table no
page shows gets "no section prints its figures".
"""
from __future__ import annotations

import csv
import html
import re
from pathlib import Path

from mkdocs.plugins import BasePlugin
from mkdocs.utils import get_relative_url

from pipeline.project import CAMPAIGN_AREAS

_CAMPAIGN_PAGES = tuple(f"{area}/" for area in CAMPAIGN_AREAS)    # docs/<area>/<campaign>.md

_HEADING = re.compile(r'<h([1-6]) id="([^"]+)"[^>]*>(.*?)</h\1>', re.S)
_DOWNLOAD = re.compile(r"<p>Download: (.*?)</p>", re.S)
_CSV = re.compile(r'href="(?:[^"]*/)?data/([A-Za-z0-9_]+)\.csv"')
_FOOTER = re.compile(r"Every table of this page as CSV:(.*?)</p>", re.S)
_PLACEHOLDER = re.compile(r'<span class="used-in" data-table="([A-Za-z0-9_]+)"></span>')
_TAGS = re.compile(r"<[^>]+>")

def _heading_text(m: re.Match) -> str:
    return html.unescape(_TAGS.sub("", m.group(3))).replace("¶", "").strip()


def _sections(url: str, title: str, content: str,
              printed: dict[str, set[str]] | None = None) -> dict[str, list[tuple[str, str, str]]]:
    """table -> [(page url, heading id, heading text)] for one page, in page order: the
    sections with a Download note offering the table's CSV, and those ``printed`` (table ->
    heading ids, from the figures ledger) names."""
    headings = {m.group(2): _heading_text(m) for m in _HEADING.finditer(content)}
    order = {anchor: i for i, anchor in enumerate(headings)}
    found: dict[str, set[str]] = {t: {a for a in anchors if a in headings}
                                  for t, anchors in (printed or {}).items()}
    events = [(m.start(), "h", m) for m in _HEADING.finditer(content)]
    events += [(m.start(), "d", m) for m in _DOWNLOAD.finditer(content)]
    current = ""
    for _, kind, m in sorted(events, key=lambda e: e[0]):
        if kind == "h":
            current = m.group(2)
        elif current:
            for table in _CSV.findall(m.group(1)):
                found.setdefault(table, set()).add(current)
    out = {t: [(url, a, headings[a]) for a in sorted(anchors, key=order.get)]
           for t, anchors in found.items() if anchors}
    # a table the page ships (its footer's CSV list) but prints no tracked figure of, such as
    # the inventory pages' tables: the page itself, by its title's heading
    first = next(iter(headings), None)
    footer = _FOOTER.search(content)
    if first and footer:
        for table in _CSV.findall(footer.group(1)):
            out.setdefault(table, [(url, first, headings[first])])
    return out


def _printed(docs_dir: str) -> dict[str, dict[str, set[str]]]:
    """page slug -> table -> the heading ids its figures are printed under (the ledger)."""
    path = Path(docs_dir) / "what-changed" / "data" / "figures.csv"
    out: dict[str, dict[str, set[str]]] = {}
    if path.is_file():
        with open(path, newline="", encoding="utf-8") as f:
            for r in csv.DictReader(f):
                if r.get("anchor"):
                    out.setdefault(r["page"], {}).setdefault(r["table"], set()).add(r["anchor"])
    return out


class UsedIn(BasePlugin):
    def on_pre_build(self, config, **kwargs) -> None:
        self.pages: dict[str, tuple[str, str, str]] = {}     # src uri -> (url, title, html)

    def on_page_content(self, content, page, config, files, **kwargs):
        self.pages[page.file.src_uri] = (page.url, page.title or page.file.src_uri, content)
        return content

    def on_post_page(self, output, page, config, **kwargs):
        if not _PLACEHOLDER.search(output):
            return output
        used = _used(self.pages, page, config)        # the ledger and pages read once
        return _PLACEHOLDER.sub(lambda m: _links(used.get(m.group(1), []), page), output)


def _used(pages: dict, page, config) -> dict[str, list[tuple[str, str, str, str]]]:
    """table -> [(page title, page url, heading id, heading text)] over the pages shown."""
    printed = _printed(config["docs_dir"])
    shown = _nav_sources(config)
    for area in _CAMPAIGN_PAGES:                # one campaign page of each kind
        shown += sorted(s for s in pages if s.startswith(area))[:1]
    used: dict[str, list[tuple[str, str, str, str]]] = {}
    for src in shown:
        if src not in pages or src == page.file.src_uri:
            continue
        url, title, content = pages[src]
        for table, entries in _sections(url, title, content, printed.get(src[:-3])).items():
            used.setdefault(table, []).extend((title, *e) for e in entries)
    return used


def _links(found: list[tuple[str, str, str, str]], page) -> str:
    if not found:
        return "no section prints its figures"
    parts = []
    for title, url, anchor, heading in found:
        href = get_relative_url(url, page.url) + f"#{anchor}"
        parts.append(f'<a href="{html.escape(href)}">{html.escape(title)}: {html.escape(heading)}</a>')
    return " · ".join(parts)


def _nav_sources(config) -> list[str]:
    """The Markdown files of mkdocs.yml's nav, in order, less the campaign pages that
    ``campaign-nav`` adds (one of each kind is shown, by ``_used``)."""
    out: list[str] = []

    def walk(item):
        if isinstance(item, str):
            out.append(item)
        elif isinstance(item, dict):
            for value in item.values():
                walk(value)
        elif isinstance(item, list):
            for value in item:
                walk(value)
    walk(config.get("nav") or [])
    return [s for s in out if not s.startswith(_CAMPAIGN_PAGES)]
