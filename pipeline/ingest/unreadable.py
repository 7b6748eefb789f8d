"""A raw store Parquet file DuckDB cannot read, named: its error on a garbled footer ("don't
know what type") names no file, and the build heals only a file it can name
(pipeline/warehouse/heal.py)."""
from __future__ import annotations

import duckdb


class UnreadableStoreFile(RuntimeError):
    """A Parquet file of the store that DuckDB cannot read; the message names it in quotes."""


def name_the_unreadable(con, sql: str, paths: list[str], key: str) -> None:
    """Run ``sql`` (over ``[paths], [paths], key``) on each file alone; raise for the first
    that fails, naming it."""
    for path in paths:
        try:
            con.execute(sql, [[path], [path], key]).fetchall()
        except duckdb.Error as exc:
            raise UnreadableStoreFile(f'Failed to read file "{path}": {exc}') from exc
