"""Dagster assets for the output: one per page (its CSVs and charts with it), docs/, the site.

A per-campaign page (``per_campaign:`` in its front matter) is partitioned by campaign and
rendered from that campaign's schema; a withheld campaign gets a notice at its URL instead,
with the reasons, and so does a campaign whose own page fails to render (the error is its
reason). Every page renders into a staging folder; the ``docs`` asset replaces docs/ once all
of them rendered, so a shared page that fails leaves docs/ entirely as it was.
"""

import json
import shutil
import os

from dagster import (AssetExecutionContext, MaterializeResult, MetadataValue, asset)

from pipeline.publish import markdown, pages as pages_mod
from pipeline.warehouse.steps import Layout
from pipeline.publish.charts import Chart, discover_charts
from pipeline.util.faults import checkpoint
from pipeline.publish.figures.site_ledger import figure_sources, row_keys, stage_figures, unstage_figures
from pipeline.publish.docs_swap import clean_staging, publish, recover, staging_dir
from pipeline.warehouse.lineage import Lineage
from pipeline.publish.published import published_in
from pipeline.warehouse.schemas import campaign_schema, q, reset_search_path, set_search_path
from pipeline.publish.site import build_site
from pipeline.orchestration.partitions import CAMPAIGNS, run_campaigns
from pipeline.orchestration.raw_assets import OWNERS
from pipeline.orchestration.resources import Warehouse
from pipeline.orchestration.what_changed_asset import ASSET as WHAT_CHANGED, what_changed_asset

GROUP_DOCS = "docs"
AREA_OF_KIND = pages_mod.KINDS


class BlockedPublication(RuntimeError):
    pass


def _appendix(project) -> str:
    return pages_mod.appendix_of(project.docs)


def _write(staged, rel: str, data) -> None:
    target = staged / rel
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))


def render_page(con, project, page: pages_mod.Page, charts: list[Chart], staged,
                campaign: str | None = None, lineage: Lineage | None = None, env=None) -> dict:
    """Render ``page`` (and its CSVs and charts) into ``staged``; returns what it wrote. A step
    that renders many campaigns' pages passes one ``lineage`` (the parsed SQL) and one Jinja
    ``env`` (the compiled templates) for all of them."""
    slug = page.slug(campaign)
    shown: list[str] = []
    lineage = lineage or Lineage(project.sql)
    figures = [] if page.figures else None
    extra = None
    if "dim_data_dictionary" in page.marts:   # it links each table to the pages publishing it
        extra = {"published": published_in(pages_mod.discover_pages(project.templates))}
    text = pages_mod.render(con, page, env=env, lineage=lineage, raw_data=project.raw_data,
                            campaign=campaign, appendix=_appendix(project), charts_shown=shown,
                            figures=figures, keys=row_keys(project.sql), extra=extra)
    for mart in page.marts:
        _write(staged, pages_mod.csv_path(slug, mart), pages_mod.csv_bytes(con, mart))
    unknown = sorted(set(shown) - {c.file for c in charts})
    if unknown:
        raise pages_mod.PageError(f"{page.template}: embeds chart(s) {', '.join(unknown)} that "
                                  f"no chart module of page {page.name!r} draws")
    charts = [c for c in charts if c.file in shown]
    for chart in charts:
        _write(staged, chart.path(slug), chart.render(con))
        if chart.narrow is not None:        # the phone variant the figure points to
            _write(staged, f"{slug}/{chart.narrow_file}", chart.narrow(con))
    if figures is not None:     # last: a page that failed above has no figures staged
        stage_figures(staged, slug, figures,
                      figure_sources(con, lineage, project.raw_data, slug, figures, campaign))
    _write(staged, page.output(campaign), text)
    checkpoint("page:staged")
    return {"page": f"docs/{page.output(campaign)}", "csv_files": len(page.marts),
            "charts": len(charts)}


def render_withheld(con, project, page: pages_mod.Page, staged, campaign: str, status: dict) -> None:
    env = markdown.environment(project.templates)
    template = env.get_template("partials/withheld.md.j2")
    slug = page.slug(campaign)
    text = template.render(campaign=campaign, page=page, reasons=status["reasons"],
                           url=lambda target: pages_mod.relative(slug, target))
    text = text.rstrip("\n") + "\n\n" + _appendix(project).rstrip("\n") + "\n"
    _write(staged, page.output(campaign), text)


