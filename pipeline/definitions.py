"""The Dagster code location (``dg dev``, ``dg launch``, ``dg check defs``).

A ``dg`` project (``[tool.dg]`` in pyproject.toml): the definitions are autoloaded from the
``pipeline/defs`` package, whose modules each give their part for the tree at
``INTERCONNECT_ROOT`` (default: this checkout): raw layer, SQL models and checks, pages, the
resources, and the schedule and sensor. They are built in ``pipeline/orchestration``; the
layers below it are plain libraries (README, "How it fits together").
"""
from __future__ import annotations

from pathlib import Path

from dagster import Definitions, definitions, load_from_defs_folder

from pipeline.orchestration.assembly import definitions_for
from pipeline.project import Project

__all__ = ["build_definitions", "defs"]


def build_definitions(project: Project) -> Definitions:
    """The same definitions for the tree of ``project`` (``make docs``, tests on copies)."""
    return definitions_for(project)


@definitions
def defs() -> Definitions:
    return load_from_defs_folder(path_within_project=Path(__file__).parent)
