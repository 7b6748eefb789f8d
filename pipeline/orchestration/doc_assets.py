"""Dagster assets for the output: one per page (its CSVs and charts with it), docs/, the site.

A per-campaign page (``per_campaign:`` in its front matter) is partitioned by campaign and
rendered from that campaign's schema; a withheld campaign gets a notice at its URL instead,
with the reasons, and so does a campaign whose own page fails to render (the error is its
reason). Every page renders into a staging folder; the ``docs`` asset replaces docs/ once all
of them rendered, so a shared page that fails leaves docs/ entirely as it was.
"""

import os

from dagster import AssetExecutionContext, AssetKey, MaterializeResult, MetadataValue, asset

from pipeline.orchestration.partitions import CAMPAIGNS, run_campaigns
from pipeline.orchestration.raw_assets import OWNERS
from pipeline.orchestration.retention import prune_runs
from pipeline.orchestration.resources import Warehouse
from pipeline.orchestration.what_changed_asset import ASSET as WHAT_CHANGED
from pipeline.orchestration.what_changed_asset import what_changed_asset
from pipeline.publish import pages as pages_mod
from pipeline.publish.charts import Chart, discover_charts
from pipeline.publish.docs_swap import abandon, publish, publish_site, recover, staging_dir
from pipeline.publish.page_render import render_campaign_pages, render_page
from pipeline.warehouse.steps import Layout

GROUP_DOCS = "docs"


class BlockedPublication(RuntimeError):
    pass


def page_asset(page: pages_mod.Page, charts: list[Chart], tables: dict[str, list[str]],
               inventory: set[str]):
    # a shared page's build stamp reads fct_site_summary (pages.render: site_stamp())
    stamp = ["fct_site_summary"] if page.per_campaign is None else []
    marts = sorted({*page.marts, *(m for c in charts for m in c.marts), *stamp})
    deps = sorted({key for t in marts for key in tables[t]})
    where = f"docs/{page.slug('{campaign}') if page.per_campaign else page.slug()}.md"
    description = (f"The {page.title} page{' of each campaign' if page.per_campaign else ''}"
                   + (f": {page.purpose}" if page.purpose else ".")
                   + f" Writes {where} from templates/{page.template.name}"
                   + (f", its charts ({'; '.join(f'{c.file}: {c.what}' if c.what else c.file for c in charts)})"
                      if charts else "")
                   + " and a CSV of every table it shows.")

    if page.per_campaign is None:
        @asset(name=page.asset_name, group_name=GROUP_DOCS, kinds={"jinja", "markdown"},
               deps=deps, owners=OWNERS, description=description,
               metadata={"writes": MetadataValue.path(where),
                         "template": MetadataValue.path(f"templates/{page.template.name}")})
        def _render(context: AssetExecutionContext, warehouse: Warehouse) -> MaterializeResult:
            staged = staging_dir(warehouse.project, context.run.run_id)
            with warehouse.connect() as con:
                meta = render_page(con, warehouse.project, page, charts, staged,
                                   inventory=inventory)
            return MaterializeResult(metadata=meta)
        return _render

    @asset(name=page.asset_name, group_name=GROUP_DOCS, kinds={"jinja", "markdown"}, deps=deps,
           partitions_def=CAMPAIGNS, owners=OWNERS, description=description,
           metadata={"writes": MetadataValue.path(where),
                         "template": MetadataValue.path(f"templates/{page.template.name}")})
    def _render_campaigns(context: AssetExecutionContext, warehouse: Warehouse) -> MaterializeResult:
        staged = staging_dir(warehouse.project, context.run.run_id)
        with warehouse.connect() as con:
            written, withheld, kept = render_campaign_pages(
                con, warehouse.project, page, charts, staged, run_campaigns(context), inventory,
                log=context.log)
        return MaterializeResult(metadata={"pages": ", ".join(page.output(c) for c in written),
                                           "withheld": ", ".join(withheld),
                                           "kept": ", ".join(page.output(c) for c in kept)})

    return _render_campaigns


