"""The asset graph of one project tree, built once and shared by the ``pipeline/defs`` modules.

The graph is discovered from the tree (a raw asset per parser, a SQL asset per model, a page
asset per template), and each layer needs the table map of the layer before it, so the three
layers are built together here and each defs module hands Dagster its own slice.
``definitions_for(project)`` is the same graph as one Definitions object, for a tree given
explicitly (``make docs`` on ``INTERCONNECT_ROOT``, tests on copies).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from dagster import BackfillPolicy, Definitions, in_process_executor

from pipeline.orchestration.automation import nightly_rebuild, raw_data_changed, rebuild_job
from pipeline.orchestration.doc_assets import doc_assets
from pipeline.orchestration.raw_assets import raw_assets
from pipeline.orchestration.resources import Warehouse
from pipeline.orchestration.sql_assets import sql_assets
from pipeline.project import Project
from pipeline.warehouse.steps import Layout

# Every step covers a range of campaign partitions in one run (the build's run, a UI backfill,
# `dg launch --partition-range`); a single-run policy says so to Dagster.
SINGLE_RUN = BackfillPolicy.single_run()


def _single_run(assets: list) -> list:
    return [a.with_attributes(backfill_policy=SINGLE_RUN) for a in assets]


@dataclass(frozen=True)
class AssetGraph:
    raw: list
    models: list
    docs: list


def data_assets(layout: Layout) -> tuple[list, list, dict[str, list[str]]]:
    """The raw and SQL assets of the tree (no page: templates/ is not read), and the table map."""
    raw, tables = raw_assets(layout)
    models, tables = sql_assets(layout, tables)
    return _single_run(raw), _single_run(models), tables


def asset_graph(project: Project) -> AssetGraph:
    """The graph of the tree as it is now (discovered again on every call)."""
    layout = Layout(project)
    raw, models, tables = data_assets(layout)
    return AssetGraph(raw, models, _single_run(doc_assets(layout, tables)))


@lru_cache(maxsize=1)
def loaded_graph(root: str) -> AssetGraph:
    """The graph of the code location's tree (``INTERCONNECT_ROOT``), discovered once per
    load: the raw, sql and docs modules of ``pipeline/defs`` each take their slice of it."""
    return asset_graph(Project(Path(root)))


def location_graph() -> AssetGraph:
    """The graph of the code location's tree, ``INTERCONNECT_ROOT`` (default: this checkout)."""
    return loaded_graph(str(Project.from_env().root))


def resources_for(project: Project) -> Definitions:
    return Definitions(resources={"warehouse": Warehouse.for_project(project)},
                       executor=in_process_executor)


def automation() -> Definitions:
    """The rebuild job, the nightly schedule and the raw_data sensor."""
    return Definitions(jobs=[rebuild_job], schedules=[nightly_rebuild], sensors=[raw_data_changed])


def definitions_for(project: Project) -> Definitions:
    graph = asset_graph(project)
    return Definitions.merge(
        Definitions(assets=[*graph.raw, *graph.models, *graph.docs]), automation(),
        resources_for(project))
