"""Search finds what a reader asks for: the top hit of a dozen reader questions, typed into the
built site's search box in Chromium (Material's own search worker on our index and ranking:
pipeline/publish/search_tuning.py, mkdocs.yml's separator).

Each expected hit is the section that answers the question, read off the pages: a region code
or a city is answered by Point to Point's ranked pairs, a measured RTT by its delay matrix, not
by the Data dictionary's column definitions; a model constant by §0.1's table; a link class by
§2.1's capacities; a lab page (a campaign of its own) never comes first for a shared question.
"""
from __future__ import annotations

import pytest

from site_browser import ARTIFACTS, browser, site_url, visit  # noqa: F401 (fixtures)

EBM = "/ethernet-bandwidth-math/"
P2P = "/point-to-point/"
# (query, the first page, the first section of that page or None when the page itself answers)
QUESTIONS = [
    ("us-west-2", P2P, None),              # "Can I run PP between us-west-2 and …?"
    ("ap-northeast-1", P2P, None),
    ("Tokyo", P2P, None),
    ("Oregon", P2P, None),
    ("RTT", P2P, "#delay-rtt-ping-average-ms"),
    ("hidden size", EBM, "#constants"),
    ("prefill", EBM, "#prefill"),
    ("decode", EBM, "#decode"),
    ("KV snapshot", EBM, "#kv-snapshot"),
    ("10 GbE", EBM, "#21-ethernet-link-capacities"),
    ("2.5 GbE", EBM, "#21-ethernet-link-capacities"),
    ("tensor parallel", EBM, "#12-tensor-parallelism-tp-for-comparison"),
    ("MTU", EBM, "#51-tcpip-overhead"),
    ("feasibility", "/", "#feasibility-verdict-per-link-class"),
    ("your setup", "/your-setup/", None),
]


@pytest.mark.parametrize("query,page_path,section", QUESTIONS, ids=[q for q, _, _ in QUESTIONS])
def test_the_top_hit_answers_the_question(site_url, visit, query, page_path, section):
    v = visit(viewport={"width": 1280, "height": 900})
    page = v.page
    page.goto(site_url, wait_until="load")
    box = page.locator("input.md-search__input")
    box.click()
    # the index is built in a worker: a query typed before it is ready is answered by nothing
    page.wait_for_function("() => !/Initializing/.test("
                           "document.querySelector('.md-search-result__meta').textContent)")
    # the whole query at once, then one key (Material reads the box on keyup): no results of a
    # half-typed query to race with
    box.fill(query)
    box.press("End")
    results = page.locator(".md-search-result__item a")
    results.first.wait_for(state="visible")
    hits = results.evaluate_all(
        "es => es.map(e => { const u = new URL(e.href); return u.pathname + u.hash; })")
    page.screenshot(path=str(ARTIFACTS / f"search--{query.replace(' ', '-')}.png"))
    assert hits[0] == page_path, (query, hits[:6])
    if section is not None:
        first_section = next((h for h in hits if h.startswith(page_path + "#")), None)
        assert first_section == page_path + section, (query, hits[:6])
    assert v.errors == [], v.errors
