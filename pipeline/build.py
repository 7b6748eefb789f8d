"""Build everything in this process: the same assets Dagster runs, without a daemon.

Tests and ``make check`` use it on copies of the project tree.
"""
from __future__ import annotations

import shutil
from pathlib import Path

from dagster import AssetSelection, DagsterInstance

from .definitions import build_definitions
from .project import Project

# What a build reads (and, for docs/, writes). Code is imported, not copied.
TREE = ("raw_data", "sql", "templates", "docs", "mkdocs.yml")


def build(project: Project, raise_on_error: bool = True, site: bool = True):
    """Materialize every asset (without the mkdocs site when ``site`` is false) and run checks."""
    defs = build_definitions(project)
    job = defs.resolve_implicit_global_asset_job_def()
    selection = AssetSelection.all()
    if not site:
        selection = selection - AssetSelection.assets("site")
    keys = selection.resolve(defs.resolve_asset_graph())
    return job.execute_in_process(instance=DagsterInstance.ephemeral(),
                                  raise_on_error=raise_on_error, asset_selection=list(keys))


def copy_tree(src: Path, dest: Path) -> Project:
    """A copy of the inputs (and committed docs) of ``src`` under ``dest``."""
    dest.mkdir(parents=True, exist_ok=True)
    for name in TREE:
        s = src / name
        if s.is_dir():
            shutil.copytree(s, dest / name, dirs_exist_ok=True)
        elif s.is_file():
            shutil.copy2(s, dest / name)
    return Project(dest)
