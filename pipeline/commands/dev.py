"""``python -m pipeline.commands.dev [dg dev options]`` (``make dev``): ``dg dev`` that stops when asked.

``dg dev`` shuts its webserver, daemon and code servers down on Ctrl-C, but run from ``make`` in
the background a SIGTERM reaches ``make`` only, which exits and leaves them all running. This
wrapper starts ``dg dev`` in its own process group, passes SIGINT, SIGTERM and SIGHUP on to the
whole group, and asks the kernel to send it SIGTERM when its parent dies (``make`` killed), so
stopping ``make dev`` in any way stops every process it started. A group that has not exited
``INTERCONNECT_DEV_GRACE_S`` seconds (default 30) after the signal is killed.

Started in the background by a non-interactive shell (``make dev &``, a service manager,
``nohup``), the wrapper inherits SIGINT (and SIGHUP) *ignored*, and an ignored signal stays
ignored across ``exec``: ``dg dev`` and its children would never see Ctrl-C. So ``dg dev`` is
started with SIGINT, SIGTERM, SIGHUP and SIGQUIT back at their defaults. The grace period is
measured by polling, not by one wait that a signal handler would resume.

Some of what ``dg dev`` starts leaves its process group (a run worker, a code server's own
subprocesses in sessions of their own), so a signal to the group misses them, and when their
parent exits they would be re-parented away. The wrapper is their subreaper
(:mod:`pipeline.commands.process_tree`): they stay its descendants, and once ``dg dev`` has
exited every one still running gets SIGTERM, then SIGKILL when the grace period is over.
"""
from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
import time

from pipeline.commands.process_tree import become_subreaper, reap, stop_descendants

GRACE_S = 30
PR_SET_PDEATHSIG = 1
POLL_S = 0.2
RESET = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT)


def _default_signals() -> None:
    """In the child, before exec: whatever the wrapper inherited ignored is default again."""
    for s in RESET:
        signal.signal(s, signal.SIG_DFL)


def grace_s() -> float:
    raw = os.environ.get("INTERCONNECT_DEV_GRACE_S", "")
    try:
        return float(raw) if raw else GRACE_S
    except ValueError:
        raise SystemExit(f"INTERCONNECT_DEV_GRACE_S={raw!r}: not a number of seconds") from None


def _die_with_parent() -> None:
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


def main(argv: list[str]) -> int:
    parent = os.getppid()
    _die_with_parent()
    if os.getppid() != parent:          # the parent died before prctl took effect
        return 143
    grace = grace_s()
    become_subreaper()
    stopping: dict = {"signal": None, "at": None, "proc": None}

    def forward(signum, frame):
        stopping["signal"] = signum
        stopping["at"] = stopping["at"] or time.monotonic()
        if stopping["proc"] is not None:
            try:
                os.killpg(stopping["proc"].pid,
                          signal.SIGINT if signum == signal.SIGINT else signal.SIGTERM)
            except ProcessLookupError:
                pass

    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, forward)
    try:
        proc = subprocess.Popen(["dg", "dev", *argv], start_new_session=True,
                                preexec_fn=_default_signals)
    except FileNotFoundError:
        print("dg not found on PATH: `make dev` puts .venv/bin on PATH (`make install` installs "
              "dagster-dg-cli there)", file=sys.stderr)
        return 127
    stopping["proc"] = proc
    if stopping["signal"] is not None:          # a signal came while it was starting
        forward(stopping["signal"], None)
    while (code := proc.poll()) is None:
        if stopping["at"] is not None and time.monotonic() - stopping["at"] >= grace:
            os.killpg(proc.pid, signal.SIGKILL)
            code = proc.wait()
            break
        reap(keep=proc.pid)
        time.sleep(POLL_S)
    # whatever the group left behind (a code server mid-start) goes with it
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    # and what left the group: SIGTERM, then SIGKILL once the grace period (from the signal) is over
    left = grace if stopping["at"] is None else max(0.0, grace - (time.monotonic() - stopping["at"]))
    stop_descendants(left)
    return 0 if stopping["signal"] is not None else code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
