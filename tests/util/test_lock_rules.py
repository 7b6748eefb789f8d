"""The build lock's rules one by one (pipeline/util/lock.py), on a fake clock where waiting matters:
who holds a lock, how long a build waits and how often it looks, what a refusal says, what the
lock file holds. tests/util/test_atomic_lock.py runs the same code against real second processes."""
from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import time

import pytest

from pipeline.util import lock

from paths import REPO

HOLD = ("import sys, time\nfrom pathlib import Path\nfrom pipeline.util import lock\n"
        "lock.acquire([Path(sys.argv[1])], timeout_s=5)\nprint('held', flush=True)\ntime.sleep(60)\n")


pytestmark = pytest.mark.usefixtures("fresh_locks")


@pytest.fixture
def held(tmp_path):
    """A lock file held by another process (which sleeps)."""
    path = tmp_path / "held.lock"
    proc = subprocess.Popen([sys.executable, "-c", HOLD, str(path)], stdout=subprocess.PIPE,
                            text=True, cwd=REPO)
    assert proc.stdout.readline().strip() == "held"
    yield path, proc
    proc.kill()
    proc.wait()


@pytest.fixture
def clock(monkeypatch):
    """time.monotonic that only moves when the code sleeps; records every sleep."""
    state = {"t": 0.0, "sleeps": []}      # 0.1 s steps add up to 0.5 exactly from 0

    def sleep(s):
        state["sleeps"].append(s)
        state["t"] += s
    monkeypatch.setattr(lock.time, "monotonic", lambda: state["t"])
    monkeypatch.setattr(lock.time, "sleep", sleep)
    return state


def test_the_wait_comes_from_the_environment_and_looks_every_tenth_of_a_second(held, clock, monkeypatch):
    path, proc = held
    monkeypatch.setenv("INTERCONNECT_LOCK_TIMEOUT", "0.5")
    with pytest.raises(lock.BuildLockedError) as info:
        lock.acquire([path])
    # looks at t = 0, 0.1, ... 0.5 s: five sleeps of 0.1 s, refused once the deadline is reached
    # (at it, not after it)
    assert clock["sleeps"] == [0.1] * 5
    assert str(info.value) == (f"another build (pid {proc.pid}) holds {path}; gave up after "
                               f"waiting 0 s; nothing was written")


def test_without_a_setting_a_build_waits_ten_minutes(held, clock):
    path, proc = held
    with pytest.raises(lock.BuildLockedError, match="gave up after waiting 600 s"):
        lock.acquire([path])
    assert sum(clock["sleeps"]) == pytest.approx(600, abs=0.11)


def test_a_refusal_is_repeated_at_once_word_for_word(held, clock):
    path, _ = held
    with pytest.raises(lock.BuildLockedError) as first:
        lock.acquire([path], timeout_s=0.2)
    looked = len(clock["sleeps"])
    with pytest.raises(lock.BuildLockedError) as again:
        lock.acquire([path], timeout_s=5)
    assert str(again.value) == str(first.value) and len(clock["sleeps"]) == looked


def test_a_lock_already_held_does_not_stop_the_next_one_being_taken(tmp_path):
    first, second = tmp_path / "a.lock", tmp_path / "b.lock"
    lock.acquire([first], timeout_s=0.1)
    lock.acquire([first, second], timeout_s=0.1)
    assert set(lock._held) == {str(first), str(second)}
    assert second.read_text() == str(os.getpid())


def test_the_lock_file_is_made_with_its_folders_readable_by_all_and_names_only_this_process(tmp_path):
    path = tmp_path / "a" / "b" / "c.lock"
    old = os.umask(0)
    try:
        lock.acquire([path], timeout_s=0.1)
    finally:
        os.umask(old)
    assert stat.S_IMODE(path.stat().st_mode) == 0o644
    assert path.read_text() == str(os.getpid())


def test_a_longer_pid_left_in_the_file_is_replaced_not_overwritten_in_part(tmp_path):
    path = tmp_path / "x.lock"
    path.write_text("9" * 40)
    lock.acquire([path], timeout_s=0.1)
    assert path.read_text() == str(os.getpid())


def test_writer_lock_takes_the_tree_and_the_warehouse_lock(tmp_path):
    db = tmp_path / "elsewhere" / "w.duckdb"
    lock.writer_lock(tmp_path, db, timeout_s=0.1)
    paths = lock.lock_paths(tmp_path, db)
    assert len(paths) == 2 and all(p.read_text() == str(os.getpid()) for p in paths)
    assert set(lock._held) == {str(p) for p in paths}


def test_the_holder_is_unknown_when_its_file_is_empty_or_gone(tmp_path):
    empty = tmp_path / "empty.lock"
    empty.write_text("  \n")
    assert lock._holder(empty) == "unknown"
    assert lock._holder(tmp_path / "missing.lock") == "unknown"


def test_only_a_live_owner_whose_pid_is_in_the_file_owns_the_lock(tmp_path, monkeypatch):
    path = tmp_path / "o.lock"
    path.write_text(str(os.getpid()))
    monkeypatch.setenv(lock.OWNER_ENV, str(os.getpid()))
    assert lock._owned_by_ancestor(path)
    monkeypatch.setenv(lock.OWNER_ENV, "1")          # a live pid, but not the file's
    assert not lock._owned_by_ancestor(path)
    monkeypatch.setenv(lock.OWNER_ENV, "not-a-pid")   # garbage owns nothing, and does not crash
    assert not lock._owned_by_ancestor(path)


def test_alive_asks_without_disturbing_the_process_and_a_gone_one_is_dead():
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        assert lock._alive(sleeper.pid)
        time.sleep(0.2)
        assert sleeper.poll() is None                 # signal 0 only: no SIGHUP, still running
    finally:
        sleeper.send_signal(signal.SIGKILL)
        sleeper.wait()
    assert not lock._alive(sleeper.pid)               # reaped: no such process


def test_writer_lock_waits_as_long_as_it_is_told(held, clock):
    path, _ = held
    tree = path.parent                      # the held file stands in for the tree's lock
    path.rename(tree / ".interconnect-build.lock")
    with pytest.raises(lock.BuildLockedError, match="gave up after waiting 0 s"):
        lock.writer_lock(tree, tree / "w.duckdb", timeout_s=0.2)
    assert clock["sleeps"] == [0.1, 0.1]
