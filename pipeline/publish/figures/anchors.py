"""The section each figure is in: markers in the rendered Markdown become heading anchors.

Headings get the ids mkdocs gives them (Python-Markdown's ``toc`` extension: its ``slugify``
and its ``_1``, ``_2`` suffixes for repeats, or an explicit ``{#id}``), so a link to
``page.md#anchor`` lands on the figure's section. Fenced code is skipped. The markers are
removed from the text that is published.
"""
from __future__ import annotations

import html
import re

from markdown.extensions.toc import slugify, unique

from pipeline.publish.figures.tracked import MARK_CLOSE, MARK_OPEN

_MARK = re.compile(f"{MARK_OPEN}(\\d+){MARK_CLOSE}")
_HEADING = re.compile(r"^(#{1,6})[ \t]+(.*?)[ \t#]*$")
_ATTR_ID = re.compile(r"\s*\{[^}]*#([\w\-:.]+)[^}]*\}\s*$")
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
_INLINE = re.compile(r"[`*_]|<[^>]+>|!?\[([^\]]*)\]\([^)]*\)")


def heading_id(text: str, used: set[str]) -> str:
    m = _ATTR_ID.search(text)
    if m:
        used.add(m.group(1))
        return m.group(1)
    plain = _INLINE.sub(lambda mm: mm.group(1) or "", text)
    return unique(slugify(html.unescape(plain), "-"), used)


def strip(text: str) -> tuple[str, dict[int, str]]:
    """The text without markers, and the anchor (``""`` before any heading) of each marker."""
    anchors: dict[int, str] = {}
    used: set[str] = set()
    current = ""
    fence = None
    out = []
    for line in text.split("\n"):
        m = _FENCE.match(line)
        if m:
            mark = m.group(1)
            if fence is None:
                fence = mark
            elif mark[0] == fence[0] and len(mark) >= len(fence) and not line.strip()[len(mark):]:
                fence = None
        elif fence is None:
            h = _HEADING.match(line)
            if h:
                current = heading_id(_MARK.sub("", h.group(2)), used)
        for found in _MARK.finditer(line):
            anchors[int(found.group(1))] = current
        out.append(_MARK.sub("", line) if MARK_OPEN in line else line)
    return "\n".join(out), anchors
