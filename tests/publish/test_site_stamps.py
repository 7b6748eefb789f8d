"""Every page ends with a build stamp that names its inputs; the site has a sitemap; no page
needs an emoji font.

The stamp's digest is worked here from the files themselves: each file the Data sources page
lists is hashed from disk (sha256), and the lines "<path>:<sha256>" in path order are hashed
again. A shared page stamps every file; a campaign page its own campaign's files.
"""
from __future__ import annotations

import csv
import hashlib
import re
import unicodedata
import xml.etree.ElementTree as ET
from pathlib import Path

from pipeline.project import CAMPAIGN_AREAS

STAMP = re.compile(r"\*\*Build stamp\*\*: newest measurement \*\*(\S+)\*\* · inputs\s+`([0-9a-f]{12})`: "
                   r"the sha256 of the paths and hashes of (\d+)\s+raw files")


def _pages(docs: Path) -> list[Path]:
    return sorted(p for p in docs.rglob("*.md") if "includes" not in p.relative_to(docs).parts)


def _sources(built) -> list[dict]:
    with open(built.docs / "data-sources" / "data" / "fct_data_sources.csv", newline="") as f:
        return list(csv.DictReader(f))


def _digest(built, rows: list[dict]) -> str:
    lines = []
    for r in sorted(rows, key=lambda r: r["source_file"]):
        on_disk = hashlib.sha256((built.raw_data / r["source_file"]).read_bytes()).hexdigest()
        assert on_disk == r["sha256"], r["source_file"]
        lines.append(f"{r['source_file']}:{on_disk}")
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()


def _stamp(page: Path) -> tuple[str, str, int]:
    found = STAMP.findall(page.read_text(encoding="utf-8"))
    assert len(found) == 1, f"{page}: {len(found)} build stamps"
    date, digest, files = found[0]
    return date, digest, int(files)


def test_every_page_ends_with_a_stamp_of_its_inputs(built):
    rows = _sources(built)
    everything = _digest(built, rows)
    campaigns = {}
    for r in rows:
        if r["campaign"]:
            campaigns.setdefault(r["campaign"], []).append(r)
    pages = _pages(built.docs)
    assert len(pages) >= 7 + len(campaigns)
    for page in pages:
        date, digest, files = _stamp(page)
        rel = page.relative_to(built.docs)
        if rel.parts[0] in CAMPAIGN_AREAS:
            own = campaigns[page.stem]
            assert (digest, files) == (_digest(built, own)[:12], len(own)), rel
        else:
            assert (digest, files) == (everything[:12], len(rows)), rel
        assert re.fullmatch(r"\d{4}-\d\d-\d\d", date), (rel, date)


def test_the_stamp_dates_are_the_newest_measurements(built):
    with open(built.docs / "index" / "data" / "fct_site_summary.csv", newline="") as f:
        site = next(csv.DictReader(f))
    dates = []
    for page in _pages(built.docs):
        rel = page.relative_to(built.docs)
        if rel.parts[0] in CAMPAIGN_AREAS:
            stamp = (built.docs / rel.parent / page.stem / "data" / "fct_campaign_stamp.csv")
            with open(stamp, newline="") as f:
                row = next(csv.DictReader(f))
            assert _stamp(page)[0] == row["newest_measurement_date"]
            dates.append(row["newest_measurement_date"])
    # the shared pages' date is the newest of the campaigns' (ISO dates sort as text)
    assert _stamp(built.docs / "index.md")[0] == site["newest_measurement_date"] == max(dates)


def test_without_an_address_the_sitemap_and_pages_never_name_the_dev_server(built):
    ns = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9"}
    locs = [e.text for e in ET.parse(built.site / "sitemap.xml").getroot().findall("s:url/s:loc", ns)]
    # config/publish.yaml ships site_url "" (the build has no SITE_URL): a sitemap holds
    # absolute addresses only, so it lists none rather than the dev server's
    # (tests/publish/test_site_address.py builds one with an address: every page is listed)
    assert locs == []
    home = (built.site / "index.html").read_text(encoding="utf-8")
    assert 'rel="canonical"' not in home and "127.0.0.1:8000" not in home


# Characters drawn as colour emoji by default (Unicode Emoji_Presentation), the ones a page could
# plausibly use: the pictographs from U+1F000 up, and the BMP symbols with emoji presentation.
_EMOJI_BMP = {0x231A, 0x231B, 0x23E9, 0x23EA, 0x23EB, 0x23EC, 0x23F0, 0x23F3, 0x25FD, 0x25FE,
              0x2614, 0x2615, 0x2648, 0x267F, 0x2693, 0x26A1, 0x26AA, 0x26AB, 0x26BD, 0x26BE,
              0x26C4, 0x26C5, 0x26CE, 0x26D4, 0x26EA, 0x26F2, 0x26F3, 0x26F5, 0x26FA, 0x26FD,
              0x2705, 0x270A, 0x270B, 0x2728, 0x274C, 0x274E, 0x2753, 0x2754, 0x2755, 0x2757,
              0x2795, 0x2796, 0x2797, 0x27B0, 0x27BF, 0x2B1B, 0x2B1C, 0x2B50, 0x2B55}


def _emoji(text: str) -> list[str]:
    return sorted({ch for ch in text if ord(ch) >= 0x1F000 or ord(ch) in _EMOJI_BMP
                   or ord(ch) == 0xFE0F})


