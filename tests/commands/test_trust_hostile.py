"""Hostile text from raw data (tests/fixtures/campaigns/hostile): `|`, backticks, <script>,
{{ }} and newlines in the campaign title, host names, interface names, link label and
journal/ping text. Built with the site, then the HTML is read back: no script from the data,
every table row has its header's cell count, no template expression was evaluated, and the
hostile strings are shown as text."""
import json
import re
import shutil
from html import unescape
from html.parser import HTMLParser
from pathlib import Path

import pytest

from conftest import build_copy
from paths import FIXTURES

FIXTURE = FIXTURES / "campaigns" / "hostile"
PAGES = ["index.html", "data-sources/index.html", "data-quality/index.html"]


class Tables(HTMLParser):
    """Cell counts of every table row, the text of every cell and every <script> element."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tables, self.scripts, self.cells = [], [], []
        self._cell = None
        self._script = None

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.tables.append([])
        elif tag == "tr" and self.tables:
            self.tables[-1].append(0)
        elif tag in ("td", "th") and self.tables:
            self.tables[-1][-1] += 1
            self._cell = []
        elif tag == "script":
            self._script = []

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self.cells.append("".join(self._cell))
            self._cell = None
        elif tag == "script" and self._script is not None:
            self.scripts.append("".join(self._script))
            self._script = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)
        if self._script is not None:
            self._script.append(data)


def parse(path: Path) -> Tables:
    t = Tables()
    t.feed(path.read_text())
    return t


# File names are data too: they reach provenance notes, Data sources and Data quality. Made by
# the test (not committed): one good ping file and one bad one under hostile names.
HOSTILE_NAME = ("x|y `z` <script>alert('path') <img src=x onerror=alert(2)> <!-- {{ 'pwn' ~ 'ed' }} "
                "[l](javascript:alert(1)) *e* &amp;")      # no '/': that would be a folder
GOOD_FILE = f"ping/{HOSTILE_NAME}.txt"
BAD_FILE = f"ping/bad {HOSTILE_NAME}.txt"


def _add_hostile_files(root: Path) -> None:
    dest = root / "raw_data/deployments/hostile"
    shutil.copytree(FIXTURE, dest)
    # other bytes than its source (else it is a duplicate, not ingested)
    (dest / GOOD_FILE).write_text((dest / "ping/head-to-worker.txt").read_text() + "\n")
    shutil.copy(dest / "ping/hostile-garbage.txt", dest / BAD_FILE)
    sender, receiver = json.dumps("head|<script>alert('head')</script>"), json.dumps("work`er`\n{{ 'pwn' ~ 'ed' }}")
    with (dest / "manifest.yaml").open("a") as fh:
        for path in (GOOD_FILE, BAD_FILE):    # a JSON string is a YAML double-quoted scalar
            fh.write(f"  - path: {json.dumps(path)}\n    format: ping\n"
                     f"    context: {{link: lan, sender: {sender}, receiver: {receiver}}}\n")


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    return build_copy(tmp_path_factory.mktemp("hostile"), edit=_add_hostile_files)


@pytest.mark.parametrize("page", PAGES)
def test_no_script_from_data(hostile, page):
    html = (hostile.site / page).read_text()
    assert "<script>alert" not in html
    for script in parse(hostile.site / page).scripts:
        assert "alert(" not in script


@pytest.mark.parametrize("page", PAGES)
def test_every_table_row_has_the_header_cell_count(hostile, page):
    for rows in parse(hostile.site / page).tables:
        assert rows and len(set(rows)) == 1, f"{page}: row cell counts {rows}"


def test_no_template_expression_evaluated(hostile):
    for html in sorted(hostile.site.rglob("*.html")):
        assert "pwned" not in html.read_text(), html
    for md in sorted(hostile.docs.rglob("*.md")):
        assert "pwned" not in md.read_text(), md


def test_hostile_strings_reach_the_pages_as_text(hostile):
    """The fixture is not silently dropped: its strings are on the pages, shown literally."""
    cells = parse(hostile.site / "index.html").cells
    assert any("head|<script>alert('head')</script>" in c for c in cells)   # a host name
    assert any("Label | <script>alert('label')</script>" in c for c in cells)  # the link label
    quality = parse(hostile.site / "data-quality/index.html").cells
    # the ping file whose text is markup is quarantined and its reason quotes it, inert
    assert any("hostile-garbage.txt" in c for c in quality)


@pytest.mark.parametrize("page, path", [("data-sources/index.html", GOOD_FILE),
                                         ("data-quality/index.html", BAD_FILE)])
def test_hostile_file_names_are_shown_as_text(hostile, page, path):
    # the good file is listed among the sources, the bad one among the quarantined files; each
    # name reaches the page literally (no <script>, no link, no emphasis made from it)
    html = (hostile.site / page).read_text()
    _inert(html)
    assert any(f"deployments/hostile/{path}" in c for c in parse(hostile.site / page).cells), page


def _inert(html: str) -> None:
    assert "<script>alert('path')" not in html and "<img src=x" not in html
    assert 'href="javascript:' not in html and "<em>e</em>" not in html and "<!-- {{" not in html


def _text(html: str) -> str:
    """The page's text as a reader sees it: tags removed, entities decoded."""
    return unescape(re.sub(r"<[^>]*>", "", html))


def test_the_hostile_named_file_is_ingested_and_its_row_sourced(hostile):
    # the ping under a hostile name is a good file: its row's provenance note names it, as text
    page = (hostile.site / "deployments/hostile/index.html").read_text()
    _inert(page)
    text = _text(page)
    assert f"deployments/hostile/{GOOD_FILE}" in text
    # ingested, so not among the campaign's files not used (where the bad one is)
    section = page.split(">Files not used")[1].split("<h2")[0]
    assert GOOD_FILE not in _text(section) and BAD_FILE in _text(section)
