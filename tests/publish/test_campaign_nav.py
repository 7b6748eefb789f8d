"""Every campaign page is in the site's navigation (pipeline/publish/campaign_nav.py): the
deployments after Ethernet Bandwidth Math, the p2p campaigns after Point to Point."""
from __future__ import annotations

import re

from pipeline.project import CAMPAIGN_AREAS
from pipeline.publish.campaign_nav import with_campaigns

NAV = [{"Home": "index.md"}, {"Ethernet Bandwidth Math": "ethernet-bandwidth-math.md"},
       {"Point to Point": "point-to-point.md"}, {"Data sources": "data-sources.md"}]


def _docs(tmp_path, *pages):
    for page in pages:
        (tmp_path / page).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / page).write_text("# x\n")
    return tmp_path


def test_each_kind_follows_its_page_in_id_order(tmp_path):
    docs = _docs(tmp_path, "deployments/zeta.md", "deployments/alpha-2.md", "p2p/aws.md",
                 "deployments/alpha-2/chart.svg", "p2p/notes.txt")
    assert with_campaigns(NAV, docs) == [
        {"Home": "index.md"}, {"Ethernet Bandwidth Math": "ethernet-bandwidth-math.md"},
        {"Deployments": [{"alpha-2": "deployments/alpha-2.md"}, {"zeta": "deployments/zeta.md"}]},
        {"Point to Point": "point-to-point.md"},
        {"Point-to-point campaigns": [{"aws": "p2p/aws.md"}]},
        {"Data sources": "data-sources.md"}]
    assert NAV[1] == {"Ethernet Bandwidth Math": "ethernet-bandwidth-math.md"}   # not changed in place


def test_no_campaign_no_section_and_a_missing_anchor_page_appends(tmp_path):
    assert with_campaigns(NAV, tmp_path) == NAV
    docs = _docs(tmp_path, "p2p/aws.md")
    assert with_campaigns([{"Home": "index.md"}], docs) == [
        {"Home": "index.md"}, {"Point-to-point campaigns": [{"aws": "p2p/aws.md"}]}]


def test_a_file_name_that_is_not_a_campaign_id_is_not_listed(tmp_path):
    docs = _docs(tmp_path, "p2p/aws.md", "p2p/<b>x.md", "p2p/.hidden.md")
    assert with_campaigns([], docs) == [{"Point-to-point campaigns": [{"aws": "p2p/aws.md"}]}]


def test_the_built_site_links_every_campaign_page_from_the_navigation(built):
    home = (built.site.resolve() / "index.html").read_text(encoding="utf-8")
    nav = home[home.index('<nav class="md-nav md-nav--primary"'):]
    links = set(re.findall(r'class="md-nav__link[^"]*"\s+href="([^"]+)"', nav)) | \
        set(re.findall(r'href="([^"]+)"\s+class="md-nav__link', nav))
    pages = sorted(p for area in CAMPAIGN_AREAS for p in (built.docs / area).glob("*.md"))
    assert len(pages) >= 7
    missing = [p.relative_to(built.docs).as_posix() for p in pages
               if f"{p.parent.name}/{p.stem}/" not in links]
    assert not missing, (missing, sorted(links)[:20])
    assert "Deployments" in nav and "Point-to-point campaigns" in nav
