"""``file_sha`` caches a file's sha256 (pipeline/util/hashing.py) but never answers from the cache
for bytes that changed: an edit of the same size with its mtime put back (``touch -r``, what
the sensor missed) and a file replaced by another of the same size and times are both read
again; a file that did not change is not."""
from __future__ import annotations

import hashlib
import os

from pipeline.util import hashing
from pipeline.util.hashing import file_sha


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def test_a_same_size_edit_with_its_mtime_put_back_is_read_again(tmp_path):
    path = tmp_path / "run.txt"
    path.write_bytes(b"64 bytes from 10.0.0.2: time=0.201 ms\n")
    before = path.stat()
    assert file_sha(path) == _sha(b"64 bytes from 10.0.0.2: time=0.201 ms\n")
    path.write_bytes(b"64 bytes from 10.0.0.2: time=9.999 ms\n")       # same size
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))         # touch -r
    assert path.stat().st_mtime_ns == before.st_mtime_ns and path.stat().st_size == before.st_size
    assert file_sha(path) == _sha(b"64 bytes from 10.0.0.2: time=9.999 ms\n")


def test_a_file_replaced_by_another_is_read_again(tmp_path):
    path, other = tmp_path / "run.txt", tmp_path / "other.txt"
    path.write_bytes(b"aaaa")
    other.write_bytes(b"bbbb")
    st = path.stat()
    os.utime(other, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert file_sha(path) == _sha(b"aaaa")
    os.replace(other, path)                                           # a new inode, same size and mtime
    assert file_sha(path) == _sha(b"bbbb")


def test_an_unchanged_file_is_answered_from_the_cache(tmp_path, monkeypatch):
    path = tmp_path / "run.txt"
    path.write_bytes(b"same")
    file_sha(path)
    reads = []
    monkeypatch.setattr(hashing, "sha256_of", lambda p: reads.append(p) or "read")
    assert file_sha(path) == _sha(b"same") and reads == []
