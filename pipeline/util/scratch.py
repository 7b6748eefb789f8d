"""A private in-memory DuckDB database for work that reads and writes files but never the
warehouse (writing one raw file's Parquet, reading the store's footers).

Opening a DuckDB database costs about 40 ms; a cursor on an open one (its own connection, with
its own temporary tables) well under 1 ms, which matters for a build that writes hundreds of
small Parquet files. One database per process (pipeline/util/per_process.py: a forked child opens
its own and leaves the inherited one alone). Settings that are
global to a database (``memory_limit``, ``disabled_optimizers``) are not changed here: a parse
that needs them opens its own database.
"""
from __future__ import annotations

import duckdb

from pipeline.util.per_process import PerProcess


def _open() -> duckdb.DuckDBPyConnection:
    db = duckdb.connect()
    db.execute("set enable_progress_bar = false")
    return db


DATABASE = PerProcess(_open)


def cursor() -> duckdb.DuckDBPyConnection:
    """A fresh connection to this process's scratch database; close it when done."""
    return DATABASE.get().cursor()
