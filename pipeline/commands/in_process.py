"""Build everything in this process: the same assets Dagster runs, as one run.

The run covers every campaign partition (a range from the first to the last) and every shared
asset. Tests and ``make check`` use it on copies of the project tree; ``python -m
pipeline.commands.in_process`` is the command line around it.
"""
from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path

import duckdb
from dagster import AssetSelection, DagsterInstance

from pipeline.definitions import build_definitions
from pipeline.orchestration.partitions import range_tags, sync_campaign_folders
from pipeline.project import Project
from pipeline.util.signals import kept_signals

# What a build reads (and, for docs/, writes). Code is imported, not copied.
TREE = ("raw_data", "sql", "templates", "docs", "mkdocs.yml")


@dataclass
class BuildResult:
    success: bool
    result: object                       # Dagster's ExecuteInProcessResult
    withheld: dict[str, list[dict]] = field(default_factory=dict)   # campaign -> reasons
    campaigns: list[str] = field(default_factory=list)
    ran: list[str] = field(default_factory=list)        # the campaign partitions of the run

    @property
    def exit_code(self) -> int:
        if not self.success:
            return 1
        return 3 if self.withheld else 0


def _withheld(project: Project) -> dict[str, list[dict]]:
    import json
    if not project.warehouse.exists():
        return {}
    con = duckdb.connect(str(project.warehouse), read_only=True)
    try:
        rows = con.execute("select campaign, reasons from meta_campaign_status "
                           "where status <> 'published' order by campaign").fetchall()
    except duckdb.Error:
        return {}
    finally:
        con.close()
    return {c: json.loads(r or "[]") for c, r in rows}


def run_range(ordered: list[str], only: list[str] | None) -> list[str]:
    """The campaign partitions a run covers: every one; or, given the campaigns that changed
    (``only``), the consecutive ones from the first of them to the last (the last campaign
    alone when none did: a removal, whose effect on the others' pages is checked then)."""
    if only is None or not ordered:
        return ordered
    at = [ordered.index(c) for c in only if c in ordered]
    return ordered[min(at):max(at) + 1] if at else ordered[-1:]


def build(project: Project, raise_on_error: bool = True, site: bool = True,
          instance: DagsterInstance | None = None, log_level: str = "WARNING",
          only: list[str] | None = None) -> BuildResult:
    """Materialize every asset (without the mkdocs site when ``site`` is false) over every
    campaign, or over the range of those in ``only`` (run_range); Dagster's console log
    shows ``log_level`` and above."""
    defs = build_definitions(project)
    instance = instance or DagsterInstance.ephemeral()
    every = sync_campaign_folders(instance, project.raw_data)
    ordered = run_range(every, only)
    graph = defs.resolve_asset_graph()
    selection = AssetSelection.all()
    if not site:
        selection = selection - AssetSelection.assets("site")
    keys = selection.resolve(graph)
    tags = range_tags(ordered)
    if not ordered:  # no campaign: nothing partitioned to run
        keys = {k for k in keys if not graph.get(k).is_partitioned}
    job = defs.resolve_implicit_global_asset_job_def()
    with kept_signals():        # Dagster leaves SIGTERM with SIGINT's handler (util/signals.py)
        result = job.execute_in_process(
            instance=instance, raise_on_error=raise_on_error, asset_selection=list(keys),
            tags=tags, run_config={"loggers": {"console": {"config": {"log_level": log_level}}}})
    withheld = _withheld(project) if result.success else {}
    return BuildResult(result.success, result, withheld, every, ordered)


def copy_tree(src: Path, dest: Path) -> Project:
    """A copy of the inputs (and committed docs) of ``src`` under ``dest``."""
    dest.mkdir(parents=True, exist_ok=True)
    for name in TREE:
        s = src / name
        if s.is_dir():
            shutil.copytree(s, dest / name, dirs_exist_ok=True, symlinks=True)
        elif s.is_file():
            shutil.copy2(s, dest / name)
    return Project(dest)
