"""A page rendered into the staging folder with its CSVs and charts, and the one loop over a
per-campaign page's campaigns: a published campaign gets its page, a withheld one a notice at
its URL with the reasons, and one whose page fails to render is withheld with the error as its
reason. The render that publishes a page also records its raw sources (warehouse/page_sources.py).
The Dagster page assets and the bare build (bench/bare.py) both render through here.
"""
from __future__ import annotations

import json
import shutil

from pipeline.ingest.scan import campaign_folders
from pipeline.project import AREA_OF_KIND
from pipeline.publish import campaign_rows, markdown
from pipeline.publish import page_keep
from pipeline.publish import pages as pages_mod
from pipeline.publish.charts import Chart
from pipeline.publish.figures.site_ledger import (
    figure_sources,
    row_keys,
    stage_figures,
    unstage_figures,
)
from pipeline.publish.published import published_in
from pipeline.util.faults import checkpoint
from pipeline.util.sql import q
from pipeline.warehouse import campaign_files, page_sources, unions
from pipeline.warehouse.campaign import status_in
from pipeline.warehouse.lineage import Lineage
from pipeline.warehouse.schemas import (
    campaign_schema,
    home,
    home_main,
    reset_search_path,
    set_search_path,
)


def write_staged(staged, rel: str, data) -> None:
    target = staged / rel
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))


def reads_any(page: pages_mod.Page, charts: list[Chart], tables: set[str]) -> bool:
    """Whether the page, or one of its charts, reads one of ``tables``."""
    return bool({*page.marts, *(m for c in charts if c.page == page.name for m in c.marts)}
                & set(tables))


def records_sources(page: pages_mod.Page, inventory: set[str]) -> bool:
    """Whether a page lists raw files of its own: the site's inventory pages (those reading a
    table built from the catalog) do not."""
    return not reads_any(page, [], inventory)


def render_page(con, project, page: pages_mod.Page, charts: list[Chart], staged,
                campaign: str | None = None, lineage: Lineage | None = None, env=None,
                inventory: set[str] = frozenset()) -> dict:
    """Render ``page`` (and its CSVs and charts) into ``staged`` and record its sources;
    returns what it wrote. A step that renders many campaigns' pages passes one ``lineage``
    (the parsed SQL) and one Jinja ``env`` (the compiled templates) for all of them."""
    slug = page.slug(campaign)
    shown: list[str] = []
    lineage = lineage or Lineage(project.sql)
    env = env or markdown.environment(project.templates, project.template_cache)
    figures = [] if page.figures else None
    extra = None
    if "dim_data_dictionary" in page.marts:   # it links each table to the pages publishing it
        extra = {"published": published_in(pages_mod.discover_pages(project.templates))}
    title = page.title if campaign is None else f"{page.title}: {campaign}"
    found: list[tuple] = []

    def record(mart, listed):
        found.extend((slug, title, mart, s.source_file, s.sha256, s.kind) for s in listed)

    text = pages_mod.render(con, page, env=env, lineage=lineage, raw_data=project.raw_data,
                            campaign=campaign, appendix=pages_mod.appendix_of(project.docs),
                            charts_shown=shown, figures=figures, keys=row_keys(project.sql),
                            extra=extra, on_sources=record)
    for mart in page.marts:
        write_staged(staged, pages_mod.csv_path(slug, mart), pages_mod.csv_bytes(con, mart))
    unknown = sorted(set(shown) - {c.file for c in charts})
    if unknown:
        raise pages_mod.PageError(f"{page.template}: embeds chart(s) {', '.join(unknown)} that "
                                  f"no chart module of page {page.name!r} draws")
    charts = [c for c in charts if c.file in shown]
    for chart in charts:
        write_staged(staged, chart.path(slug), chart.render(con))
        if chart.narrow is not None:        # the phone variant the figure points to
            write_staged(staged, f"{slug}/{chart.narrow_file}", chart.narrow(con))
    if figures is not None:     # last: a page that failed above has no figures staged
        stage_figures(staged, slug, figures,
                      figure_sources(con, lineage, project.raw_data, slug, figures, campaign))
    write_staged(staged, page.output(campaign), text)
    page_sources.replace_rows(con, slug, found if records_sources(page, inventory) else [])
    checkpoint("page:staged")
    return {"page": f"docs/{page.output(campaign)}", "csv_files": len(page.marts),
            "charts": len(charts)}


def render_withheld(con, project, page: pages_mod.Page, staged, campaign: str, status: dict) -> None:
    env = markdown.environment(project.templates, project.template_cache)
    template = env.get_template(page_keep.WITHHELD_NOTICE)
    slug = page.slug(campaign)
    text = template.render(campaign=campaign, page=page, reasons=status["reasons"],
                           url=lambda target: pages_mod.relative(slug, target))
    text = text.rstrip("\n") + "\n\n" + pages_mod.appendix_of(project.docs).rstrip("\n") + "\n"
    write_staged(staged, page.output(campaign), text)
    page_sources.replace_rows(con, slug, [])
    page_keep.record(con, slug, None, staged)       # a notice is never kept


