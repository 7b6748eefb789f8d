"""The Data dictionary's "Used in" links (pipeline/publish/used_in.py), on hand-written HTML: which
sections show a table (a Download note under a heading, the figures ledger, the page's CSV
footer), which pages are looked at, and the links written in place of each placeholder; and where each table is published
(pipeline/publish/published.py)."""
from __future__ import annotations

from types import SimpleNamespace

from pipeline.publish import used_in

PAGE = """<p>Download: <a href="data/fct_early.csv">before any heading: no section</a></p>
<h1 id="page-title">Page &amp; <em>title</em><a class="headerlink" href="#page-title">¶</a></h1>
<h2 id="links">Links</h2>
<table><tr><td>1</td></tr></table>
<p>Download: <a href="../data/fct_links.csv">fct_links.csv</a>, <a href="data/fct_other.csv">other</a></p>
<h2 id="a-rates">Rates</h2>
<p>Download: <a href="data/fct_links.csv">fct_links.csv</a></p>
<h3 id="extra">Extra</h3>
<p>Every table of this page as CSV: <a href="data/fct_links.csv">a</a> <a href="data/fct_inventory.csv">b</a></p>
"""


def test_a_table_is_shown_by_each_section_that_offers_or_prints_it():
    got = used_in._sections("p/", "T", PAGE, {"fct_printed": {"extra", "no-such-heading"}})
    assert got == {
        # in page order, which is not the ids' alphabetical order
        "fct_links": [("p/", "links", "Links"), ("p/", "a-rates", "Rates")],
        "fct_other": [("p/", "links", "Links")],
        "fct_printed": [("p/", "extra", "Extra")],          # the ledger's anchor that exists
        # shipped in the footer, printed nowhere: the page by its title (tags, ¶ and &amp; gone)
        "fct_inventory": [("p/", "page-title", "Page & title")],
    }


def test_a_page_without_headings_shows_nothing():
    assert used_in._sections("p/", "T", '<p>Every table of this page as CSV: '
                                          '<a href="data/fct_x.csv">x</a></p>') == {}


def test_the_ledger_gives_each_pages_tables_their_headings(tmp_path):
    assert used_in._printed(str(tmp_path)) == {}                 # no ledger yet: nothing printed
    ledger = tmp_path / "what-changed" / "data" / "figures.csv"
    ledger.parent.mkdir(parents=True)
    ledger.write_text("page,table,anchor,value\nindex,fct_a,sec-1,1\nindex,fct_a,sec-2,2\n"
                      "index,fct_b,,3\np2p/x,fct_a,sec-1,4\n", encoding="utf-8")
    assert used_in._printed(str(tmp_path)) == {"index": {"fct_a": {"sec-1", "sec-2"}},
                                               "p2p/x": {"fct_a": {"sec-1"}}}


def test_the_nav_is_read_in_order_at_every_depth():
    nav = ["index.md", {"Section": ["a.md", {"Sub": "b.md"}]}, {"C": "c.md"}]
    assert used_in._nav_sources({"nav": nav}) == ["index.md", "a.md", "b.md", "c.md"]
    assert used_in._nav_sources({"nav": None}) == []


def _page(src: str, url: str):
    return SimpleNamespace(file=SimpleNamespace(src_uri=src), url=url, title=None)


def test_links_are_relative_to_the_page_and_escaped():
    page = _page("reference/data-dictionary.md", "reference/data-dictionary/")
    assert used_in._links([], page) == "no section prints its figures"
    found = [("T <1>", "p2p/x/", "sec", "Head & more"), ("Home", "", "top", "Top")]
    assert used_in._links(found, page) == (
        '<a href="../../p2p/x/#sec">T &lt;1&gt;: Head &amp; more</a> · '
        '<a href="../..#top">Home: Top</a>')     # mkdocs' relative URL of the site's root


def _section(anchor: str, table: str) -> str:
    return f'<h2 id="{anchor}">{anchor}</h2>\n<p>Download: <a href="data/{table}.csv">x</a></p>\n'


def test_the_nav_pages_and_one_campaign_page_of_each_kind_are_looked_at(tmp_path):
    pages = {
        "index.md": ("", "Home", _section("home-links", "fct_links")),
        "ref.md": ("ref/", "Ref", _section("own", "fct_links")),           # the page itself
        "deployments/b.md": ("deployments/b/", "B", _section("b-sec", "fct_links")),
        "deployments/a.md": ("deployments/a/", "A", _section("a-sec", "fct_links")),
        "p2p/z.md": ("p2p/z/", "Z", _section("z-sec", "fct_p2p")),
        "unlisted.md": ("unlisted/", "U", _section("u-sec", "fct_links")),  # not in the nav
    }
    config = {"docs_dir": str(tmp_path), "nav": ["index.md", {"Reference": "ref.md"}]}
    used = used_in._used(pages, _page("ref.md", "ref/"), config)
    assert used == {"fct_links": [("Home", "", "home-links", "home-links"),
                                  ("A", "deployments/a/", "a-sec", "a-sec")],
                    "fct_p2p": [("Z", "p2p/z/", "z-sec", "z-sec")]}


def test_the_plugin_replaces_each_placeholder_once_every_page_was_read(tmp_path):
    plugin = used_in.UsedIn()
    config = {"docs_dir": str(tmp_path), "nav": ["index.md", "ref.md"]}
    plugin.on_pre_build(config)
    home, ref = _page("index.md", ""), _page("ref.md", "ref/")
    home.title = "Home"
    assert plugin.on_page_content(_section("s", "fct_a"), home, config, None) == _section("s", "fct_a")
    plugin.on_page_content("", ref, config, None)
    out = plugin.on_post_page('<span class="used-in" data-table="fct_a"></span> and '
                              '<span class="used-in" data-table="fct_none"></span>', ref, config)
    assert out == '<a href="..#s">Home: s</a> and no section prints its figures'
    assert plugin.on_post_page("<p>no placeholder</p>", ref, config) == "<p>no placeholder</p>"
    assert plugin.pages["ref.md"] == ("ref/", "ref.md", "")      # a page without title: its file


def test_each_table_is_published_by_the_pages_that_declare_it(tmp_path):
    from pathlib import Path

    from pipeline.publish.pages import Page
    from pipeline.publish.published import published_in
    shared = Page(Path("templates/ethernet-bandwidth-math.md.j2"), "Ethernet math", ("fct_a", "fct_b"))
    per = Page(Path("templates/deployment.md.j2"), "A deployment", ("fct_a",), "deployment")
    p2p = Page(Path("templates/p2p.md.j2"), "A p2p campaign", ("fct_b",), "p2p")
    assert published_in([shared, per, p2p]) == {
        "fct_a": [{"title": "Ethernet math", "page": "ethernet-bandwidth-math.md", "area": None,
                   "csv": "ethernet-bandwidth-math/data/fct_a.csv"},
                  {"title": "A deployment", "page": None, "csv": None, "area": "deployments"}],
        "fct_b": [{"title": "Ethernet math", "page": "ethernet-bandwidth-math.md", "area": None,
                   "csv": "ethernet-bandwidth-math/data/fct_b.csv"},
                  {"title": "A p2p campaign", "page": None, "csv": None, "area": "p2p"}],
    }
    assert published_in([]) == {}
