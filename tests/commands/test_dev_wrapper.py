"""``make dev``'s wrapper (pipeline/commands/dev.py) stops ``dg dev`` however it was started.

A fake ``dg`` on PATH records which signals it inherited ignored and sleeps; the wrapper is
started with SIGINT, SIGTERM and SIGHUP ignored, as a non-interactive shell's background job, a
service manager or ``nohup`` leave them (an ignored signal stays ignored across exec). The real
``dg dev`` under ``make``, started from a background shell: tests/commands/test_make_dev.py.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from paths import REPO

FAKE_DG = """#!{python}
import os, signal, subprocess, sys, time
if os.environ.get("FAKE_DG_ESCAPEE"):        # a process that leaves dg dev's group and session
    child = subprocess.Popen([sys.executable, "-c", "import signal, time; "
                              "signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(600)"],
                             start_new_session=True)
    with open(os.environ["FAKE_DG_ESCAPEE"], "w") as fh:
        fh.write(str(child.pid))
status = open("/proc/self/status").read().splitlines()
ignored = int(next(l for l in status if l.startswith("SigIgn:")).split()[1], 16)
with open(os.environ["FAKE_DG_OUT"] + ".tmp", "w") as fh:
    fh.write(f"{{os.getpid()}} {{ignored}}")
os.replace(os.environ["FAKE_DG_OUT"] + ".tmp", os.environ["FAKE_DG_OUT"])
if os.environ.get("FAKE_DG_STUBBORN"):       # a dg dev that will not stop when asked
    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, signal.SIG_IGN)
time.sleep(600)
"""


def _ignore_like_a_background_job():
    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, signal.SIG_IGN)


def _start(tmp_path, **extra):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    dg = bin_dir / "dg"
    dg.write_text(FAKE_DG.format(python=sys.executable))
    dg.chmod(0o755)
    out = tmp_path / "dg.out"
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "FAKE_DG_OUT": str(out),
           **extra}
    wrapper = subprocess.Popen([sys.executable, "-m", "pipeline.commands.dev", "-p", "0"],
                               cwd=REPO, env=env, preexec_fn=_ignore_like_a_background_job)
    deadline = time.monotonic() + 60
    while not out.exists():
        assert wrapper.poll() is None and time.monotonic() < deadline, "the fake dg never started"
        time.sleep(0.05)
    pid, ignored = map(int, out.read_text().split())
    return wrapper, pid, ignored


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    with open(f"/proc/{pid}/stat") as fh:
        return fh.read().split(")")[-1].split()[0] == "Z"


def _stop(wrapper, pid):
    if wrapper.poll() is None:
        wrapper.kill()
    if not _gone(pid):
        os.kill(pid, signal.SIGKILL)


def test_dg_dev_gets_default_signals_though_the_wrapper_inherited_them_ignored(tmp_path):
    wrapper, pid, ignored = _start(tmp_path)
    try:
        for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            assert not ignored & (1 << (s - 1)), f"dg dev started with {s.name} ignored"
        wrapper.send_signal(signal.SIGTERM)
        assert wrapper.wait(timeout=60) == 0       # dg dev ended on the forwarded SIGTERM
        assert _gone(pid)
    finally:
        _stop(wrapper, pid)


@pytest.mark.parametrize("first", [signal.SIGTERM, signal.SIGINT])
def test_a_dg_dev_that_ignores_the_signal_is_killed_when_the_grace_period_ends(tmp_path, first):
    # before the fix the wrapper's wait() resumed after the handler with no timeout: it waited
    # for ever, and this wait(timeout=60) failed
    wrapper, pid, _ = _start(tmp_path, FAKE_DG_STUBBORN="1", INTERCONNECT_DEV_GRACE_S="0.5")
    try:
        wrapper.send_signal(first)
        assert wrapper.wait(timeout=60) == 0
        assert _gone(pid)                          # SIGKILLed with its process group
    finally:
        _stop(wrapper, pid)


def test_a_process_that_left_dg_devs_group_is_stopped_too(tmp_path):
    # dg dev's run workers and code servers' subprocesses may sit in sessions of their own: the
    # signal to dg dev's group misses them and, dg dev gone, they were re-parented to init and
    # kept running (a daemon still ticking minutes after make got SIGTERM, in the full suite).
    # The escapee here ignores SIGTERM, so only the SIGKILL after the 0.5 s grace ends it.
    escapee_file = tmp_path / "escapee.pid"
    wrapper, pid, _ = _start(tmp_path, FAKE_DG_ESCAPEE=str(escapee_file),
                             INTERCONNECT_DEV_GRACE_S="0.5")
    escapee = int(escapee_file.read_text())
    try:
        assert os.getsid(escapee) != os.getsid(pid)   # not in dg dev's session or group
        wrapper.send_signal(signal.SIGTERM)
        assert wrapper.wait(timeout=60) == 0
        assert _gone(pid) and _gone(escapee)
    finally:
        _stop(wrapper, pid)
        if not _gone(escapee):
            os.kill(escapee, signal.SIGKILL)


def test_a_grace_period_that_is_not_a_number_is_refused_by_name(tmp_path):
    done = subprocess.run([sys.executable, "-m", "pipeline.commands.dev"], cwd=REPO,
                          env={**os.environ, "INTERCONNECT_DEV_GRACE_S": "soon"},
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert "INTERCONNECT_DEV_GRACE_S='soon': not a number of seconds" in done.stderr
