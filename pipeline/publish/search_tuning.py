"""What the site's search indexes, and how it ranks pages.

A mkdocs plugin (``search-tuning`` in mkdocs.yml's plugins, before ``search`` reads the pages;
registered by pyproject.toml's ``mkdocs.plugins`` entry point). Material's search indexes every
section's text and honours two hints, which this sets:

- ``data-search-exclude`` on each "Data behind this table" note (pipeline/publish/pages.py,
  ``sources()``), on Data sources' folded file lists ("… (click to list them)") and on the
  build stamp at the foot of every page: raw-file names and digests are provenance, not what
  a reader searches for ("us-west-2" found lists of file names before the table that answers
  it). The pages still show them; Data sources' headings (the campaigns) stay searchable.
- ``search.boost`` in a page's meta: the pages readers come for (Home, Ethernet Bandwidth Math,
  Point to Point) rank above the shared reference pages, and a campaign's own page (a lab run,
  a deployment) below them, so its sections come after the summary that compares them.
"""
from __future__ import annotations

import re

from mkdocs.plugins import BasePlugin

from pipeline.project import CAMPAIGN_AREAS

BOOSTS = {"index.md": 1.5, "ethernet-bandwidth-math.md": 1.5, "point-to-point.md": 1.5}
CAMPAIGN_BOOST = 0.5
# the opening tags of the provenance blocks, as pymdownx.details and attr_list write them
_PROVENANCE = (
    re.compile(r'<details class="(abstract)">(\s*<summary>Data behind this table)'),
    re.compile(r'<details class="(note)">(\s*<summary>(?:(?!</summary>).)*\(click to list them\)</summary>)'),
)
_STAMP = re.compile(r'<p class="build-stamp">')


def boost_of(src_uri: str) -> float | None:
    if src_uri in BOOSTS:
        return BOOSTS[src_uri]
    if src_uri.startswith(tuple(f"{a}/" for a in CAMPAIGN_AREAS)):
        return CAMPAIGN_BOOST
    return None


def exclude_provenance(html: str) -> str:
    for pattern in _PROVENANCE:
        html = pattern.sub(r'<details class="\1" data-search-exclude>\2', html)
    return _STAMP.sub('<p class="build-stamp" data-search-exclude>', html)


class SearchTuning(BasePlugin):
    def on_page_markdown(self, markdown, page, config, files, **kwargs):
        boost = boost_of(page.file.src_uri)
        if boost is not None:
            search = dict(page.meta.get("search") or {})
            search.setdefault("boost", boost)
            page.meta["search"] = search
        return markdown

    def on_page_content(self, html, page, config, files, **kwargs):
        return exclude_provenance(html)
