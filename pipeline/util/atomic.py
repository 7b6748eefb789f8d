"""Write files so that a reader (or a killed build) sees the old or the new bytes, never a mix."""
from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import BinaryIO, Callable

from pipeline.util.faults import checkpoint


def atomic_write(target: Path, fill: Callable[[BinaryIO], None], tmp_dir: Path | None = None) -> None:
    """Write ``target`` through a temp file, fsync, rename: all or nothing. The temp file is in
    ``tmp_dir`` when given and on the same filesystem (so a kill never leaves one beside the
    target), else in the target's folder."""
    where = target.parent
    if tmp_dir is not None and tmp_dir.is_dir() and tmp_dir.stat().st_dev == where.stat().st_dev:
        where = tmp_dir
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=where)
    try:
        with os.fdopen(fd, "wb") as fh:
            fill(fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_if_changed(path: Path, data: bytes | str, tmp_dir: Path | None = None,
                     fault: str | None = None) -> bool:
    """Atomically replace ``path`` with ``data``; untouched (mtime kept) when equal. ``fault``
    names the fault point (pipeline/util/faults.py) hit half-way through writing the bytes, so a test
    can kill a build inside a write."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    path = Path(path)
    if path.exists() and path.read_bytes() == data:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    # A build killed mid-write leaves its temp file; builds hold the writer lock, so any
    # temp file of this target is stale.
    for stale in path.parent.glob(f".{path.name}.*.tmp"):
        stale.unlink(missing_ok=True)
    def fill(fh):
        half = len(data) // 2
        fh.write(data[:half])
        if fault is not None:
            fh.flush()
            checkpoint(fault)
        fh.write(data[half:])

    atomic_write(path, fill, tmp_dir)
    return True