def _site_follows(context: AssetExecutionContext) -> bool:
    """Whether this run builds the site after docs/: then the site step commits the
    publication (pipeline/publish/journal.py), else the docs step does."""
    selection = context.run.asset_selection
    return selection is None or AssetKey("site") in selection


def docs_asset(page_keys: list[str], pages: list[pages_mod.Page]):
    @asset(name="docs", group_name=GROUP_DOCS, kinds={"markdown"}, deps=page_keys, owners=OWNERS,
           description="Replaces docs/ with the pages this run rendered, all or nothing: written "
                       "only after every page rendered, each file by temp + rename; pages of "
                       "campaigns that are gone are removed.")
    def _docs(context: AssetExecutionContext, warehouse: Warehouse) -> MaterializeResult:
        project = warehouse.project
        with warehouse.connect() as con:
            blocked = con.execute(
                "select check_name, statement, first_rows from meta_check_results "
                "where campaign is null and blocking and not passed").fetchall()
            if blocked:
                raise BlockedPublication(
                    "a blocking check on the shared tables failed, nothing is published: "
                    + "; ".join(f"{n}: {s} ({r})" for n, s, r in blocked))
            campaigns = con.execute("select campaign, area from meta_campaign_status").fetchall()
        slugs = pages_mod.campaign_slugs(pages, campaigns)
        staged = staging_dir(project, context.run.run_id)
        staged.mkdir(parents=True, exist_ok=True)
        recovered = recover(project, os.environ.get("INTERCONNECT_PUBLISH_DIR"))
        abandon(project, keep=staged.name)      # staging other runs left: none is ours to publish
        stats = publish(project.docs, staged, slugs, with_site=_site_follows(context))
        stats["recovered"] = len(recovered)
        return MaterializeResult(metadata=stats)

    return _docs


def site_asset():
    @asset(name="site", group_name=GROUP_DOCS, kinds={"mkdocs"}, deps=["docs"], owners=OWNERS,
           description="mkdocs build --strict of docs/ into site/ (swapped in atomically); also "
                       "published to INTERCONNECT_PUBLISH_DIR when set.")
    def _site(context: AssetExecutionContext, warehouse: Warehouse) -> MaterializeResult:
        warehouse.lock()
        built = publish_site(warehouse.project, context.run.run_id,
                             os.environ.get("INTERCONNECT_PUBLISH_DIR"))
        if (pruned := prune_runs(context.instance)):     # runs of the schedule and sensor too
            context.log.info(pruned)
        pages = ({} if built.pages_kept is None else
                 {"pages_kept": built.pages_kept, "pages_converted": built.pages_converted})
        return MaterializeResult(metadata={"build": built.path.name, **pages})

    return _site


def doc_assets(layout: Layout, tables: dict[str, list[str]]):
    found = pages_mod.discover_pages(layout.project.templates)
    pages_mod.check_marts(found, set(tables))
    charts = discover_charts()
    names = {p.name for p in found}
    for chart in charts:
        if chart.page not in names:
            raise pages_mod.PageError(f"chart {chart.name}: belongs to page {chart.page!r}, "
                                      f"which no template defines")
        missing = [m for m in chart.marts if m not in tables]
        if missing:
            raise pages_mod.PageError(f"chart {chart.name}: reads unknown table(s) {', '.join(missing)}")
    inventory = {m.name for m in [*layout.plan.after_catalog, *layout.plan.after_pages]}
    assets = [page_asset(p, [c for c in charts if c.page == p.name], tables, inventory)
              for p in found]
    keys = sorted(a.key.path[-1] for a in assets)
    compared = [k for t in ("ref_regression_thresholds", "dim_feasibility_thresholds")
                for k in tables.get(t, [])]
    assets.append(what_changed_asset(keys, found, compared))
    assets.append(docs_asset([*keys, WHAT_CHANGED], found))
    assets.append(site_asset())
    return assets