def withhold_unrenderable(con, page: pages_mod.Page, staged, campaign: str, exc: Exception) -> dict:
    """A campaign whose page cannot be rendered is withheld like one whose check failed: what
    was staged for it is removed, and its status (in the warehouse, and in the catalog when it
    is there already) says why, so the build names it and exits 3 while every other page is
    published."""
    slug = page.slug(campaign)
    (staged / f"{slug}.md").unlink(missing_ok=True)
    shutil.rmtree(staged / slug, ignore_errors=True)
    unstage_figures(staged, slug)
    reason = {"kind": "page", "subject": f"templates/{page.template.name}",
              "detail": f"the page could not be rendered: {type(exc).__name__}: {exc}"}
    unions.page_withheld(con, campaign, reason)
    # the catalog copies every campaign's status into main; when it already has, update it too
    if con.execute("select count(*) from duckdb_tables() where database_name = ? and schema_name "
                   "= 'main' and table_name = 'meta_campaign_status'", [home(con)]).fetchone()[0]:
        table = f"{home_main(con)}.meta_campaign_status"
        row = con.execute(f"select reasons from {table} where campaign = ?", [campaign]).fetchone()
        reasons = json.loads(row[0] or "[]") if row else []
        con.execute(f"update {table} set status = 'withheld', reasons = ? where campaign = ?",
                    [json.dumps(reasons + [reason]), campaign])
    return reason


def _render_published(con, project, page, charts, staged, campaign: str, template: str,
                      appendix: str, marts: list[str], lineage, env, inventory, log) -> str:
    """One published campaign's page (its file attached): 'kept', 'written' or 'withheld'."""
    slug = page.slug(campaign)
    compared = campaign_rows.comparison_marts(con, campaign_schema(campaign), marts)
    with campaign_rows.scoped(con, compared, campaign):
        inputs = page_keep.inputs_digest(con, campaign_schema(campaign), marts, template,
                                         appendix, slug, campaign_rows.rows_digest(con, compared))
        if page_keep.can_keep(con, project.docs, slug, inputs):
            return "kept"
        set_search_path(con, campaign_schema(campaign))
        try:
            render_page(con, project, page, charts, staged, campaign, lineage=lineage, env=env,
                        inventory=inventory)
        except Exception as exc:  # noqa: BLE001 - one campaign's page never blocks the rest
            reset_search_path(con)
            reason = withhold_unrenderable(con, page, staged, campaign, exc)
            render_withheld(con, project, page, staged, campaign, {"reasons": [reason]})
            if log is not None:
                log.error(f"campaign {campaign} withheld: {reason['detail']}")
            return "withheld"
        finally:
            reset_search_path(con)
    page_keep.record(con, slug, inputs, staged)
    unions.page_withheld(con, campaign, None)
    return "written"


def render_campaign_pages(con, project, page: pages_mod.Page, charts: list[Chart], staged,
                          campaigns: list[str], inventory: set[str] = frozenset(),
                          log=None) -> tuple[list[str], list[str], list[str]]:
    """The page of each of ``campaigns`` of the page's kind; returns (written, withheld, kept):
    a published campaign's page whose inputs and docs/ files are those of its last render is
    kept as docs/ has it (pipeline/publish/page_keep.py). The other published campaigns (a run
    over some campaigns) are kept too, unless the page shows rows of a table that compares
    campaigns: their rows may have changed with the run's campaigns, so each of those pages is
    checked the same way, and rendered when they did."""
    area = AREA_OF_KIND[page.per_campaign]
    written, withheld, kept = [], [], []
    lineage = Lineage(project.sql)
    env = markdown.environment(project.templates, project.template_cache)
    template = page_keep.templates_digest(project.templates, page.template.name)
    appendix = pages_mod.appendix_of(project.docs)
    marts = [*page.marts, *(m for c in charts for m in c.marts)]
    # the campaigns outside the run (those the last join saw that still have a folder)
    current = {name for _, name, _ in campaign_folders(project.raw_data)}
    others = [c for c, s in unions.statuses(con).items() if c not in set(campaigns)
              and c in current and s["area"] == area and s["status"] == "published"]
    if not campaign_rows.reads_comparison(con, marts):
        kept.extend(others)
        others = []
    for campaign in [*campaigns, *others]:
        with campaign_files.attached(con, project.warehouse, [campaign]) as have:
            status = status_in(con, campaign_schema(campaign)) if have else None
            if status is None or status["area"] != area:
                continue
            if status["status"] != "published":
                render_withheld(con, project, page, staged, campaign, status)
                withheld.append(campaign)
                continue
            outcome = _render_published(con, project, page, charts, staged, campaign, template,
                                        appendix, marts, lineage, env, inventory, log)
        {"written": written, "withheld": withheld, "kept": kept}[outcome].append(campaign)
    return written, withheld, kept