def test_no_page_needs_an_emoji_font(built):
    # What changed quotes the previous published build's texts as they were (a badge changed
    # from an emoji is shown once, in the build that changed it), so it is left out
    for page in _pages(built.docs):
        if page.name == "what-changed.md":
            continue
        found = _emoji(page.read_text(encoding="utf-8"))
        names = [f"U+{ord(c):04X} {unicodedata.name(c, '?')}" for c in found]
        assert not found, f"{page}: {names}"


def test_the_emoji_check_sees_the_old_badges():
    assert _emoji("| 🟢 feasible | 🟡 marginal | 🔴 saturated | ✅ |") == ["✅", "🔴", "🟡", "🟢"]
    assert _emoji("| ✓ feasible | ◐ marginal | ✗ saturated |") == []


def test_feasibility_badges_are_shapes_a_text_font_has(built):
    with open(built.docs / "ethernet-bandwidth-math" / "data" / "dim_feasibility_thresholds.csv",
              newline="") as f:
        symbols = [r["symbol"] for r in csv.DictReader(f)]
    assert len(set(symbols)) == len(symbols) >= 3        # one distinct shape per class
    for s in symbols:
        assert not _emoji(s) and unicodedata.category(s[0]).startswith("S"), s


_CSV_LINK = re.compile(r"\]\(([^)\s]+\.csv)\)")


def test_every_shipped_csv_is_linked_and_every_csv_link_lands(built):
    linked = set()
    for page in _pages(built.docs):
        for target in _CSV_LINK.findall(page.read_text(encoding="utf-8")):
            path = (page.parent / target).resolve()
            assert path.is_file(), f"{page.relative_to(built.docs)} links {target}, which is not there"
            linked.add(path)
    shipped = {p.resolve() for p in built.docs.rglob("*.csv")}
    assert shipped, "no CSV in docs/"
    orphans = sorted(str(p.relative_to(built.docs.resolve())) for p in shipped - linked)
    assert orphans == []


def test_each_page_footer_links_the_csv_of_every_table_it_declares(built):
    from pipeline.publish.pages import discover_pages
    for p in discover_pages(built.templates):
        if p.per_campaign is not None or not p.marts:
            continue
        text = (built.docs / p.output()).read_text(encoding="utf-8")
        footer = text[text.index("**Build stamp**"):]
        for mart in p.marts:
            assert f"[{mart}]({p.slug()}/data/{mart}.csv)" in footer, (p.name, mart)


def test_the_data_dictionary_links_each_table_to_the_pages_that_publish_it(built):
    from pipeline.publish.pages import discover_pages
    text = (built.docs / "data-dictionary.md").read_text(encoding="utf-8")
    sections = dict(re.findall(r"^## (\S+)\n(.*?)(?=^## |\Z)", text, re.S | re.M))
    pages = discover_pages(built.templates)
    checked = 0
    for p in pages:
        for mart in p.marts:
            if mart not in sections:
                continue
            line = next(l for l in sections[mart].splitlines() if l.startswith("*Published on:*"))
            if p.per_campaign is None:
                assert f"[{p.title}]({p.output()}) ([CSV]({p.slug()}/data/{mart}.csv))" in line, (mart, p.name)
            else:
                assert f"every {p.title} page" in line, (mart, p.name)
            checked += 1
    assert checked >= 40


# A column whose name carries a dimension (project convention: base units in the name).
_DIMENSIONED = re.compile(r"(bytes|bits|_s$|_ms$|_s_|per_s$|per_s_|tokens_per|batch_size|fraction)")


def test_every_dimensioned_column_has_its_unit_in_the_data_dictionary(built):
    with open(built.docs / "data-dictionary" / "data" / "dim_data_dictionary.csv", newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["column_name"]]
    dimensioned = [r for r in rows if _DIMENSIONED.search(r["column_name"])]
    assert len(dimensioned) > 200
    missing = sorted({r["column_name"] for r in dimensioned if not r["unit"]}
                     - {"tokens_per_s_qualifier"})       # text: what the token rate counts
    assert missing == []
    unit = {r["column_name"]: r["unit"] for r in rows}
    # read from the name's last unit word, a direction qualifier left out
    assert unit["bytes_per_token"] == "bytes per token"
    assert unit["wire_bytes_per_position_head_to_worker"] == "bytes per position"
    assert unit["avg_wire_bits_per_s_worker_to_head"].startswith("bit/s")
    assert unit["rtt_avg_s"] == "seconds" and unit["s_per_token"] == "seconds per token"


def test_the_data_dictionary_links_each_table_to_the_sections_that_show_it(built):
    """'Used in' (pipeline/publish/used_in.py): every link lands on a heading that exists on its
    page; the feasibility cells are shown in §2.3, the decode table in §0.5."""
    page = (built.site / "data-dictionary" / "index.html").read_text(encoding="utf-8")
    used = dict(re.findall(r'<h2 id="([a-z0-9_]+)">.*?<em>Used in:</em>(.*?)</p>', page, re.S))
    assert len(used) >= 50
    linked = 0
    for table, text in used.items():
        for href in re.findall(r'href="([^"]+)"', text):
            path, _, anchor = href.partition("#")
            target = (built.site / "data-dictionary" / path / "index.html").resolve()
            assert anchor and f'id="{anchor}"' in target.read_text(encoding="utf-8"), (table, href)
            linked += 1
    assert linked >= 60
    assert "../ethernet-bandwidth-math/#23-feasibility-matrix" in used["fct_link_feasibility"]
    assert "#decode" in used["fct_decode_what_if"]
    # a table no page prints says so instead of linking anywhere
    assert used["fct_bytes_per_token"].strip() == "no section prints its figures"
