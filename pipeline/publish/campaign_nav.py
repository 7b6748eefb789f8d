"""Every campaign's page in the site's navigation.

A mkdocs plugin (``campaign-nav`` in mkdocs.yml's plugins, registered like ``used-in`` by
pyproject.toml's ``mkdocs.plugins`` entry point). mkdocs.yml lists the shared pages by hand;
the campaign pages are generated, one per campaign folder, so they cannot be listed there.
Before the build, this adds a "Deployments" section after the page that compares deployments
(and a "Lab series" section after it), a "Point-to-point campaigns" section after Point to Point, each page named by its
campaign id: a name of the manifest's rule (``CAMPAIGN_NAME``: letters, digits, '.', '-', '_'),
so no text from data reaches the navigation. A section with no page is not added.
"""
from __future__ import annotations

from pathlib import Path

from mkdocs.plugins import BasePlugin

from pipeline.ingest.manifest import CAMPAIGN_NAME

# (folder under docs/, section title, the nav page it follows)
SECTIONS = (("deployments", "Deployments", "ethernet-bandwidth-math.md"),
            ("labs", "Lab series", "ethernet-bandwidth-math.md"),
            ("p2p", "Point-to-point campaigns", "point-to-point.md"))


def campaign_sections(docs_dir: Path) -> list[tuple[str, str, list[dict[str, str]]]]:
    """(section title, the page it follows, [{campaign id: page}]) for each kind with pages."""
    out = []
    for folder, title, after in SECTIONS:
        pages = [{p.stem: f"{folder}/{p.name}"} for p in sorted((docs_dir / folder).glob("*.md"))
                 if CAMPAIGN_NAME.match(p.stem)]
        if pages:
            out.append((title, after, pages))
    return out


def with_campaigns(nav: list, docs_dir: Path) -> list:
    """``nav`` with each campaign section after its page (at the end when that page is not in
    it); a section the nav already has is left as it is."""
    nav = list(nav)
    titles = {next(iter(item)) for item in nav if isinstance(item, dict)}
    # in reverse, so sections that follow the same page keep SECTIONS' order
    for title, after, pages in reversed(campaign_sections(docs_dir)):
        if title in titles:
            continue
        at = next((i + 1 for i, item in enumerate(nav)
                   if isinstance(item, dict) and after in item.values()), len(nav))
        nav.insert(at, {title: pages})
    return nav


class CampaignNav(BasePlugin):
    def on_config(self, config, **kwargs):
        if config.get("nav"):
            config["nav"] = with_campaigns(config["nav"], Path(config["docs_dir"]))
        return config
