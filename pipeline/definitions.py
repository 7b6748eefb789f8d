"""The Dagster code location: every asset discovered from the project tree."""
from __future__ import annotations

from dagster import Definitions, in_process_executor

from .automation import nightly_rebuild, raw_data_changed, rebuild_job
from .catalog_assets import META_TABLES, catalog_asset
from .ingest_assets import raw_assets
from .model_assets import sql_assets
from .page_assets import doc_assets
from .project import Project
from .resources import Warehouse


def build_definitions(project: Project) -> Definitions:
    raw, tables = raw_assets(project)
    tables.update({t: [t] for t in META_TABLES})
    models, checks, tables = sql_assets(project, tables)
    catalog = catalog_asset(project, tables)
    docs = doc_assets(project, tables)
    return Definitions(
        assets=[*raw, *models, catalog, *docs], asset_checks=checks,
        jobs=[rebuild_job], schedules=[nightly_rebuild], sensors=[raw_data_changed],
        resources={"warehouse": Warehouse.for_project(project)},
        executor=in_process_executor)


defs = build_definitions(Project.from_env())
