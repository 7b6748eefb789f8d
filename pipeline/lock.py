"""One writer at a time.

DuckDB allows a single writing process, and two builds writing ``docs/`` at once
would interleave pages. A run takes an exclusive ``flock`` beside the warehouse on
its first connection and keeps it until its process ends (Dagster runs each run in
its own process; the in-process executor runs every step there). A second build
waits up to ``INTERCONNECT_LOCK_TIMEOUT`` seconds (default 600), then fails with a
message naming the holder.
"""
from __future__ import annotations

import fcntl
import os
import time
from pathlib import Path

_held: dict[str, int] = {}


class BuildLockedError(RuntimeError):
    pass


def writer_lock(db_path: Path, timeout_s: float | None = None) -> None:
    lock_path = Path(str(db_path) + ".lock")
    key = str(lock_path.resolve())
    if key in _held:
        return
    if timeout_s is None:
        timeout_s = float(os.environ.get("INTERCONNECT_LOCK_TIMEOUT", "600"))
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            break
        except BlockingIOError:
            if time.monotonic() >= deadline:
                holder = os.pread(fd, 64, 0).decode(errors="replace").strip() or "unknown"
                os.close(fd)
                raise BuildLockedError(
                    f"another build (pid {holder}) holds {lock_path}; "
                    f"gave up after waiting {timeout_s:.0f} s") from None
            time.sleep(0.2)
    os.ftruncate(fd, 0)
    os.pwrite(fd, str(os.getpid()).encode(), 0)
    _held[key] = fd
