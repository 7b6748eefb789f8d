"""Write files so that a reader (or a killed build) sees the old or the new bytes, never a mix."""
from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_if_changed(path: Path, data: bytes | str) -> bool:
    """Atomically replace ``path`` with ``data``; untouched (mtime kept) when equal."""
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
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return True
