"""The sha256 of a file, read in 1 MiB chunks; ``file_sha`` remembers it per (path, inode, size,
mtime, ctime) so a tree hashed again only reads what changed. The ctime is the part a writer
cannot set back: an edit of the same size whose mtime was restored (``touch -r``) still changes
it, and so does replacing the file by another (a new inode)."""
from __future__ import annotations

import hashlib
import os
from functools import lru_cache
from pathlib import Path


def sha256_of_parts(*parts: str | bytes) -> str:
    """The sha256 of ``parts``, each followed by a NUL (so ("ab", "c") and ("a", "bc") differ)."""
    h = hashlib.sha256()
    for part in parts:
        h.update(part if isinstance(part, bytes) else part.encode())
        h.update(b"\0")
    return h.hexdigest()


def package_digest(package: Path, skip: tuple[str, ...] = ()) -> str:
    """The sha256 of every ``*.py`` under ``package`` (its path and bytes), in path order, but
    those under a folder named in ``skip``."""
    h = hashlib.sha256()
    for path in sorted(package.rglob("*.py")):
        if skip and set(skip) & set(path.relative_to(package).parts[:-1]):
            continue
        h.update(path.relative_to(package).as_posix().encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


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
