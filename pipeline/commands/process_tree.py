"""Every process a command started, found and stopped even when it left the command's process group.

``dg dev``'s daemon launches run workers, and code servers start their own subprocesses, some in
sessions of their own: a signal to ``dg dev``'s process group does not reach them, and when their
parent exits they are re-parented away from us. A *child subreaper* (Linux ``prctl``) gets its
orphaned descendants re-parented to itself instead, so they stay findable as its descendants in
``/proc``; :func:`stop_descendants` sends them SIGTERM, waits, then sends SIGKILL, and reaps them.
"""
from __future__ import annotations

import ctypes
import os
import signal
import sys
import time

PR_SET_CHILD_SUBREAPER = 36
POLL_S = 0.2


def become_subreaper() -> bool:
    """Make this process its descendants' subreaper; False where the kernel has no such thing."""
    if not sys.platform.startswith("linux"):
        return False
    libc = ctypes.CDLL(None, use_errno=True)
    return libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0


def _parents() -> dict[int, tuple[int, str]]:
    """pid -> (parent pid, state letter) of every process /proc lists now."""
    out: dict[int, tuple[int, str]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read().decode("ascii", "replace")
        except OSError:
            continue                                   # gone meanwhile
        # "pid (comm) state ppid ...": comm may hold spaces and brackets, so split after the last ')'
        fields = stat[stat.rfind(")") + 2:].split()
        out[int(name)] = (int(fields[1]), fields[0])
    return out


def descendants(pid: int | None = None) -> dict[int, str]:
    """The descendants of ``pid`` (default: this process) with their state letters."""
    root = os.getpid() if pid is None else pid
    table = _parents()
    children: dict[int, list[int]] = {}
    for p, (pp, _) in table.items():
        children.setdefault(pp, []).append(p)
    found: dict[int, str] = {}
    stack = [root]
    while stack:
        for c in children.get(stack.pop(), []):
            if c not in found:
                found[c] = table[c][1]
                stack.append(c)
    return found


def reap(keep: int | None = None) -> None:
    """Collect this process's exited children (zombies), leaving ``keep``'s status to its owner."""
    for p, state in descendants().items():
        if state == "Z" and p != keep:
            try:
                os.waitpid(p, os.WNOHANG)
            except ChildProcessError:
                pass


def stop_descendants(grace_s: float, keep: int | None = None) -> int:
    """SIGTERM every live descendant, SIGKILL what is left after ``grace_s`` seconds, reap them.
    Returns how many were still running when asked."""
    live = {p for p, s in descendants().items() if s != "Z"}
    for p in live:
        try:
            os.kill(p, signal.SIGTERM)
        except ProcessLookupError:
            pass
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline and any(s != "Z" for s in descendants().values()):
        reap(keep)
        time.sleep(POLL_S)
    for p, s in descendants().items():
        if s != "Z":
            try:
                os.kill(p, signal.SIGKILL)
            except ProcessLookupError:
                pass
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and descendants():
        reap(keep)
        if keep is not None and set(descendants()) <= {keep}:
            break
        time.sleep(POLL_S)
    return len(live)
