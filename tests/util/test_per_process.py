"""One DuckDB database per process, across fork (pipeline/util/per_process.py). Each child reports
by its exit status only; a child that dies of a signal has a negative exit code."""
from __future__ import annotations

import os
import signal

from pipeline.util.per_process import PerProcess

BUSY = "select sum(range) from range(5000000)"   # enough work to start the database's threads


def _in_child(body) -> int:
    pid = os.fork()
    if pid == 0:
        try:
            signal.alarm(20)                        # a deadlocked child dies of SIGALRM
            os._exit(body())
        except BaseException:  # noqa: BLE001 - any failure is the child's exit status
            os._exit(4)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


def test_a_child_opens_its_own_database_and_keeps_the_inherited_one():
    holder = PerProcess()
    parent = holder.get()
    assert parent.execute(BUSY).fetchall() == [(sum(range(5000000)),)]
    del parent                                       # only the holder refers to it now

    def child() -> int:
        db = holder.get()
        ok = db.execute(BUSY).fetchall() == [(12499997500000,)]    # sum of 0..4,999,999
        return 0 if ok and len(holder.inherited) == 1 and holder.get() is db else 3

    # dropping the inherited database in the child kills it (SIGSEGV): this child must live
    assert _in_child(child) == 0
    assert holder.inherited == []                    # the parent's own database was never set aside


def test_the_same_process_gets_the_same_database():
    holder = PerProcess()
    assert holder.get() is holder.get()


def test_a_lock_held_at_the_fork_does_not_hold_up_the_child():
    holder = PerProcess()
    holder.get()
    with holder._lock:                               # another thread of the parent is inside get()
        code = _in_child(lambda: 0 if holder.get().execute("select 1").fetchall() == [(1,)] else 3)
    assert code == 0