def withhold_unrenderable(con, page: pages_mod.Page, staged, campaign: str, exc: Exception) -> dict:
    """A campaign whose page cannot be rendered is withheld like one whose check failed: what
    was staged for it is removed, and its status (in its schema and in the catalog) says why,
    so the build names it and exits 3 while every other page is published."""
    slug = page.slug(campaign)
    (staged / f"{slug}.md").unlink(missing_ok=True)
    shutil.rmtree(staged / slug, ignore_errors=True)
    unstage_figures(staged, slug)
    reason = {"kind": "page", "subject": f"templates/{page.template.name}",
              "detail": f"the page could not be rendered: {type(exc).__name__}: {exc}"}
    tables = [f"{q(campaign_schema(campaign))}.meta_campaign_status"]
    # the catalog copies every campaign's status into main; when it already has, update it too
    if con.execute("select count(*) from duckdb_tables() where schema_name = 'main' and "
                   "table_name = 'meta_campaign_status'").fetchone()[0]:
        tables.append("main.meta_campaign_status")
    for table in tables:
        row = con.execute(f"select reasons from {table} where campaign = ?", [campaign]).fetchone()
        reasons = json.loads(row[0] or "[]") if row else []
        con.execute(f"update {table} set status = 'withheld', reasons = ? where campaign = ?",
                    [json.dumps(reasons + [reason]), campaign])
    return reason


def _status(con, campaign: str) -> dict | None:
    rows = con.execute(f"select status, area, reasons from "
                       f"{q(campaign_schema(campaign))}.meta_campaign_status").fetchall()
    if not rows:
        return None
    return {"status": rows[0][0], "area": rows[0][1], "reasons": json.loads(rows[0][2] or "[]")}


def page_asset(page: pages_mod.Page, charts: list[Chart], tables: dict[str, list[str]]):
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
                meta = render_page(con, warehouse.project, page, charts, staged)
            return MaterializeResult(metadata=meta)
        return _render

    area = AREA_OF_KIND[page.per_campaign]

    @asset(name=page.asset_name, group_name=GROUP_DOCS, kinds={"jinja", "markdown"}, deps=deps,
           partitions_def=CAMPAIGNS, owners=OWNERS, description=description,
           metadata={"writes": MetadataValue.path(where),
                         "template": MetadataValue.path(f"templates/{page.template.name}")})
    def _render_campaigns(context: AssetExecutionContext, warehouse: Warehouse) -> MaterializeResult:
        staged = staging_dir(warehouse.project, context.run.run_id)
        written, withheld = [], []
        lineage = Lineage(warehouse.project.sql)
        env = markdown.environment(warehouse.project.templates)
        with warehouse.connect() as con:
            for campaign in run_campaigns(context):
                status = _status(con, campaign)
                if status is None or status["area"] != area:
                    continue
                if status["status"] != "published":
                    render_withheld(con, warehouse.project, page, staged, campaign, status)
                    withheld.append(campaign)
                    continue
                set_search_path(con, campaign_schema(campaign))
                try:
                    render_page(con, warehouse.project, page, charts, staged, campaign,
                                lineage=lineage, env=env)
                except Exception as exc:  # noqa: BLE001 - one campaign's page never blocks the rest
                    reset_search_path(con)
                    reason = withhold_unrenderable(con, page, staged, campaign, exc)
                    render_withheld(con, warehouse.project, page, staged, campaign,
                                    {"reasons": [reason]})
                    context.log.error(f"campaign {campaign} withheld: {reason['detail']}")
                    withheld.append(campaign)
                    continue
                finally:
                    reset_search_path(con)
                written.append(campaign)
        return MaterializeResult(metadata={"pages": ", ".join(page.output(c) for c in written),
                                           "withheld": ", ".join(withheld)})

    return _render_campaigns


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
        slugs = {p.slug(c) for p in pages if p.per_campaign
                 for c, area in campaigns if area == AREA_OF_KIND[p.per_campaign]}
        staged = staging_dir(project, context.run.run_id)
        staged.mkdir(parents=True, exist_ok=True)
        recover_others = [d for d in recover(project) if d != staged.name]
        stats = publish(project.docs, staged, slugs)
        stats["recovered"] = len(recover_others)
        clean_staging(project)
        return MaterializeResult(metadata=stats)

    return _docs


def site_asset():
    @asset(name="site", group_name=GROUP_DOCS, kinds={"mkdocs"}, deps=["docs"], owners=OWNERS,
           description="mkdocs build --strict of docs/ into site/ (swapped in atomically); also "
                       "published to INTERCONNECT_PUBLISH_DIR when set.")
    def _site(context: AssetExecutionContext, warehouse: Warehouse) -> MaterializeResult:
        warehouse.lock()
        build = build_site(warehouse.project, os.environ.get("INTERCONNECT_PUBLISH_DIR"))
        return MaterializeResult(metadata={"build": build.name})

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
    assets = [page_asset(p, [c for c in charts if c.page == p.name], tables) for p in found]
    keys = sorted(a.key.path[-1] for a in assets)
    compared = [k for t in ("ref_regression_thresholds", "dim_feasibility_thresholds")
                for k in tables.get(t, [])]
    assets.append(what_changed_asset(keys, found, compared))
    assets.append(docs_asset([*keys, WHAT_CHANGED], found))
    assets.append(site_asset())
    return assets
