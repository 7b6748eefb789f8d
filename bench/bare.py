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
    from pipeline.commands.bare_build import build_after_pages, build_before_pages
    from pipeline.project import Project
    from pipeline.publish import pages as pages_mod
    from pipeline.publish.charts import discover_charts
    from pipeline.publish.docs_swap import publish
    from pipeline.publish.figures import baseline as baseline_mod
    from pipeline.publish.page_render import reads_any, render_campaign_pages, render_page
    from pipeline.publish.site import build_site, swap_in
    from pipeline.publish.what_changed import (PAGE, class_ranks, mart_rows, patch_home,
                                               pipeline_slugs, stage)
    from pipeline.publish.what_changed import render_page as render_changes
    from pipeline.warehouse.steps import Layout

    project = Project(root.resolve())
    project.warehouse.parent.mkdir(parents=True, exist_ok=True)
    layout = Layout(project)
    con = duckdb.connect(str(project.warehouse))
    try:
        con.execute("set enable_progress_bar = false")
        build_before_pages(con, layout)
        staged = project.root / ".bench-staging"
        staged.mkdir(exist_ok=True)
        pages = pages_mod.discover_pages(project.templates)
        charts = discover_charts()
        late = {m.name for m in layout.plan.after_pages}
        inventory = late | {m.name for m in layout.plan.after_catalog}
        campaigns = [c for (c,) in con.execute(
            "select campaign from main.meta_campaign_status order by campaign").fetchall()]
        # the pages that record their sources first, then the ones reading what they recorded
        for after in (False, True):
            for page in pages:
                own = [c for c in charts if c.page == page.name]
                if reads_any(page, own, late) != after:
                    continue
                if page.per_campaign is None:
                    render_page(con, project, page, own, staged, inventory=inventory)
                else:
                    render_campaign_pages(con, project, page, own, staged, campaigns, inventory)
            if not after:
                build_after_pages(con, layout)
        campaigns = con.execute("select campaign, area, status from main.meta_campaign_status "
                                "order by campaign").fetchall()
        ranks = class_ranks(con)
        site = next(iter(mart_rows(con, "fct_site_summary")), None)
    finally:
        con.close()
    base = baseline_mod.load(project.docs, project.root, "auto")
    outcome, _, _ = stage(staged, project.docs,
                          pages_mod.page_slugs(pages, [(c, a) for c, a, _ in campaigns]),
                          [(c, s) for c, _, s in campaigns], base)
    ours = pipeline_slugs(pages)
    (staged / f"{PAGE}.md").write_text(
        render_changes(project.templates, outcome, ranks, pages_mod.appendix_of(project.docs),
                       site, pipeline_pages=ours),
        encoding="utf-8")
    patch_home(staged, project.docs, outcome.comparison, outcome.changes, ours)
    publish(project.docs, staged, pages_mod.campaign_slugs(pages, [(c, a) for c, a, _ in campaigns]))
    swap_in(project, build_site(project).path)

if __name__ == "__main__":
    build(Path(sys.argv[1]))
