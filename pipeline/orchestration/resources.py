"""The one Dagster resource: the project tree and its DuckDB warehouse."""
from __future__ import annotations

from contextlib import contextmanager
from functools import cached_property
from pathlib import Path
from typing import Iterator

import duckdb
from dagster import ConfigurableResource

from pipeline.project import Project
from pipeline.util.lock import ingest_lock, writer_lock
from pipeline.warehouse import campaign_files
from pipeline.warehouse.schemas import drop_legacy_schemas
from pipeline.warehouse.steps import Layout


class Warehouse(ConfigurableResource):
    """The tree (raw_data/, sql/, templates/, docs/) and the DuckDB file a build writes."""

    root: str
    db_path: str

    @property
    def project(self) -> Project:
        return Project(Path(self.root))

    @cached_property
    def layout(self) -> Layout:
        return Layout(self.project)

    def lock(self) -> None:
        """Every step that writes takes the build lock first (re-entrant in a process)."""
        writer_lock(self.project.root, Path(self.db_path))

    @contextmanager
    def ingesting(self, campaign: str) -> Iterator[None]:
        """Held while one campaign's raw files are written (pipeline/util/lock.py, ingest_lock)."""
        with ingest_lock(self.project.root, Path(self.db_path),
                         self.layout.store.lock_file(campaign)):
            yield

    @contextmanager
    def building(self, campaign: str | None) -> Iterator[None]:
        """Held while one campaign's own file (the template's when None) is written: the build
        locks shared, that file's lock exclusively (pipeline/util/lock.py, ingest_lock)."""
        with ingest_lock(self.project.root, Path(self.db_path),
                         campaign_files.lock_of(Path(self.db_path), campaign)):
            yield

    @contextmanager
    def connect(self) -> Iterator[duckdb.DuckDBPyConnection]:
        self.lock()
        path = Path(self.db_path)
        path.parent.mkdir(parents=True, exist_ok=True)
        con = duckdb.connect(str(path))
        try:
            con.execute("set enable_progress_bar = false")
            drop_legacy_schemas(con)
            yield con
        finally:
            con.close()

    @classmethod
    def for_project(cls, project: Project) -> "Warehouse":
        return cls(root=str(project.root), db_path=str(project.warehouse))
