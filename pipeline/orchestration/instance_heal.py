"""The Dagster instance under DAGSTER_HOME is derived state for this project (run history, event
logs, schedule ticks): a SQLite file in it that SQLite cannot read (garbage, cut short) is moved
aside with a line naming it, and Dagster starts that storage again, instead of every build
failing with "file is not a database" naming no file."""
from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

from pipeline.util.aside import move_aside


def _readable(db: Path) -> str | None:
    """None when SQLite reads the file's schema; else SQLite's words."""
    try:
        with closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)) as con:
            con.execute("select count(*) from sqlite_master").fetchone()
        return None
    except sqlite3.DatabaseError as exc:
        return str(exc)


def heal_instance(home: Path) -> list[str]:
    """Move every unreadable ``*.db`` under ``home`` aside (with its -wal/-shm); one line each.
    The caller holds the build lock (no build writes the instance meanwhile)."""
    lines = []
    for db in sorted(Path(home).rglob("*.db")):
        if db.is_symlink() or not db.is_file() or db.stat().st_size == 0:
            continue            # an empty file is a new database to SQLite
        cause = _readable(db)
        if cause is None:
            continue
        aside = move_aside(db, ("-wal", "-shm"))
        lines.append(f"{db}: SQLite cannot read it ({cause}); moved aside to {aside.name}, and "
                     "Dagster starts it again (the history it held is in the aside copy)")
    return lines
