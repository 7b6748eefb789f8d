"""The atomic-write and build-lock primitives, in-process and fast (the whole-build kill and
lock tests are in test_trust_build.py and test_trust_faults.py)."""
from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from pipeline.util import lock
from pipeline.util.atomic import atomic_write, write_if_changed

from paths import REPO


def test_a_failing_fill_leaves_the_old_bytes_and_no_temp_file(tmp_path):
    target = tmp_path / "page.md"
    target.write_bytes(b"old")

    def fill(fh):
        fh.write(b"half of the new")
        raise RuntimeError("renderer failed")

    with pytest.raises(RuntimeError):
        atomic_write(target, fill)
    assert target.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["page.md"]


def test_the_temp_file_lives_in_tmp_dir_and_the_result_is_world_readable(tmp_path):
    target, staging = tmp_path / "docs" / "page.md", tmp_path / "staging"
    target.parent.mkdir()
    staging.mkdir()
    seen = []
    atomic_write(target, lambda fh: (seen.append(sorted(p.name for p in staging.iterdir())), fh.write(b"new")),
                 tmp_dir=staging)
    assert target.read_bytes() == b"new"
    assert len(seen[0]) == 1 and seen[0][0].startswith(".page.md.") and seen[0][0].endswith(".tmp")
    assert not list(staging.iterdir()) and oct(target.stat().st_mode & 0o777) == "0o644"


def test_write_if_changed_keeps_an_equal_file_untouched(tmp_path):
    target = tmp_path / "a" / "b.md"
    assert write_if_changed(target, "x") is True            # folders made
    os.utime(target, ns=(1_000_000_000, 1_000_000_000))
    assert write_if_changed(target, b"x") is False
    assert target.stat().st_mtime_ns == 1_000_000_000       # not rewritten
    assert write_if_changed(target, "y") is True and target.read_text() == "y"


def test_write_if_changed_removes_a_killed_builds_temp_files(tmp_path):
    target = tmp_path / "b.md"
    stale = tmp_path / ".b.md.abc123.tmp"
    stale.write_text("half")
    other = tmp_path / ".c.md.abc123.tmp"                   # another target's: not ours
    other.write_text("half")
    write_if_changed(target, "new")
    assert not stale.exists() and other.exists() and target.read_text() == "new"


def test_the_bytes_are_written_whole_around_the_fault_point(tmp_path):
    # with the fault point named but not armed, the two halves make the whole
    data = bytes(range(256)) * 3 + b"odd"
    write_if_changed(tmp_path / "f", data, fault="docs:mid-write")
    assert (tmp_path / "f").read_bytes() == data


HOLD = """
import sys, time
from pathlib import Path
from pipeline.util import lock
lock.acquire([Path(sys.argv[1])], timeout_s=5)
print("held", flush=True)
time.sleep(30)
"""


@pytest.fixture
def held_elsewhere(tmp_path, monkeypatch):
    """(the lock's path, the other process that holds it); this process holds no lock."""
    path = tmp_path / ".interconnect-build.lock"
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(path)], stdout=subprocess.PIPE, text=True,
                              cwd=REPO)
    try:
        assert holder.stdout.readline().strip() == "held"
        monkeypatch.setattr(lock, "_held", {})
        monkeypatch.setattr(lock, "_refused", {})
        monkeypatch.delenv(lock.OWNER_ENV, raising=False)
        yield path, holder
    finally:
        holder.kill()
        holder.wait()


def test_a_held_lock_is_refused_after_the_timeout_naming_the_holder(held_elsewhere, monkeypatch):
    path, holder = held_elsewhere
    start = time.monotonic()
    with pytest.raises(lock.BuildLockedError) as info:
        lock.acquire([path], timeout_s=0.3)
    assert time.monotonic() - start >= 0.3                      # it waited
    assert f"pid {holder.pid}" in str(info.value) and "nothing was written" in str(info.value)
    # refused once, refused at once after that
    start = time.monotonic()
    with pytest.raises(lock.BuildLockedError):
        lock.acquire([path], timeout_s=5)
    assert time.monotonic() - start < 1
    # a child of the holder (its pid exported) goes through
    monkeypatch.setenv(lock.OWNER_ENV, str(holder.pid))
    monkeypatch.setattr(lock, "_refused", {})
    lock.acquire([path], timeout_s=0.1)


def test_a_free_lock_is_taken_and_names_this_process(tmp_path, monkeypatch):
    monkeypatch.setattr(lock, "_held", {})
    monkeypatch.setattr(lock, "_refused", {})
    paths = lock.lock_paths(tmp_path, tmp_path / "elsewhere" / "w.duckdb")
    # a warehouse outside the tree has its own lock beside it
    assert paths == [tmp_path.resolve() / ".interconnect-build.lock",
                     (tmp_path / "elsewhere" / "w.duckdb.lock").resolve()]
    assert lock.lock_paths(tmp_path, tmp_path / "w.duckdb") == [tmp_path.resolve() / ".interconnect-build.lock"]
    lock.acquire(paths, timeout_s=0.1)
    assert all(p.read_text() == str(os.getpid()) for p in paths)
    lock.acquire(paths, timeout_s=0.1)                              # re-entrant
    for fd in lock._held.values():
        os.close(fd)


