"""The Dagster code location: every asset discovered from the project tree."""
from __future__ import annotations

from dagster import Definitions, in_process_executor

from .build_steps import Layout
from .defs.automation import nightly_rebuild, raw_data_changed, rebuild_job
from .defs.docs import doc_assets
from .defs.raw import raw_assets
from .defs.resources import Warehouse
from .defs.sql import sql_assets
from .project import Project


def build_definitions(project: Project) -> Definitions:
    layout = Layout(project)
    raw, tables = raw_assets(layout)
    models, tables = sql_assets(layout, tables)
    docs = doc_assets(layout, tables)
    return Definitions(
        assets=[*raw, *models, *docs], jobs=[rebuild_job], schedules=[nightly_rebuild],
        sensors=[raw_data_changed], resources={"warehouse": Warehouse.for_project(project)},
        executor=in_process_executor)


defs = build_definitions(Project.from_env())
