"""Every Markdown table of every page becomes an HTML <table> on the built site, and no
paragraph holds pipe text (§0.5's decode what-if once had no blank line before it and was
published as a paragraph of "| Link | net time per step |…")."""
from __future__ import annotations

import re
from html.parser import HTMLParser

DELIMITER = re.compile(r"^\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")
FENCE = re.compile(r"^\s*(`{3,}|~{3,})")


def table_blocks(text: str) -> int:
    """The Markdown tables of a page: a header row of pipes followed by a delimiter row,
    at any indent (a table in a note is indented), outside fenced code."""
    count, fence, previous = 0, None, ""
    for line in text.splitlines():
        m = FENCE.match(line)
        if fence is None and m:
            fence = m.group(1)
        elif fence is not None and line.strip().startswith(fence):
            fence = None
        elif fence is None and DELIMITER.match(line.strip()) and previous.strip().startswith("|"):
            count += 1
        previous = line if fence is None else ""
    return count


class _Article(HTMLParser):
    """The article's tables, and the text of each of its paragraphs."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tables, self.paragraphs, self._p, self._in_article = 0, [], None, False

    def handle_starttag(self, tag, attrs):
        if tag == "article":
            self._in_article = True
        elif self._in_article and tag == "table":
            self.tables += 1
        elif self._in_article and tag == "p":
            self._p = []

    def handle_endtag(self, tag):
        if tag == "article":
            self._in_article = False
        elif tag == "p" and self._p is not None:
            self.paragraphs.append("".join(self._p))
            self._p = None

    def handle_data(self, data):
        if self._p is not None:
            self._p.append(data)


def _article(html: str) -> _Article:
    parser = _Article()
    parser.feed(html)
    return parser


def _html_for(site, md_rel: str):
    stem = md_rel[:-3]
    if stem == "index" or stem.endswith("/index"):
        return site / stem[:-5] / "index.html"
    return site / stem / "index.html"


def test_table_blocks_finds_tables_outside_code_and_inside_notes():
    text = ("intro\n\n| a | b |\n| --- | --- |\n| 1 | 2 |\n\n```\n| not | a table |\n| --- | --- |\n```\n\n"
            '??? note "More"\n\n    | c |\n    |---|\n    | 3 |\n\ntext | with a pipe\n')
    assert table_blocks(text) == 2


def _piped(article: _Article) -> list[str]:
    return [p[:120] for p in article.paragraphs
            if any(line.strip().startswith("|") and line.count("|") >= 3 for line in p.splitlines())
            or DELIMITER.match(p.strip().splitlines()[-1] if p.strip() else "")]


def test_a_table_without_its_blank_line_is_caught_as_pipe_text():
    # what Python-Markdown made of §0.5 when the table followed a paragraph line directly
    old = ("<article><p>Decode what-if:\n| Link | net time per step |\n| --- | --- |\n"
           "| 1 GbE | 0.3 ms |</p><p>a | b is prose</p></article>")
    article = _article(old)
    assert article.tables == 0 and _piped(article) == [
        "Decode what-if:\n| Link | net time per step |\n| --- | --- |\n| 1 GbE | 0.3 ms |"]


def test_every_markdown_table_is_an_html_table_and_no_paragraph_is_pipe_text(built):
    checked = 0
    for md in sorted(built.docs.rglob("*.md")):
        rel = md.relative_to(built.docs).as_posix()
        if rel.startswith("includes/"):
            continue
        html = _html_for(built.site.resolve(), rel)
        assert html.is_file(), rel
        article = _article(html.read_text(encoding="utf-8"))
        expected = table_blocks(md.read_text(encoding="utf-8"))
        # every table block of the Markdown is a <table> (a page's own HTML tables add to them)
        assert article.tables >= expected, (rel, article.tables, expected)
        piped = _piped(article)
        assert not piped, (rel, piped)
        checked += expected
    assert checked > 100
