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
  Point to Point) rank above the other shared pages; the pages about the data (Data dictionary,
  Data quality, Data sources) and a campaign's own page (a lab run, a deployment) rank below
  them, so "RTT" finds a measured RTT before the table that defines the column.
- numbers in the search titles kept from matching a query word's prefix (``unprefix_numbers``):
  "ap-northeast-1" found every heading numbered 1.x.
- a shared page's lab evidence (a heading with the class ``lab-evidence``, and the sections under
  it: how a model was tested on the lab's runs) ranked as a campaign's own page is, below the
  figures it supports: "decode" found the decode model's tests before §0.5's decode figures,
  and "ap-northeast-1" their tables of numbers (every query word is a prefix, so its "1"
  matches each number that starts with a 1) before the pairs that name that region.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

from mkdocs.plugins import BasePlugin

from pipeline.project import CAMPAIGN_AREAS

BOOSTS = {"index.md": 1.5, "ethernet-bandwidth-math.md": 1.5, "point-to-point.md": 1.5,
          "data-dictionary.md": 0.5, "data-quality.md": 0.5, "data-sources.md": 0.5}
CAMPAIGN_BOOST = 0.5
# the opening tags of the provenance blocks, as pymdownx.details and attr_list write them
_PROVENANCE = (
    re.compile(r'<details class="(abstract)">(\s*<summary>Data behind this table)'),
    re.compile(r'<details class="(note)">(\s*<summary>(?:(?!</summary>).)*\(click to list them\)</summary>)'),
)
_STAMP = re.compile(r'<p class="build-stamp">')
# where a number starts in a search title: after anything but a letter, digit or point
_NUMBER_START = re.compile(r"(?<![\w.])(?=\d)")
WORD_JOINER = "\u2060"
EVIDENCE_CLASS = "lab-evidence"
_HEADING = re.compile(r"<h([1-6])\b([^>]*)>")
_ID = re.compile(r'\bid="([^"]+)"')
_CLASS = re.compile(r'\bclass="([^"]*)"')


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


def unprefix_numbers(title: str) -> str:
    """A search title whose numbers no query word's prefix reaches: a word joiner (U+2060,
    invisible, not a separator) before each. Material reads every query word as a prefix and
    ranks a title match a thousand times a text match, so the "2" of "us-west-2" found every
    heading with a "2.3", a "2026-08-17" or a "27B" before the pairs that name us-west-2."""
    return _NUMBER_START.sub(WORD_JOINER, title)


def evidence_sections(html: str) -> list[str]:
    """The ids of the sections under a heading of class ``lab-evidence``: that heading's and
    every deeper heading's after it, up to the next heading of its level or above."""
    ids: list[str] = []
    inside: int | None = None
    for m in _HEADING.finditer(html):
        level, attrs = int(m.group(1)), m.group(2)
        cls = _CLASS.search(attrs)
        classes = cls[1].split() if cls else []
        if inside is not None and level <= inside:
            inside = None
        if inside is None and EVIDENCE_CLASS in classes:
            inside = level
        section = _ID.search(attrs)
        if inside is not None and section:
            ids.append(section[1])
    return ids


def tune_index(path: Path, evidence: frozenset[str] = frozenset()) -> None:
    """Titles' numbers unprefixed; the docs at the locations in ``evidence`` (``page/#id``)
    boosted as a campaign's page is."""
    index = json.loads(path.read_text(encoding="utf-8"))
    for doc in index.get("docs", []):
        if doc.get("title"):
            doc["title"] = unprefix_numbers(doc["title"])
        if doc.get("location") in evidence:
            doc["boost"] = CAMPAIGN_BOOST
    path.write_text(json.dumps(index, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")


class SearchTuning(BasePlugin):
    def on_pre_build(self, config, **kwargs):
        self.evidence: set[str] = set()

    def on_page_markdown(self, markdown, page, config, files, **kwargs):
        boost = boost_of(page.file.src_uri)
        if boost is not None:
            search = dict(page.meta.get("search") or {})
            search.setdefault("boost", boost)
            page.meta["search"] = search
        return markdown

    def on_page_content(self, html, page, config, files, **kwargs):
        self.evidence.update(f"{page.url}#{i}" for i in evidence_sections(html))
        return exclude_provenance(html)

    def on_post_build(self, config, **kwargs):
        # after the search plugin's (listed before this one in mkdocs.yml) has written it
        index = Path(config["site_dir"]) / "search" / "search_index.json"
        if index.is_file():
            tune_index(index, frozenset(self.evidence))
