"""The built site in a real browser: headless Debian Chromium driven by Playwright.

The session's ``built`` site is served on a loopback port (http.server in a thread; search
needs http, not file://) and every page in mkdocs.yml's nav is opened: no console error or
failed request, every table and chart visible, search finds the constants table, the dark
palette toggle works, wide tables scroll inside the page. Screenshots of every page and
chart go to test-artifacts/browser/ so a failure can be looked at.

Chromium comes from apt (scripts/install_browser.sh), never downloaded at test time. When it
or the playwright package is missing the tests skip with that reason; under CI=true a missing
browser is a failure.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from pipeline.project import CAMPAIGN_AREAS

from site_browser import ARTIFACTS, NAV, browser, site_url, url_path, visit  # noqa: F401 (fixtures)

def _slug(s: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", s.lower()).strip("-") or "home"


def _reveal_all(page) -> None:
    """Open every collapsible note, so that tables kept in a closed <details> can be checked
    (tables in an inactive content tab are revealed one by one by clicking their tab)."""
    page.evaluate("document.querySelectorAll('article details').forEach(d => d.open = true)")


PAGE_IDS = [_slug(t) for t, _ in NAV]


def _charts_ready(page) -> None:
    """Wait until docs/javascripts/charts.js has put every chart inline."""
    page.wait_for_function("document.documentElement.dataset.charts === 'ready'")


@pytest.mark.parametrize("title,md", NAV, ids=PAGE_IDS)
def test_page_tables_and_charts_visible(site_url, visit, title, md):
    v = visit(viewport={"width": 1280, "height": 900})
    page = v.page
    page.goto(site_url + url_path(md), wait_until="load")
    name = _slug(title)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))
    assert page.locator("article h1").count() >= 1, f"{md}: no heading rendered"
    _reveal_all(page)

    # Every table: visible once its note is open and its tab selected.
    tables = page.locator("article table")
    hidden = []
    for i in range(tables.count()):
        table = tables.nth(i)
        if not table.is_visible():
            # Inside an inactive tab: click the label with the same index as its block.
            page.evaluate("""t => {
                const block = t.closest('.tabbed-block');
                if (!block) return;
                const set = block.closest('.tabbed-set');
                const blocks = [...set.querySelector('.tabbed-content').children];
                set.querySelectorAll(':scope > .tabbed-labels > label')[blocks.indexOf(block)].click();
            }""", table.element_handle())
        box = table.bounding_box()
        if not table.is_visible() or not box or box["width"] < 1 or box["height"] < 1:
            hidden.append(f"table {i + 1}: {table.inner_text()[:80]!r}")
    assert not hidden, f"{md}: tables not visible: {hidden}"

    # Every chart: put inline by charts.js (so it takes the page's palette), visible, labelled.
    _charts_ready(page)
    charts = page.locator("article a.chart-enlarge")
    broken = []
    for i in range(charts.count()):
        link = charts.nth(i)
        href = link.get_attribute("href")
        svg = link.locator("svg.chart")
        if svg.count() != 1:
            broken.append(f"{href}: not inlined ({link.inner_html()[:80]!r})")
            continue
        svg.scroll_into_view_if_needed()
        if not svg.is_visible():
            broken.append(f"{href}: not visible")
        elif not (svg.get_attribute("aria-label") or "").strip():
            broken.append(f"{href}: no alt text")
        else:
            svg.screenshot(path=str(ARTIFACTS / f"{name}--{Path(href).stem}.png"))
    assert not broken, f"{md}: {broken}"
    page.screenshot(path=str(ARTIFACTS / f"{name}--revealed.png"))
    assert v.errors == [], f"{md}: {v.errors}"


def test_every_chart_on_disk_is_on_a_page(site_url, visit, built):
    """A chart the pipeline writes but no page shows is a chart nobody sees (the pages of the
    nav and every campaign's own page)."""
    shown = set()
    campaign_pages = [(None, p.relative_to(built.docs).as_posix())
                      for area in CAMPAIGN_AREAS for p in sorted((built.docs / area).glob("*.md"))]
    for _, md in [*NAV, *campaign_pages]:
        v = visit()
        v.page.goto(site_url + url_path(md), wait_until="load")
        for src in v.page.locator("article a.chart-enlarge").evaluate_all("es => es.map(e => e.href)"):
            shown.add(src[len(site_url):])
            # and its phone variant, which the figure names beside it (tests/publish/charts/test_narrow_charts.py)
            shown.add(src[len(site_url):-4] + "-narrow.svg")
        v.close()
    on_disk = {p.relative_to(built.site.resolve()).as_posix()
               for p in built.site.resolve().rglob("*.svg") if "assets" not in p.parts}
    assert on_disk, "no chart in the built site"
    assert on_disk - shown == set()


def test_search_finds_the_constants_table(site_url, visit):
    v = visit(viewport={"width": 1280, "height": 900})
    page = v.page
    page.goto(site_url + "ethernet-bandwidth-math/", wait_until="load")
    # The section that holds the constants table: the heading before the table listing hidden_size.
    anchor = page.evaluate("""() => {
        const t = [...document.querySelectorAll('article table')]
            .find(t => t.innerText.includes('hidden_size'));
        if (!t) return null;
        let n = t.closest('.md-typeset__scrollwrap') || t;
        while (n && !/^H[1-6]$/.test(n.tagName)) n = n.previousElementSibling;
        return n ? n.id : null;
    }""")
    assert anchor, "no table with hidden_size under a heading on the Ethernet page"
    search = page.locator("input.md-search__input")
    search.click()
    search.press_sequentially("hidden size")  # real key events: Material searches on keyup
    results = page.locator(".md-search-result__item a")
    results.first.wait_for(state="visible")
    page.screenshot(path=str(ARTIFACTS / "search-hidden-size.png"))
    # Results link as <page>/?h=<terms>#<section>.
    hits = results.evaluate_all("es => es.map(e => { const u = new URL(e.href); return [u.pathname, u.hash]; })")
    assert ["/ethernet-bandwidth-math/", f"#{anchor}"] in hits, hits
    assert v.errors == [], v.errors


def test_dark_palette_toggle(site_url, visit):
    v = visit(viewport={"width": 1280, "height": 900})
    page = v.page
    page.goto(site_url, wait_until="load")
    scheme = "document.body.getAttribute('data-md-color-scheme')"
    background = "getComputedStyle(document.body).backgroundColor"
    assert page.evaluate(scheme) == "default"
    light_bg = page.evaluate(background)
    page.locator("form[data-md-component='palette'] label:visible").first.click()
    page.wait_for_function(f"{scheme} === 'slate'")
    page.screenshot(path=str(ARTIFACTS / "home-dark.png"))
    assert page.evaluate(background) != light_bg
    # The choice survives a reload (Material keeps it in localStorage).
    page.reload(wait_until="load")
    assert page.evaluate(scheme) == "slate"
    assert v.errors == [], v.errors


@pytest.mark.parametrize("os_setting, scheme", [("dark", "slate"), ("light", "default")])
def test_first_visit_follows_the_readers_os_palette(site_url, visit, os_setting, scheme):
    v = visit(viewport={"width": 1280, "height": 900}, color_scheme=os_setting)
    v.page.goto(site_url, wait_until="load")
    assert v.page.evaluate("document.body.getAttribute('data-md-color-scheme')") == scheme
    assert v.errors == [], v.errors


def test_wide_tables_scroll_instead_of_widening_the_page(site_url, visit):
    v = visit(viewport={"width": 600, "height": 900})
    page = v.page
    page.goto(site_url + "ethernet-bandwidth-math/", wait_until="load")
    page.screenshot(path=str(ARTIFACTS / "ethernet-bandwidth-math--narrow.png"))
    page_width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert page_width[0] <= page_width[1], f"page scrolls sideways: {page_width}"
    # ... and at this width some table really is wider than its box (so the check above bites).
    scrolling = page.evaluate("""() => [...document.querySelectorAll('article table, article .md-typeset__scrollwrap')]
        .filter(w => w.clientWidth > 0 && w.scrollWidth > w.clientWidth + 1).length""")
    assert scrolling >= 1


def test_unit_abbreviations_have_titles(site_url, visit):
    v = visit()
    page = v.page
    page.goto(site_url + "ethernet-bandwidth-math/", wait_until="load")
    titles = page.evaluate("""() => Object.fromEntries([...document.querySelectorAll('article abbr[title]')]
        .map(a => [a.textContent, a.title]))""")
    # KiB is 1024-based, KB 1000-based: the hover text must say which.
    assert "1,024" in titles.get("KiB", ""), titles.get("KiB")
    assert "Mbit/s" in titles and "tok/s" in titles, sorted(titles)


def test_a_tap_on_a_unit_shows_its_definition(site_url, visit):
    """On a phone there is no hover: a tap opens the unit's definition, a second tap closes it."""
    v = visit(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
    page = v.page
    page.goto(site_url + "ethernet-bandwidth-math/", wait_until="load")
    unit = page.locator("article abbr[title]", has_text="KiB").first
    unit.scroll_into_view_if_needed()
    unit.tap()
    tip = page.locator("article .abbr-tip")
    assert tip.count() == 1 and tip.is_visible()
    assert tip.inner_text() == unit.get_attribute("title") and "1,024" in tip.inner_text()
    unit.tap()
    assert page.locator("article .abbr-tip").count() == 0
    # and from the keyboard
    unit.focus()
    page.keyboard.press("Enter")
    assert page.locator("article .abbr-tip").count() == 1
    page.keyboard.press("Escape")
    assert page.locator("article .abbr-tip").count() == 0
    assert v.errors == [], v.errors


QUANTITIES = [
    ("940 Mbit/s", 940e6), ("2.35 Gbit/s", 2.35e9), ("1,234 ms", 1.234), ("12.5 %", 12.5),
    ("\u22123 ms", -0.003), ("39.8 KiB", 39.8 * 1024), ("10 GbE (Cat6)", 10.0),
    ("0.74 ms (RTT 0.74 + wire 3.4)", 0.00074), ("—", None), ("2026-01-01", None),
    ("eth0", None), ("", None),
]


def test_cells_are_read_as_quantities_in_base_units(site_url, visit):
    v = visit()
    v.page.goto(site_url, wait_until="load")
    got = v.page.evaluate("xs => xs.map(x => window.interconnectTables.quantity(x))",
                          [text for text, _ in QUANTITIES])
    for (text, want), value in zip(QUANTITIES, got):
        assert (value is None) == (want is None), (text, value)
        if want is not None:
            assert value == pytest.approx(want, rel=1e-12), text
    assert v.errors == []


def _long_table(page):
    """The first table with more than 8 body rows that has a column of quantities, and that
    column's index."""
    return page.evaluate("""() => {
        const q = window.interconnectTables.quantity;
        const tables = [...document.querySelectorAll('article table:not([class])')];
        for (const [t, table] of tables.entries()) {
            const rows = [...table.tBodies[0].rows];
            if (rows.length <= 8) continue;
            for (let c = 0; c < table.tHead.rows[0].cells.length; c++) {
                const values = rows.map(r => r.cells[c] ? q(r.cells[c].textContent) : null);
                const distinct = new Set(values.filter(x => x !== null));
                if (distinct.size >= 3) return [t, c];
            }
        }
        return null;
    }""")


def _column(page, t, c):
    return page.evaluate("""([t, c]) => {
        const table = document.querySelectorAll('article table:not([class])')[t];
        return [...table.tBodies[0].rows].filter(r => !r.hidden)
            .map(r => window.interconnectTables.quantity(r.cells[c].textContent));
    }""", [t, c])


def test_a_long_table_sorts_by_value_and_filters_its_rows(site_url, visit):
    v = visit(viewport={"width": 1280, "height": 900})
    page = v.page
    page.goto(site_url + "point-to-point/", wait_until="load")
    _reveal_all(page)
    found = _long_table(page)
    assert found, "no long table with a column of quantities on Point to Point"
    t, c = found
    table = page.locator("article table:not([class])").nth(t)
    header = table.locator("thead th").nth(c)
    header.scroll_into_view_if_needed()
    before = _column(page, t, c)
    header.click()
    assert header.get_attribute("aria-sort") == "ascending"
    values = _column(page, t, c)
    assert sorted(values, key=lambda x: (x is not None, x or 0)) == values  # missing first
    assert sorted(before, key=lambda x: (x is not None, x or 0)) == values  # same rows
    header.click()
    assert header.get_attribute("aria-sort") == "descending"
    values = _column(page, t, c)
    assert sorted(values, key=lambda x: (x is None, -(x or 0))) == values   # missing last

    # Filter by the first cell of the last row: only rows containing it stay.
    box = page.locator(".table-filter").nth(
        page.evaluate("t => [...document.querySelectorAll('article table:not([class])')]"
                      ".slice(0, t + 1).filter(x => x.dataset.filter === 'on').length - 1", t))
    rows = table.locator("tbody tr")
    total = rows.count()
    word = rows.nth(total - 1).locator("td").first.inner_text().strip().split()[0]
    box.locator("input").fill(word)
    shown = [rows.nth(i) for i in range(total) if rows.nth(i).is_visible()]
    assert 1 <= len(shown) <= total
    assert all(word.lower() in r.text_content().lower() for r in shown)
    hidden_rows = [rows.nth(i) for i in range(total) if not rows.nth(i).is_visible()]
    assert all(word.lower() not in r.text_content().lower() for r in hidden_rows)
    assert box.locator(".table-filter__count").inner_text() == f"{len(shown)} of {total} rows"
    box.locator("input").fill("")
    assert sum(rows.nth(i).is_visible() for i in range(total)) == total
    assert v.errors == [], v.errors


def test_a_quantity_never_wraps_between_number_and_unit_on_a_phone(site_url, visit):
    v = visit(viewport={"width": 390, "height": 844})
    page = v.page
    page.goto(site_url + "point-to-point/", wait_until="load")
    cells = page.evaluate("""() => [...document.querySelectorAll('article td.quantity')]
        .map(td => [td.textContent.trim(), getComputedStyle(td).whiteSpace])""")
    assert len(cells) > 20, cells[:5]
    assert all(ws == "nowrap" for _, ws in cells), [c for c in cells if c[1] != "nowrap"][:5]
    assert any(text.endswith(("Mbit/s", "Gbit/s")) for text, _ in cells)
    assert v.errors == [], v.errors


@pytest.mark.parametrize("title,md", [(t, m) for t, m in NAV if m in (
    "ethernet-bandwidth-math.md", "point-to-point.md")], ids=lambda x: _slug(str(x)))
def test_every_chart_opens_at_full_size_on_a_click(site_url, visit, title, md):
    v = visit(viewport={"width": 390, "height": 844})
    page = v.page
    page.goto(site_url + url_path(md), wait_until="load")
    _charts_ready(page)
    hrefs = page.locator("article a.chart-enlarge").evaluate_all("es => es.map(e => e.href)")
    assert hrefs, f"{md}: no chart"
    assert all(h.endswith(".svg") for h in hrefs), hrefs
    chart = page.locator("article a.chart-enlarge svg.chart").first
    chart.scroll_into_view_if_needed()
    chart.click()
    page.wait_for_url("**/*.svg")
    assert page.url == hrefs[0]
    assert v.errors == [], v.errors


def test_data_sources_fold_each_campaign_and_count_its_files(site_url, visit):
    v = visit(viewport={"width": 1280, "height": 900})
    page = v.page
    page.goto(site_url + "data-sources/", wait_until="load")
    folded = page.evaluate("document.documentElement.scrollHeight")
    groups = page.evaluate("""() => [...document.querySelectorAll('article details')]
        .filter(d => d.querySelector('table'))
        .map(d => [d.querySelector('summary').textContent, d.querySelector('tbody').rows.length,
                   d.open])""")
    headings = page.locator("article h2").count()
    assert len(groups) == headings >= 2                 # one fold per campaign heading
    for summary, rows, is_open in groups:
        assert not is_open
        assert summary.startswith(f"{rows} file"), (summary, rows)
    _reveal_all(page)
    unfolded = page.evaluate("document.documentElement.scrollHeight")
    assert folded < 4000 < unfolded, (folded, unfolded)
    assert v.errors == [], v.errors


# Each nav page and one campaign page with charts, at a desktop and a phone width, in both
# palettes. The screenshots (the first screen) are the record a failure is looked at with.
SCREENS = [(1440, 900), (390, 844)]
SHOT_PAGES = [*NAV, ("qwen38-27b-pp", "deployments/qwen38-27b-pp.md")]
MIN_CHART_TEXT_PX = 11
MIN_SCALED_CHART_TEXT_PX = 9


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("width,height", SCREENS, ids=[f"{w}px" for w, _ in SCREENS])
@pytest.mark.parametrize("title,md", SHOT_PAGES, ids=[_slug(t) for t, _ in SHOT_PAGES])
def test_every_page_at_each_width_and_palette(site_url, visit, title, md, width, height, scheme):
    v = visit(viewport={"width": width, "height": height}, color_scheme=scheme)
    page = v.page
    page.goto(site_url + url_path(md), wait_until="load")
    _charts_ready(page)
    # The record of the page is its first screen; the rest is asserted from the DOM below. A
    # full-page PNG of the Data dictionary at 1440 px (10 MB) failed under load with "Unable to
    # capture screenshot", so no test here depends on the machine being quiet.
    page.screenshot(path=str(ARTIFACTS / f"{_slug(title)}--{width}px-{scheme}.png"))
    # The page never scrolls sideways as a whole (wide tables and charts scroll in their box).
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"{md} at {width}px: the page is {overflow}px wider than the screen"
    charts = page.evaluate("""() => {
        const bodyBg = getComputedStyle(document.body).backgroundColor;
        return [...document.querySelectorAll('article svg.chart')].map(svg => {
            const sizes = [...svg.querySelectorAll('text')].map(t => {
                const m = t.getScreenCTM();          // rotated labels: the scale is |(a, b)|
                return parseFloat(getComputedStyle(t).fontSize) * Math.hypot(m.a, m.b);
            });
            const bg = svg.querySelector('.chart-bg');
            const axis = svg.querySelector('[stroke="#000000"]');
            const article = svg.closest('article');
            return {label: svg.getAttribute('aria-label'), smallest: Math.min(...sizes),
                    variant: svg.dataset.variant, scale: parseFloat(svg.dataset.scale),
                    drawn: svg.getBoundingClientRect().width, column: article.clientWidth,
                    href: svg.closest('a').getAttribute('href'),
                    bg: bg && getComputedStyle(bg).fill, bodyBg,
                    axis: axis && getComputedStyle(axis).stroke,
                    shade: (() => { const r = svg.querySelector('[fill="#f2f2f2"]');
                                    return r && getComputedStyle(r).fill; })(),
                    ink: getComputedStyle(document.body).color};
        });
    }""")
    for c in charts:
        # drawn at 11 px; scaled to a desktop column, never below 9 px
        floor = MIN_CHART_TEXT_PX if c["scale"] == 1 else MIN_SCALED_CHART_TEXT_PX
        assert c["smallest"] >= floor - 0.01, (md, width, c["label"], c["smallest"])
        # a desktop reader gets the full chart, never the phone's (at 1440 px it fits the column)
        if width >= 1200:
            assert c["variant"] == "full", (md, width, c["label"], c["column"])
            assert c["drawn"] <= c["column"] + 0.5, (md, width, c["label"], c["drawn"], c["column"])
        # Sized to the text column: on the phone the chart's narrow variant is shown, whole,
        # no sideways scroll; the link still opens the full chart.
        if width < 600:
            assert c["drawn"] <= c["column"], (md, c["label"], c["drawn"], c["column"])
            assert not c["href"].endswith("-narrow.svg")
        # Drawn in the page's palette: the chart's background is the page's, its axes the ink.
        assert c["bg"] == c["bodyBg"], (md, scheme, c)
        if c["axis"]:
            assert c["axis"] == c["ink"], (md, scheme, c)
    if md in ("ethernet-bandwidth-math.md", "point-to-point.md"):
        assert charts, f"{md}: no inline chart"
    # No table is cut without a cue: each box narrower than its table is marked, says so
    # above it, and keeps its first column in view.
    _reveal_all(page)
    uncued = page.evaluate("""() => [...document.querySelectorAll('article .md-typeset__scrollwrap')]
        .filter(w => w.clientWidth > 0 && w.scrollWidth > w.clientWidth + 1)
        .filter(w => { let cue = w.previousElementSibling;
            if (cue && cue.classList.contains('figure-permalink')) cue = cue.previousElementSibling;
            const first = w.querySelector('tbody td');
            return !w.classList.contains('scrolls') || !cue || !cue.classList.contains('table-scroll-cue')
                || cue.getBoundingClientRect().height === 0
                || (first && getComputedStyle(first).position !== 'sticky'); })
        .map(w => w.innerText.slice(0, 60))""")
    assert not uncued, (md, width, uncued)
    if scheme == "dark":
        assert all(c["bg"] != "rgb(255, 255, 255)" for c in charts)
        # the measured-window shading is a faint wash, not a near-white block
        assert all(c["shade"] in (None, "") or c["shade"].startswith("rgba(") for c in charts), \
            [c["shade"] for c in charts]
    assert v.errors == [], f"{md}: {v.errors}"


DECISION_PAGES = [(t, m) for t, m in NAV if m in ("index.md", "ethernet-bandwidth-math.md",
                                                   "point-to-point.md")]


@pytest.mark.parametrize("width,height", SCREENS, ids=[f"{w}px" for w, _ in SCREENS])
@pytest.mark.parametrize("title,md", DECISION_PAGES, ids=[_slug(t) for t, _ in DECISION_PAGES])
def test_the_bottom_line_is_on_the_first_screen(site_url, visit, title, md, width, height):
    v = visit(viewport={"width": width, "height": height})
    page = v.page
    page.goto(site_url + url_path(md), wait_until="load")
    box = page.locator("article .admonition.abstract").first
    assert box.locator(".admonition-title").inner_text().strip() == "Bottom line"
    top = box.bounding_box()
    # the box starts on the first screen and is the first block after the page title
    assert top and top["y"] < height * 0.5, (md, width, top)
    first_block = page.evaluate("""() => { const h = document.querySelector('article h1');
        let n = h.nextElementSibling; return n && n.className; }""")
    assert "abstract" in first_block, first_block
    assert box.locator("li").count() >= 2
    page.screenshot(path=str(ARTIFACTS / f"{_slug(title)}--bottom-line-{width}px.png"))
    assert v.errors == [], v.errors


def test_point_to_point_ranks_the_region_pairs_for_pipeline_parallelism(site_url, visit, built):
    v = visit(viewport={"width": 1440, "height": 900})
    page = v.page
    page.goto(site_url + "point-to-point/", wait_until="load")
    table = page.locator("#pp-verdict ~ .md-typeset__scrollwrap table").first
    headers = table.locator("thead th").all_inner_texts()
    assert headers[:5] == ["Rank", "Pair", "RTT (worse)", "NCCL bandwidth (worse)",
                           "Latency bound (compute-free)"]
    ranks = [int(t) for t in table.locator("tbody tr td:first-child").all_inner_texts()]
    # one row per region pair: n regions give n (n - 1) / 2 pairs, ranked 1..N by RTT
    import csv
    with open(built.docs / "point-to-point" / "data" / "fct_p2p_pp_verdict.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    featured = {r["campaign"] for r in rows if r["pair_rank"] == "1"}
    regions = {r["region_a"] for r in rows} | {r["region_b"] for r in rows}
    if len(featured) == 1:
        assert ranks == list(range(1, len(regions) * (len(regions) - 1) // 2 + 1))
    rtts = [float(t.split()[0]) for t in table.locator("tbody tr td:nth-child(3)").all_inner_texts()
            if t.strip() != "—"]
    assert rtts == sorted(rtts) and rtts
    assert v.errors == [], v.errors


def test_a_phone_reads_the_data_dictionarys_explanations_without_scrolling(site_url, visit):
    v = visit(viewport={"width": 390, "height": 844})
    page = v.page
    page.goto(site_url + "data-dictionary/", wait_until="load")
    # the second column of every table is "What it holds", inside the screen and wide enough to read
    cells = page.evaluate("""() => [...document.querySelectorAll('article table')].map(t => {
        const th = t.querySelectorAll('thead th')[1], r = th.getBoundingClientRect();
        return [th.innerText.trim(), r.right, r.width]; })""")
    assert len(cells) > 40
    bad = [c for c in cells if c[0] != "What it holds" or c[1] > 390.5]
    assert not bad, bad[:5]
    assert v.errors == [], v.errors


# ------------------------------------------------------------------------ "Your setup"
def _rate_text(bits: float) -> str:
    """whatif.js's rate(): Gbit/s with 2 decimals from 1e9, Mbit/s (0 decimals from 1e8, else 1)."""
    if bits >= 1e9:
        return f"{bits / 1e9:,.2f} Gbit/s"
    if bits >= 1e6:
        return f"{bits / 1e6:,.{0 if bits >= 1e8 else 1}f} Mbit/s"
    return f"{bits / 1e3:,.1f} kbit/s"


def _fill(page, **fields):
    """Set the what-if form's fields (#whatif-<name>) in order: a select is chosen, an input typed."""
    for name, value in fields.items():
        field = page.locator(f"#whatif-{name}")
        if field.evaluate("e => e.tagName") == "SELECT":
            field.select_option(value)
        else:
            field.fill(value)


def _whatif(visit, site_url, width=1440):
    v = visit(viewport={"width": width, "height": 900})
    v.page.goto(site_url + "your-setup/", wait_until="load")
    v.page.wait_for_function("['ready', 'failed'].includes(document.documentElement.dataset.whatif)")
    assert v.page.evaluate("document.documentElement.dataset.whatif") == "ready", \
        v.page.locator("#whatif-answer").inner_text()
    return v


def test_the_what_if_page_gives_every_feasibility_row_its_own_numbers(site_url, visit, built):
    """For every row of fct_link_feasibility (§2.3: each model, scheme, batch, token rate and
    link class), the page's own computation, from the CSVs it publishes, gives the mart's bytes
    per token, required rate, share and class."""
    import csv
    with open(built.docs / "ethernet-bandwidth-math" / "data" / "fct_link_feasibility.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    v = _whatif(visit, site_url)
    got = v.page.evaluate("""rows => rows.map(r => { const a = window.interconnectWhatIf.compute({
        model: r.model, scheme: r.scheme, stages: r.pp_stages ? Number(r.pp_stages) : null,
        batch: Number(r.batch_size), tokensPerS: Number(r.tokens_per_s), linkClass: r.link_class});
        return [a.bytesPerToken, a.requiredBitsPerS, a.usableShareFraction, a.feasibilityClass]; })""", rows)
    assert len(got) == len(rows) > 100
    wrong = [(r["model"], r["scheme"], r["batch_size"], r["tokens_per_s"], r["link_class"], g)
             for r, g in zip(rows, got)
             if g[0] != pytest.approx(float(r["bytes_per_token"]), rel=1e-12)
             or g[1] != pytest.approx(float(r["required_bits_per_s"]), rel=1e-12)
             or g[2] != pytest.approx(float(r["usable_share_fraction"]), rel=1e-12)
             or g[3] != r["feasibility_class"]]
    assert not wrong, wrong[:5]
    assert v.errors == [], v.errors


def test_the_what_if_form_answers_a_row_of_the_mart(site_url, visit, built):
    import csv
    with open(built.docs / "ethernet-bandwidth-math" / "data" / "fct_link_feasibility.csv", newline="") as f:
        row = next(r for r in csv.DictReader(f) if r["model"] == "36b" and r["scheme"] == "tp"
                   and r["link_class"] == "10gbe" and r["batch_size"] == "16" and r["tokens_per_s"] == "50")
    v = _whatif(visit, site_url)
    page = v.page
    _fill(page, model="36b", scheme="tp", batch="16", rate="50", link="10gbe")
    answer = page.locator("#whatif-answer").inner_text()
    assert answer.startswith(_rate_text(float(row["required_bits_per_s"])) + " needed between the boxes"), answer
    assert row["feasibility_label"] in answer
    assert page.locator("#whatif-answer .whatif-class").get_attribute("data-class") == row["feasibility_class"]
    page.screenshot(path=str(ARTIFACTS / "your-setup--36b-tp.png"))
    assert v.errors == [], v.errors


def test_the_what_if_form_takes_a_shape_and_a_rate_of_its_own(site_url, visit):
    v = _whatif(visit, site_url, width=390)
    page = v.page
    _fill(page, model="__own__", hidden="8192", layers="80", scheme="pp", stages="2", batch="4",
          rate="20", link="__any__", gbit="1", rtt="100")
    answer = page.locator("#whatif-answer").inner_text()
    # 8192 x 4 x 2 B (fp16) = 65,536 B a transfer, 1 boundary: 65,536 B a token;
    # x 20 tok/s x 8 = 10,485,760 bit/s = 10.5 Mbit/s; usable 1 Gbit/s x 0.94148 = 941 Mbit/s;
    # share 10,485,760 / 941,482,445 = 1.11 % < 50 %: feasible
    assert answer.startswith("10.5 Mbit/s needed between the boxes: 1.11 % of the 1.00 Gbit/s link's "
                             "usable rate (941 Mbit/s), ✓ feasible."), answer
    # RTT 100 ms: at most 1 / 0.1 s = 10 tok/s a sequence, below the 20 asked
    assert "caps a sequence at 10.0 tok/s, a compute-free bound: your rate is above it" in answer
    formula = page.locator("#whatif-formula").inner_text()
    assert "hidden 8,192 × batch 4 × 2 B (fp16) = 65,536 B" in formula
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0
    page.fill("#whatif-gbit", "")
    assert page.locator("#whatif-answer").inner_text() == "Give the link's line rate in Gbit/s."
    assert v.errors == [], v.errors


def test_csv_reader_of_the_pages(site_url, visit):
    v = _whatif(visit, site_url)
    got = v.page.evaluate("t => window.interconnectCsv(t)", 'a,b\n"x, ""y""",2\n"two\nlines",\n\n')
    assert got == [{"a": 'x, "y"', "b": "2"}, {"a": "two\nlines", "b": ""}]


def test_the_pair_picker_answers_a_pair_by_code_or_city(site_url, visit, built):
    import csv
    with open(built.docs / "point-to-point" / "data" / "fct_p2p_pp_verdict.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    first = rows[0]["model"]
    pair = next(r for r in rows if r["model"] == first and {r["region_a"], r["region_b"]} ==
                {"us-west-2", "ap-northeast-1"})
    total = sum(1 for r in rows if r["model"] == first)
    v = visit(viewport={"width": 390, "height": 844})
    page = v.page
    page.goto(site_url + "point-to-point/", wait_until="load")
    page.wait_for_function("document.documentElement.dataset.pairs === 'ready'")
    city = pair["region_a_name"] if pair["region_a"] == "ap-northeast-1" else pair["region_b_name"]
    page.fill("#pair-picker-a", city)              # a city name ...
    page.fill("#pair-picker-b", "us-west-2")       # ... and a region code
    answer = page.locator("#pair-picker-answer").inner_text()
    rtt_ms = float(pair["rtt_worst_s"]) * 1000
    assert f"rank {pair['pair_rank']} of {total} by RTT; RTT {rtt_ms:,.1f} ms" in answer, answer
    assert f"at most {float(pair['latency_bound_tokens_per_s']):,.1f} tok/s per sequence, a compute-free bound" in answer
    assert f"{pair['model_label']}: {pair['workloads_carried']} of {pair['workloads']} workloads" in answer
    page.fill("#pair-picker-b", "nowhere")
    assert page.locator("#pair-picker-answer").inner_text().startswith("Type two regions")
    assert v.errors == [], v.errors


def test_every_table_and_chart_has_a_permalink_to_itself(site_url, visit):
    v = visit(viewport={"width": 1440, "height": 900})
    page = v.page
    page.goto(site_url + "ethernet-bandwidth-math/", wait_until="load")
    _charts_ready(page)
    found = page.evaluate("""() => [...document.querySelectorAll('article table, article a.chart-enlarge')]
        .map(t => { let n = (t.closest('.md-typeset__scrollwrap') || t).previousElementSibling;
                    while (n && !n.classList.contains('figure-permalink') && n.classList.contains('table-scroll-cue'))
                        n = n.previousElementSibling;
                    return [t.id, n && n.classList.contains('figure-permalink') ? n.getAttribute('href') : null]; })""")
    assert len(found) > 20
    assert all(i and href == f"#{i}" for i, href in found), [f for f in found if f[1] != f"#{f[0]}"][:5]
    # following one lands on its table
    target = found[3][0]
    page.locator(f'a.figure-permalink[href="#{target}"]').click()
    assert page.evaluate("location.hash") == f"#{target}"
    top = page.evaluate(f"document.getElementById('{target}').getBoundingClientRect().top")
    assert 0 <= top < 900
    assert v.errors == [], v.errors
