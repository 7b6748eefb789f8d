"""The bare build the benchmark compares ``make docs`` with: the project's own functions called
in order from one script, without Dagster — the same parsers, the same SQL files in one DuckDB
connection in dependency order (pipeline/commands/bare_build.py), the same templates, charts and figures
ledger, docs/ published and the mkdocs site built. The ratio of the two therefore measures
orchestration only.

``python -m bench.bare <tree>`` builds ``<tree>`` (a copy of the project) from whatever its
warehouse holds; the benchmark deletes the warehouse first.
"""
from __future__ import annotations

import sys
from pathlib import Path

import duckdb


def build(root: Path) -> None:
    from pipeline.publish import pages as pages_mod
    from pipeline.commands.bare_build import build_warehouse
    from pipeline.warehouse.steps import Layout
    from pipeline.publish.charts import discover_charts
    from pipeline.orchestration.doc_assets import AREA_OF_KIND, render_page
    from pipeline.orchestration.what_changed_asset import class_ranks, expected_pages
    from pipeline.publish.docs_swap import publish
    from pipeline.publish.figures import baseline as baseline_mod
    from pipeline.publish.what_changed import PAGE, patch_home, render_page as render_changes, stage
    from pipeline.project import Project
    from pipeline.warehouse.schemas import campaign_schema, reset_search_path, set_search_path
    from pipeline.publish.site import build_site

    project = Project(root.resolve())
    project.warehouse.parent.mkdir(parents=True, exist_ok=True)
    layout = Layout(project)
    con = duckdb.connect(str(project.warehouse))
    try:
        con.execute("set enable_progress_bar = false")
        build_warehouse(con, layout)
        staged = project.root / ".bench-staging"
        staged.mkdir(exist_ok=True)
        pages = pages_mod.discover_pages(project.templates)
        charts = discover_charts()
        campaigns = con.execute("select campaign, area, status from main.meta_campaign_status "
                                "order by campaign").fetchall()
        for page in pages:
            own = [c for c in charts if c.page == page.name]
            if page.per_campaign is None:
                render_page(con, project, page, own, staged)
                continue
            for campaign, area, status in campaigns:
                if area != AREA_OF_KIND[page.per_campaign] or status != "published":
                    continue
                set_search_path(con, campaign_schema(campaign))
                try:
                    render_page(con, project, page, own, staged, campaign)
                finally:
                    reset_search_path(con)
        ranks = class_ranks(con)
    finally:
        con.close()
    base = baseline_mod.load(project.docs, project.root, "auto")
    outcome, _, _ = stage(staged, project.docs,
                          expected_pages(pages, [(c, a) for c, a, _ in campaigns]),
                          [(c, s) for c, _, s in campaigns], base)
    (staged / f"{PAGE}.md").write_text(
        render_changes(project.templates, outcome, ranks, pages_mod.appendix_of(project.docs)),
        encoding="utf-8")
    patch_home(staged, project.docs, outcome.comparison)
    slugs = {p.slug(c) for p in pages if p.per_campaign
             for c, area, _ in campaigns if area == AREA_OF_KIND[p.per_campaign]}
    publish(project.docs, staged, slugs)
    build_site(project)


if __name__ == "__main__":
    build(Path(sys.argv[1]))
