"""A Dagster run in this process leaves SIGINT and SIGTERM as it found them
(pipeline/util/signals.py). Dagster's in-process execution restores SIGTERM to the handler SIGINT
had; where SIGINT is ignored (a pytest-xdist worker, a background job) SIGTERM ended up ignored,
and every server started afterwards inherited that and could not be stopped with SIGTERM."""
from __future__ import annotations

import signal
import subprocess
import sys

import pytest
from dagster import job, op

from pipeline.util.signals import kept_signals


@op
def _one():
    return 1


@job
def _tiny():
    _one()


@pytest.fixture()
def sigint_ignored():
    saved = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    yield
    for s, h in saved.items():
        signal.signal(s, h)


def _child_sigterm() -> str:
    """A new process's SIGTERM disposition: 0 default, 1 ignored (inherited from this one)."""
    return subprocess.run([sys.executable, "-c",
                           "import signal; print(int(signal.getsignal(signal.SIGTERM)))"],
                          capture_output=True, text=True, check=True).stdout.strip()


def test_a_dagster_run_inside_keeps_sigterm_default_for_the_children_started_after(sigint_ignored):
    with kept_signals():
        assert _tiny.execute_in_process().success
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
    assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    assert _child_sigterm() == "0"


def test_without_it_dagster_leaves_sigterm_ignored(sigint_ignored):
    # the behaviour kept_signals guards against (dagster 1.x capture_interrupts); when Dagster
    # stops doing this, this test says so and kept_signals can go
    assert _tiny.execute_in_process().success
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_IGN and _child_sigterm() == "1"


def test_whatever_the_body_sets_is_put_back(sigint_ignored):
    def mine(signo, frame):
        pass
    signal.signal(signal.SIGTERM, mine)
    with kept_signals():
        signal.signal(signal.SIGTERM, signal.getsignal(signal.SIGINT))   # what Dagster does
    assert signal.getsignal(signal.SIGTERM) is mine
    with pytest.raises(RuntimeError), kept_signals():
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        raise RuntimeError("the body failed")
    assert signal.getsignal(signal.SIGTERM) is mine
