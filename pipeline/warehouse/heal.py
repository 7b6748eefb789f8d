"""The warehouse is derived state (rebuilt from raw_data/, sql/ and the code): a file DuckDB cannot
open as a database (cut to 0 bytes or to a part, overwritten, not a database at all) is moved
aside with a one-line message and built again, instead of failing every build that follows."""
from __future__ import annotations

from pathlib import Path

import duckdb

from pipeline.util.aside import move_aside

# DuckDB's words when another process holds the file: not corruption, nothing to heal
_HELD = ("Could not set lock", "Conflicting lock")


def heal(path: Path) -> str | None:
    """Move ``path`` (and its WAL) aside when DuckDB cannot open it; the line to print, or None
    when it opens (or does not exist). The caller holds the build lock."""
    path = Path(path)
    if not path.exists():
        return None
    try:
        duckdb.connect(str(path), read_only=True).close()
        return None
    except duckdb.Error as exc:
        cause = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        if any(words in cause for words in _HELD):
            return None
    aside = move_aside(path, (".wal",))
    return (f"{path}: DuckDB cannot open it ({cause[:160]}); moved aside to {aside.name} and "
            "built again from raw_data/ (derived state; delete the aside copy when done)")
