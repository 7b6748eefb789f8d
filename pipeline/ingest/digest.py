"""A folder's content digest: what the raw_data sensor compares, and what each build records.

The digest is the sha256 of every entry under the folder, in path order: a regular file by the
sha256 of its bytes, a symbolic link by its target text (never followed), anything else by its
kind, each with its path. Sizes and modification times do not enter it, so a ``touch`` or a
``git checkout`` that leaves the bytes as they were changes nothing; a rename does change it.
Hashes of unchanged files (same inode, size, modification and change time) are remembered
within a process, so a sensor tick rereads only what changed, and an edit whose modification
time was put back is still seen (pipeline/util/hashing.py).
"""
from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

from pipeline.util.hashing import file_sha


def _entry(path: Path) -> str:
    st = path.lstat()
    if stat.S_ISLNK(st.st_mode):
        return "link:" + os.readlink(path)
    if stat.S_ISREG(st.st_mode):
        try:
            return file_sha(path, st)
        except OSError as exc:          # vanished or unreadable mid-scan: a change, not a crash
            return f"unreadable:{exc.errno}"
    return f"special:{stat.S_IFMT(st.st_mode)}"


def folder_digest(folder: Path, skip: frozenset[str] = frozenset()) -> str | None:
    """The digest of ``folder`` (None when it does not exist), without the folders whose path
    relative to it is in ``skip``."""
    if not folder.is_dir():
        return None
    h = hashlib.sha256()
    entries = []
    for dirpath, dirnames, filenames in os.walk(folder, followlinks=False):
        base = Path(dirpath)
        # a linked folder is an entry (its target text), never walked into
        links = [d for d in dirnames if (base / d).is_symlink()]
        dirnames[:] = sorted(d for d in dirnames if d not in links
                             and (base / d).relative_to(folder).as_posix() not in skip)
        for name in [*filenames, *links]:
            p = base / name
            entries.append((p.relative_to(folder).as_posix(), p))
    for rel, p in sorted(entries):
        h.update(os.fsencode(rel) + b"\0" + _entry(p).encode() + b"\n")
    return h.hexdigest()
