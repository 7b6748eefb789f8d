"""Compaction of the warehouse: DuckDB reuses the blocks a dropped table frees but never gives
them back, so a warehouse rebuilt build after build grows (91 → 156 MB over ~45 builds). After a
build, when the free blocks are more than :data:`SLACK` of the used ones, the database is
copied into a fresh file (``COPY FROM DATABASE``: every schema, table, view and macro) and renamed
over the old one: all or nothing, under the build lock, with no connection open."""
from __future__ import annotations

import os
from pathlib import Path

import duckdb

from pipeline.util.sql import literal

SLACK = 0.5      # a warehouse may hold up to 1.5 × its live blocks before it is rewritten


def _blocks(path: Path) -> tuple[int, int]:
    con = duckdb.connect(str(path), read_only=True)
    try:
        row = con.execute("select used_blocks, free_blocks from pragma_database_size() "
                          "where database_name = current_database()").fetchone()
    finally:
        con.close()
    return int(row[0]), int(row[1])


def compact(path: Path, slack: float = SLACK) -> str | None:
    """Rewrite the warehouse at ``path`` when it holds more free than ``slack`` × used blocks;
    the line that says so, or None. Skipped while a WAL is beside it (a build that did not
    close cleanly: the next one settles it first)."""
    path = Path(path)
    if not path.is_file() or path.with_name(path.name + ".wal").exists():
        return None
    used, free = _blocks(path)
    if free <= slack * used:
        return None
    before = path.stat().st_size
    tmp = path.with_name(f".{path.name}.compact-{os.getpid()}")
    tmp.unlink(missing_ok=True)
    con = duckdb.connect()
    try:
        con.execute(f"attach {literal(str(path))} as old (read_only)")
        con.execute(f"attach {literal(str(tmp))} as new")
        con.execute("copy from database old to new")
        con.execute("detach new")
        con.execute("detach old")
    except BaseException:
        con.close()
        tmp.unlink(missing_ok=True)
        tmp.with_name(tmp.name + ".wal").unlink(missing_ok=True)
        raise
    con.close()
    os.replace(tmp, path)
    return (f"warehouse {path.name}: compacted, {before / 1e6:.0f} → {path.stat().st_size / 1e6:.0f} MB "
            f"({free} free blocks of earlier builds given back)")
