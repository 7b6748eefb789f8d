"""Dagster assets for the output: one per page, one per chart, one for the site."""

import os

from dagster import AssetExecutionContext, MaterializeResult, asset

from . import pages as pages_mod
from .atomic import write_if_changed
from .charts import Chart, discover_charts
from .project import Project
from .provenance import Lineage
from .resources import Warehouse
from .site import build_site

GROUP_DOCS = "docs"


def page_asset(page: pages_mod.Page, tables: dict[str, list[str]]):
    deps = sorted({key for t in page.marts for key in tables[t]})

    @asset(name=page.asset_name, group_name=GROUP_DOCS, kinds={"jinja", "markdown"}, deps=deps,
           description=f"docs/{page.output} from templates/{page.template.name}")
    def _render(context: AssetExecutionContext, warehouse: Warehouse) -> MaterializeResult:
        project = warehouse.project
        with warehouse.connect() as con:
            page_now = pages_mod.Page(project.templates / page.template.name, page.title, page.marts)
            text = pages_mod.render(con, page_now, lineage=Lineage(project.sql),
                                    raw_data=project.raw_data)
            downloads = {m: pages_mod.csv_bytes(con, m) for m in page.marts}
        # every table of the page is downloadable next to it (written before the page links it)
        for mart, payload in downloads.items():
            write_if_changed(project.docs / pages_mod.csv_path(page_now, mart), payload)
        data_dir = project.docs / page_now.slug / "data"
        for old in sorted(data_dir.glob("*.csv")):
            if old.stem not in downloads:
                old.unlink()
        changed = write_if_changed(project.docs / page.output, text)
        return MaterializeResult(metadata={"path": f"docs/{page.output}", "changed": changed,
                                           "bytes": len(text.encode()),
                                           "csv_files": len(downloads)})

    return _render


def chart_asset(chart: Chart, tables: dict[str, list[str]]):
    missing = [m for m in chart.marts if m not in tables]
    if missing:
        raise pages_mod.PageError(f"chart {chart.name}: reads unknown table(s) {', '.join(missing)}")
    deps = sorted({key for t in chart.marts for key in tables[t]})

    @asset(name=f"chart_{chart.name}", group_name=GROUP_DOCS, kinds={"svg"}, deps=deps,
           description=f"docs/{chart.path}")
    def _draw(warehouse: Warehouse) -> MaterializeResult:
        with warehouse.connect() as con:
            svg = chart.render(con)
        changed = write_if_changed(warehouse.project.docs / chart.path, svg)
        return MaterializeResult(metadata={"path": f"docs/{chart.path}", "changed": changed})

    return _draw


def site_asset(upstream: list[str]):
    @asset(name="site", group_name=GROUP_DOCS, kinds={"mkdocs"}, deps=upstream,
           description="mkdocs build --strict of docs/ into site/ (atomic swap); also published "
                       "to INTERCONNECT_PUBLISH_DIR when set.")
    def _site(context: AssetExecutionContext, warehouse: Warehouse) -> MaterializeResult:
        build = build_site(warehouse.project, os.environ.get("INTERCONNECT_PUBLISH_DIR"))
        return MaterializeResult(metadata={"build": build.name})

    return _site


def doc_assets(project: Project, tables: dict[str, list[str]]):
    found = pages_mod.discover_pages(project.templates)
    pages_mod.check_marts(found, set(tables))
    assets = [page_asset(p, tables) for p in found]
    assets += [chart_asset(c, tables) for c in discover_charts()]
    upstream = sorted(a.key.path[-1] for a in assets)
    assets.append(site_asset(upstream))
    return assets
