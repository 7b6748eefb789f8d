"""The sha256 of a file, read in 1 MiB chunks; ``file_sha`` remembers it per (path, inode, size,
mtime, ctime) so a tree hashed again only reads what changed. The ctime is the part a writer
cannot set back: an edit of the same size whose mtime was restored (``touch -r``) still changes
it, and so does replacing the file by another (a new inode)."""
from __future__ import annotations

import hashlib
import os
from functools import lru_cache
from pathlib import Path


def sha256_of(path: Path | str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


@lru_cache(maxsize=65536)
def _cached(path: str, inode: int, size: int, mtime_ns: int, ctime_ns: int) -> str:
    return sha256_of(path)


def file_sha(path: Path, st: os.stat_result | None = None) -> str:
    st = st or path.stat()
    return _cached(str(path), st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
