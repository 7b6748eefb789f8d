"""``python -m pipeline.commands.dev [dg dev options]`` (``make dev``): ``dg dev`` that stops when asked.

``dg dev`` shuts its webserver, daemon and code servers down on Ctrl-C, but run from ``make`` in
the background a SIGTERM reaches ``make`` only, which exits and leaves them all running. This
wrapper starts ``dg dev`` in its own process group, passes SIGINT, SIGTERM and SIGHUP on to the
whole group, and asks the kernel to send it SIGTERM when its parent dies (``make`` killed), so
stopping ``make dev`` in any way stops every process it started. A group that has not exited
30 s after the signal is killed.
"""
from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys

GRACE_S = 30
PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


def main(argv: list[str]) -> int:
    parent = os.getppid()
    _die_with_parent()
    if os.getppid() != parent:          # the parent died before prctl took effect
        return 143
    proc = subprocess.Popen(["dg", "dev", *argv], start_new_session=True)
    stopping = {"signal": None}

    def forward(signum, frame):
        stopping["signal"] = signum
        try:
            os.killpg(proc.pid, signal.SIGINT if signum == signal.SIGINT else signal.SIGTERM)
        except ProcessLookupError:
            pass

    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, forward)
    while True:
        try:
            code = proc.wait(timeout=None if stopping["signal"] is None else GRACE_S)
            break
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
    # whatever the group left behind (a code server mid-start) goes with it
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    return 0 if stopping["signal"] is not None else code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
