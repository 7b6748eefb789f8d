"""No page calls a quantity *not measured* that another page shows measured (issue 40: a lab page
said "Prefill is *not measured* here" while Home listed its 740.0 tok/s).

Read from the built pages: Ethernet Bandwidth Math's "Deployments compared" table gives each
deployment's prefill and decode (or lists the campaign as links-only); each campaign's own page
must then print the same figure and never say that quantity is *not measured*, and a links-only
campaign's page must say its prefill and decode are not measured.
"""
from __future__ import annotations

import re

QUANTITIES = ("Prefill", "Decode")


def _compared(ebm: str) -> tuple[dict[str, dict[str, str]], list[str]]:
    """(campaign -> {column: cell} of the Deployments compared table, links-only campaigns)."""
    section = ebm.split("### Deployments compared", 1)[1].split("\n### ", 1)[0]
    lines = [ln for ln in section.splitlines() if ln.startswith("|")]
    head = [c.strip() for c in lines[0].strip("|").split("|")]
    rows = {}
    for ln in lines[2:]:
        cells = dict(zip(head, (c.strip() for c in ln.strip("|").split("|"))))
        rows[re.match(r"\[([^\]]+)\]", cells["Campaign"])[1]] = cells
    links_only = re.findall(r"^- \[([^\]]+)\]\(deployments/", section.split("links only", 1)[-1], re.M)
    return rows, links_only


def _said_not_measured(page: str, quantity: str) -> list[str]:
    """Sentences of the page that call ``quantity`` not measured (a list of quantities counts)."""
    prose = re.split(r"(?<=[.:])\s+|\n\n", page)
    return [s for s in prose if re.search(rf"\b{quantity}\b", s, re.I) and "*not measured*" in s
            and not s.lstrip().startswith("|")]


def test_a_measured_quantity_is_nowhere_called_not_measured(built):
    docs = built.docs
    rows, links_only = _compared((docs / "ethernet-bandwidth-math.md").read_text(encoding="utf-8"))
    assert rows, "no Deployments compared table"
    for campaign, cells in rows.items():
        page = (docs / "deployments" / f"{campaign}.md").read_text(encoding="utf-8")
        for q in QUANTITIES:
            shown = cells[q]
            if shown in ("*not measured*", "—"):
                continue
            figure = shown.split(" ")[0]              # "740.0 tok/s" -> "740.0"
            assert figure in page, f"{campaign}: Deployments compared shows {q} {shown}, its page does not"
            said = _said_not_measured(page, q)
            assert not said, f"{campaign}: {q} is {shown} on Ethernet Bandwidth Math, yet: {said}"
    for campaign in links_only:
        page = (docs / "deployments" / f"{campaign}.md").read_text(encoding="utf-8")
        for q in QUANTITIES:
            assert _said_not_measured(page, q), f"{campaign}: links-only, its page never says {q} is not measured"


def test_the_sentence_finder_on_hand_made_text():
    page = ("Measured prefill: **740.0 tok/s**.\n\nPrefill is *not measured* here (the journal).\n\n"
            "| 1 GbE | 0.1 ms | *not measured* |\n\nthe model, prefill and decode are *not measured*.")
    assert _said_not_measured(page, "Prefill") == ["Prefill is *not measured* here (the journal).",
                                                   "the model, prefill and decode are *not measured*."]
    assert _said_not_measured(page, "Decode") == ["the model, prefill and decode are *not measured*."]
    assert _said_not_measured("Decode: **28.16 tok/s**.", "Decode") == []
