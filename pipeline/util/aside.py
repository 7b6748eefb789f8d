"""Moving derived state that cannot be read out of the way, kept for a look: ``<name>.unreadable-<UTC
stamp>`` beside it, with the files that belong to it (a WAL, SQLite's -shm)."""
from __future__ import annotations

import datetime as dt
from pathlib import Path


def move_aside(path: Path, companions: tuple[str, ...] = ()) -> Path:
    """Rename ``path`` (and ``path`` + each companion suffix that exists) aside; the new path."""
    stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    aside = path.with_name(f"{path.name}.unreadable-{stamp}")
    path.rename(aside)
    for suffix in companions:
        extra = path.with_name(path.name + suffix)
        if extra.exists():
            extra.rename(aside.with_name(aside.name + suffix))
    return aside
