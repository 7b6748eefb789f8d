"""What one campaign's ingest step holds (pipeline/util/lock.py, ``ingest_lock``): the build locks
shared and its campaign's lock exclusively, both let go when the step ends. So the steps of a
run ingest different campaigns side by side (in any process), one campaign is never written by
two steps at once, and a build and ingest steps exclude each other. flock locks belong to an
open file, so two holds in this one process conflict as two processes' would."""
from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from pipeline.util import lock
from pipeline.util.lock import BuildLockedError, ingest_lock, lock_paths

from paths import REPO

HOLD_BUILD = ("import sys, time\nfrom pathlib import Path\nfrom pipeline.util import lock\n"
              "lock.writer_lock(Path(sys.argv[1]), Path(sys.argv[2]), timeout_s=5)\n"
              "print('held', flush=True)\ntime.sleep(60)\n")


pytestmark = pytest.mark.usefixtures("fresh_locks")


def _tree(tmp_path: Path):
    root = tmp_path / "tree"
    root.mkdir()
    return root, root / ".warehouse" / "w.duckdb"


def _is_locked(path: Path, mode: int) -> bool:
    """Whether ``mode`` (LOCK_SH or LOCK_EX) on ``path`` would have to wait now."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, mode | fcntl.LOCK_NB)
        return False
    except BlockingIOError:
        return True
    finally:
        os.close(fd)


def test_two_campaigns_ingest_side_by_side_and_let_go_when_done(tmp_path):
    root, db = _tree(tmp_path)
    tree_lock = lock_paths(root, db)[0]            # the tree's (the warehouse has its own too)
    with ingest_lock(root, db, tmp_path / "a.lock", timeout_s=1):
        # another campaign's step gets in at once: the build lock is only shared
        with ingest_lock(root, db, tmp_path / "b.lock", timeout_s=1):
            assert _is_locked(tree_lock, fcntl.LOCK_EX)        # a build would wait
            assert not _is_locked(tree_lock, fcntl.LOCK_SH)    # another ingest would not
            assert _is_locked(tmp_path / "a.lock", fcntl.LOCK_SH)
    # both let go
    assert not _is_locked(tree_lock, fcntl.LOCK_EX)
    assert not _is_locked(tmp_path / "a.lock", fcntl.LOCK_EX)
    assert not _is_locked(tmp_path / "b.lock", fcntl.LOCK_EX)


def test_one_campaign_is_never_written_by_two_steps_at_once(tmp_path):
    root, db = _tree(tmp_path)
    campaign = tmp_path / "c.lock"
    with ingest_lock(root, db, campaign, timeout_s=1):
        with pytest.raises(BuildLockedError) as exc:
            with ingest_lock(root, db, campaign, timeout_s=0.3):
                pass
    assert f"holds {campaign}" in str(exc.value)
    assert "gave up after waiting 0 s; nothing was written" in str(exc.value)


def test_the_second_step_of_a_campaign_goes_on_once_the_first_is_done(tmp_path):
    root, db = _tree(tmp_path)
    campaign = tmp_path / "c.lock"
    order = []
    first_in = threading.Event()

    def first():
        with ingest_lock(root, db, campaign, timeout_s=5):
            order.append("first in")
            first_in.set()
            threading.Event().wait(0.5)
            order.append("first out")

    t = threading.Thread(target=first)
    t.start()
    first_in.wait(5)
    with ingest_lock(root, db, campaign, timeout_s=5):
        order.append("second in")
    t.join()
    assert order == ["first in", "first out", "second in"]


def test_a_running_build_keeps_ingest_steps_out_and_names_itself(tmp_path):
    root, db = _tree(tmp_path)
    proc = subprocess.Popen([sys.executable, "-c", HOLD_BUILD, str(root), str(db)],
                            stdout=subprocess.PIPE, text=True, cwd=REPO)
    try:
        assert proc.stdout.readline().strip() == "held"
        with pytest.raises(BuildLockedError) as exc:
            with ingest_lock(root, db, tmp_path / "c.lock", timeout_s=0.3):
                pass
        assert f"another build (pid {proc.pid}) holds" in str(exc.value)
    finally:
        proc.kill()
        proc.wait()


def test_an_ingest_step_keeps_a_build_out(tmp_path):
    root, db = _tree(tmp_path)
    with ingest_lock(root, db, tmp_path / "c.lock", timeout_s=1):
        build = subprocess.run([sys.executable, "-c",
                                "import sys\nfrom pathlib import Path\nfrom pipeline.util import lock\n"
                                "lock.writer_lock(Path(sys.argv[1]), Path(sys.argv[2]), timeout_s=0.3)\n",
                                str(root), str(db)], capture_output=True, text=True, cwd=REPO)
    assert build.returncode != 0 and "BuildLockedError" in build.stderr


def test_a_build_ingests_under_its_own_lock_without_waiting(tmp_path, monkeypatch):
    root, db = _tree(tmp_path)
    lock.writer_lock(root, db, timeout_s=1)            # this process is the build
    with ingest_lock(root, db, tmp_path / "c.lock", timeout_s=0.3):
        assert _is_locked(tmp_path / "c.lock", fcntl.LOCK_SH)   # the campaign's own lock is taken
    # a step in a child process of the build (the multiprocess executor) does not wait either
    monkeypatch.setenv(lock.OWNER_ENV, str(os.getpid()))
    child = subprocess.run([sys.executable, "-c",
                            "import sys\nfrom pathlib import Path\nfrom pipeline.util.lock import ingest_lock\n"
                            "with ingest_lock(Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3]), timeout_s=0.3):\n"
                            "    print('in')\n", str(root), str(db), str(tmp_path / "c.lock")],
                           capture_output=True, text=True, cwd=REPO)
    assert child.stdout.strip() == "in", child.stderr
