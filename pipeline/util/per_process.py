"""One in-memory DuckDB database per process, safe across ``fork``.

A forked child inherits a copy of its parent's open database, but not the threads that database
runs on. Destroying that copy in the child (for example by replacing it with a new one, which
drops the last reference) waits on threads that do not exist there and kills the child with
SIGSEGV (measured: every time, DuckDB 1.x and 2.0). So a child opens a database of its own and
keeps the inherited one referenced, untouched, for as long as it lives. This matters wherever
the pipeline forks: Dagster's multiprocess executor, Celery's prefork workers, mutmut's workers.
"""
from __future__ import annotations

import os
import threading
from collections.abc import Callable

import duckdb


class PerProcess:
    """``get()``: this process's database, opened by ``open_db`` on first use in each process."""

    def __init__(self, open_db: Callable[[], duckdb.DuckDBPyConnection] = duckdb.connect):
        self._open = open_db
        self._lock = threading.Lock()
        self._pid: int | None = None
        self._db: duckdb.DuckDBPyConnection | None = None
        # databases inherited through fork: never closed nor dropped here (see the module note)
        self.inherited: list[duckdb.DuckDBPyConnection] = []
        # a lock held by another thread at the fork stays held in the child: it gets a new one
        os.register_at_fork(after_in_child=self._new_lock)

    def _new_lock(self) -> None:
        self._lock = threading.Lock()

    def get(self) -> duckdb.DuckDBPyConnection:
        with self._lock:
            if self._db is None or self._pid != os.getpid():
                if self._db is not None:
                    self.inherited.append(self._db)
                self._db, self._pid = self._open(), os.getpid()
            return self._db
