"""Where each table is published: the pages whose front matter declares it, for the Data
dictionary's links (a shared page with its CSV; a per-campaign page by its kind, since each
campaign's page ships its own CSV)."""
from __future__ import annotations

from pipeline.project import AREA_OF_KIND
from pipeline.publish.pages import Page, csv_path


def published_in(pages: list[Page]) -> dict[str, list[dict]]:
    """table -> [{title, page (docs-relative .md), csv (docs-relative, None for a per-campaign
    page), area (deployments/p2p for a per-campaign page)}], in the pages' order."""
    out: dict[str, list[dict]] = {}
    for page in pages:
        for mart in page.marts:
            if page.per_campaign is None:
                entry = {"title": page.title, "page": page.output(), "area": None,
                         "csv": csv_path(page.slug(), mart)}
            else:
                entry = {"title": page.title, "page": None, "csv": None,
                         "area": AREA_OF_KIND[page.per_campaign]}
            out.setdefault(mart, []).append(entry)
    return out
