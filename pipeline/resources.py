"""The one Dagster resource: the DuckDB warehouse and the project tree it serves."""
from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import duckdb
from dagster import ConfigurableResource

from .project import Project
from .lock import writer_lock


class Warehouse(ConfigurableResource):
    """DuckDB file plus the project root (raw_data/, sql/, templates/, docs/)."""

    root: str
    db_path: str

    @property
    def project(self) -> Project:
        return Project(Path(self.root))

    @contextmanager
    def connect(self) -> Iterator[duckdb.DuckDBPyConnection]:
        path = Path(self.db_path)
        path.parent.mkdir(parents=True, exist_ok=True)
        writer_lock(path)
        con = duckdb.connect(str(path))
        try:
            yield con
        finally:
            con.close()

    @classmethod
    def for_project(cls, project: Project) -> "Warehouse":
        return cls(root=str(project.root), db_path=str(project.warehouse))

