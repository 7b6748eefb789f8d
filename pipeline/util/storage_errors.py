"""A failure's cause in a few lines, the real cause first.

Storage errors arrive wrapped: DuckDB reports a full disk as "database has been invalidated
because of a previous fatal error … Original error: …", and ``shutil.copytree`` collects one
``[Errno 28]`` per file it could not copy into a single message (43,020 characters for a site).
:func:`explain` puts the cause first, names the file, says how many more failed the same way
and what to do, and cuts whatever is left to :data:`LIMIT` characters.
"""
from __future__ import annotations

import errno
import os
import re

LIMIT = 600
_ORIGINAL = re.compile(r"Original error:\s*(.+)", re.S)
_DUCKDB_FILE = re.compile(r'Could not (?:write|open|read) file "([^"]+)":\s*([^"\n]+)')
# "[Errno 28] No space left on device: 'path'", or "…: 'src' -> 'dst'" from a copy (dst is written)
_PATH = r"'((?:[^'\\]|\\.)*)'"
_ERRNO = re.compile(rf"\[Errno (\d+)\] ([^:'\"\]]+)(?:: {_PATH}(?: -> {_PATH})?)?")
_ADVICE = {
    errno.ENOSPC: "free space on that filesystem (or point INTERCONNECT_DB / the publish "
                  "directory elsewhere) and build again",
    errno.EDQUOT: "raise the quota or free space, and build again",
    errno.EROFS: "the filesystem is read-only: build into a writable tree",
    errno.EACCES: "the build cannot write there: fix the permissions or the path",
}
_TEXT = {os.strerror(n).lower(): n for n in _ADVICE}


def _cut(text: str) -> str:
    text = " ".join(text.split())
    if len(text) <= LIMIT:
        return text
    return f"{text[:LIMIT]}… ({len(text) - LIMIT:,} more characters; V=1 shows the full log)"


def explain(message: str) -> str:
    """``message`` with a storage error's cause first, or just shortened."""
    original = _ORIGINAL.search(message)
    inner = original.group(1).strip().strip('"') if original else message
    hits = _ERRNO.findall(inner)
    code = path = None
    if hits:
        code, path = int(hits[0][0]), hits[0][3] or hits[0][2] or None
    elif (found := _DUCKDB_FILE.search(inner)):
        path, text = found.group(1), found.group(2).strip().lower()
        code = _TEXT.get(text)
    else:
        code = next((n for text, n in _TEXT.items() if text in inner.lower()), None)
    if code not in _ADVICE:
        return _cut(message)
    where = f" writing {path}" if path else ""
    same = [h for h in hits[1:] if int(h[0]) == code]
    more = f" (and {len(same)} more file{'s' if len(same) != 1 else ''} the same way)" if same else ""
    head = f"{os.strerror(code).lower()}{where}{more}: {_ADVICE[code]}"
    detail = inner if not hits else ""
    if original:
        detail = f"DuckDB: {inner} (the warehouse was invalidated by it)"
    return _cut(f"{head}. {detail}" if detail else head)
