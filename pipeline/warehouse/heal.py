"""The warehouse is derived state (rebuilt from raw_data/, sql/ and the code): a file DuckDB cannot
open as a database (cut to 0 bytes or to a part, overwritten, not a database at all) is moved
aside with a one-line message and built again, instead of failing every build that follows. So is
a raw store Parquet file DuckDB cannot read (bad bytes inside, cut short): the campaign's models
name it in their error, and that campaign's raw files are parsed again
(pipeline/warehouse/steps.py, build_campaigns)."""
from __future__ import annotations

import re
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


# A raw store file named in DuckDB's error: "Failed to read file "<path>": Snappy decompression
# failure", "No magic bytes found at end of file '<path>'", "File '<path>' too small …"
_STORE_FILE = re.compile(r"""["']([^"'\n]+?\.parquet)["']""")


def unreadable_store_files(store_root: Path, message: str) -> list[Path]:
    """The raw store's Parquet files a DuckDB error says it could not read (named from the
    store's parent folder when a campaign file's view read them: campaign_files.py)."""
    root = Path(store_root).resolve()
    found = []
    for text in _STORE_FILE.findall(message):
        path = root.parent / text           # an absolute name stays as it is
        if path.is_file() and root in path.resolve().parents and path not in found:
            found.append(path)
    return found


def set_aside_store_file(path: Path, source: str | None, cause: str) -> str:
    """Move an unreadable raw store file aside; the line that says so."""
    aside = move_aside(path)
    what = f"{source} is parsed again" if source else "its raw file is parsed again"
    return (f"{path}: DuckDB cannot read this raw store file ({cause[:160]}); moved aside to "
            f"{aside.name}, {what} (derived state; delete the aside copy when done)")