def test_a_reader_is_refused_while_a_build_holds_the_lock_and_a_build_waits_for_a_reader(tmp_path, monkeypatch):
    # the raw_data sensor reads the warehouse under reader_lock: DuckDB refuses a build's
    # read-write open while any other process has the file open, even read-only
    db = tmp_path / ".warehouse" / "w.duckdb"
    tree_lock = tmp_path.resolve() / ".interconnect-build.lock"
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(tree_lock)], stdout=subprocess.PIPE, text=True,
                              cwd=REPO)
    try:
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(lock.BuildLockedError, match=f"pid {holder.pid}"):
            with lock.reader_lock(tmp_path, db):
                pass
    finally:
        holder.kill()
        holder.wait()
    monkeypatch.setattr(lock, "_held", {})
    monkeypatch.setattr(lock, "_refused", {})
    monkeypatch.delenv(lock.OWNER_ENV, raising=False)
    with lock.reader_lock(tmp_path, db):                 # free now: the reader gets in
        probe = subprocess.run([sys.executable, "-c", HOLD.replace("timeout_s=5", "timeout_s=0.3"),
                                str(tree_lock)], capture_output=True, text=True, timeout=60,
                               cwd=REPO)
        # a build cannot take the lock while the reader reads (it would wait; here it gives up)
        assert probe.returncode != 0 and "BuildLockedError" in probe.stderr
    lock.acquire([tree_lock], timeout_s=0.3)             # and takes it once the read is over
    for fd in lock._held.values():
        os.close(fd)


def test_a_fill_that_loses_its_temp_file_still_reports_its_own_error(tmp_path):
    target = tmp_path / "page.md"

    def fill(fh):
        for p in tmp_path.glob(".page.md.*.tmp"):      # gone before the cleanup looks for it
            p.unlink()
        raise RuntimeError("renderer failed")

    with pytest.raises(RuntimeError, match="renderer failed"):
        atomic_write(target, fill)
    assert not target.exists()


def test_write_if_changed_makes_every_missing_folder(tmp_path):
    target = tmp_path / "a" / "b" / "c" / "page.md"
    assert write_if_changed(target, "x") is True and target.read_text() == "x"


def test_a_stale_temp_file_that_vanished_meanwhile_is_no_error(tmp_path, monkeypatch):
    target = tmp_path / "b.md"
    real_glob = Path.glob
    # another cleanup removed it between the listing and the unlink
    monkeypatch.setattr(Path, "glob", lambda self, pattern: iter([tmp_path / ".b.md.gone.tmp"])
                        if pattern.startswith(".b.md.") else real_glob(self, pattern))
    assert write_if_changed(target, "new") is True and target.read_text() == "new"


def test_the_fault_point_is_hit_with_exactly_the_first_half_written_in_tmp_dir(tmp_path, monkeypatch):
    import pipeline.util.atomic as atomic
    target, staging = tmp_path / "docs" / "page.md", tmp_path / "staging"
    target.parent.mkdir()
    staging.mkdir()
    data = b"0123456789abcdefghij" * 5 + b"odd"           # 103 bytes: the first half is 51
    seen = []

    def at_fault(point):
        temps = sorted(staging.glob(".page.md.*.tmp"))
        seen.append((point, [t.read_bytes() for t in temps]))
    monkeypatch.setattr(atomic, "checkpoint", at_fault)
    write_if_changed(target, data, tmp_dir=staging, fault="docs:mid-write")
    # the temp file is in tmp_dir (not beside the page), flushed up to exactly len // 2 bytes
    assert seen == [("docs:mid-write", [data[:51]])]
    assert target.read_bytes() == data
    # without a fault point named, nothing is checked
    seen.clear()
    write_if_changed(target, data + b"!", tmp_dir=staging)
    assert seen == []


def test_a_wait_says_who_holds_the_lock_and_how_long_it_waits(held_elsewhere, monkeypatch, capsys):
    path, holder = held_elsewhere
    monkeypatch.setattr(lock, "NOTICE_AFTER_S", 0.0)           # say it at once
    with pytest.raises(lock.BuildLockedError):
        lock.acquire([path], timeout_s=0.2)
    said = capsys.readouterr().err
    assert said.startswith(f"waiting for .interconnect-build.lock: another build, pid {holder.pid} (")
    assert "-c" in said and "held for" in said and "waiting up to 0 s (INTERCONNECT_LOCK_TIMEOUT)" in said
    assert said.count("waiting for") == 1                    # once, not every 0.1 s
    # the holder ends while this waits: the lock is taken and the wait's end is said
    monkeypatch.setattr(lock, "_refused", {})
    threading.Timer(0.3, holder.kill).start()
    lock.acquire([path], timeout_s=30)
    said = capsys.readouterr().err.splitlines()
    assert said[0].startswith("waiting for .interconnect-build.lock") and len(said) == 2
    assert said[1].startswith(".interconnect-build.lock: taken after waiting ")


def test_a_short_wait_says_nothing(tmp_path, monkeypatch, capsys):
    # a build waits milliseconds for a reader: below NOTICE_AFTER_S, not a word
    path = tmp_path / ".interconnect-build.lock"
    monkeypatch.setattr(lock, "_held", {})
    monkeypatch.setattr(lock, "_refused", {})
    monkeypatch.delenv(lock.OWNER_ENV, raising=False)
    lock.acquire([path], timeout_s=1)
    assert capsys.readouterr().err == "" and lock.NOTICE_AFTER_S == 1.0
