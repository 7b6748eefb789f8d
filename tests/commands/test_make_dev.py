"""``make dev`` started in the background by a non-interactive shell (as ``nohup``, a service
manager or ``make dev &`` in a script start it: SIGINT ignored, inherited across exec) stops,
every process with it, when make gets SIGTERM. The wrapper's own signal handling, with a fake
``dg``: tests/commands/test_dev_wrapper.py."""
from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time

import pytest

from pipeline.commands.in_process import copy_tree

from conftest import REPO


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _descendants(pid: int) -> set[int]:
    out = subprocess.run(["ps", "-eo", "pid=,ppid="], capture_output=True, text=True).stdout
    children: dict[int, list[int]] = {}
    for line in out.splitlines():
        p, pp = map(int, line.split())
        children.setdefault(pp, []).append(p)
    found, stack = set(), [pid]
    while stack:
        for c in children.get(stack.pop(), []):
            found.add(c)
            stack.append(c)
    return found


def _alive(pids: set[int]) -> set[int]:
    out = subprocess.run(["ps", "-eo", "pid=,stat="], capture_output=True, text=True).stdout
    running = {int(p) for p, st in (line.split() for line in out.splitlines()) if not st.startswith("Z")}
    return pids & running


def _wait(condition, timeout_s: float, what: str):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.5)
    raise AssertionError(f"timed out waiting for {what}")


def test_sigterm_to_make_stops_dg_dev_and_everything_it_started(tmp_path):
    if shutil.which("make") is None:
        pytest.skip("make not installed")
    root = copy_tree(REPO, tmp_path / "root").root
    home = tmp_path / "home"
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("INTERCONNECT_DB",)}
    env.update(DAGSTER_HOME=str(home), INTERCONNECT_ROOT=str(root))
    log = tmp_path / "dev.log"
    # the shell starts make as a background job and exits: make is nobody's child of ours
    shell = subprocess.run(["sh", "-c", f'make -s dev "DEV_ARGS=-p {port}" >"{log}" 2>&1 & echo $!'],
                           cwd=REPO, env=env, capture_output=True, text=True, timeout=60)
    make = int(shell.stdout)
    try:
        def serving():
            with socket.socket() as s:
                return s.connect_ex(("127.0.0.1", port)) == 0
        _wait(serving, 180, "the webserver")
        started = _descendants(make)
        # the wrapper, dg dev, the webserver, the daemon and code servers
        assert len(started) >= 4, started
        os.kill(make, signal.SIGTERM)                # make only, not its process group
        # a fresh instance: the raw_data sensor has launched a rebuild of the whole tree, and its
        # run process finishes the step it is in before it exits (seen in the full suite with 17
        # campaigns: still building 90 s after the signal, on a loaded machine); what counts is
        # that every process ends, not how fast a loaded machine gets there
        _wait(lambda: not _alive(started | {make}), 300, "every process of make dev to stop")
        assert not serving()
    finally:
        started = locals().get("started", set()) | _descendants(make) | {make}
        for pid in _alive(started):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
