"""Collectors' failure modes: one clear line, non-zero exit, nothing half-written.

Each case runs ``python -m pipeline.collect`` as a user would and then checks
the campaign folder: no new data file, no (changed) manifest, no temp file.
"""
from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from paths import REPO

IN_CI = os.environ.get("CI") == "true"


def collect(*args, path_env: str | None = None, **kw) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    if path_env is not None:
        env["PATH"] = path_env
    return subprocess.run([sys.executable, "-m", "pipeline.collect", *map(str, args)],
                          capture_output=True, text=True, env=env, cwd=REPO, **kw)


def need(tool: str) -> None:
    if shutil.which(tool) is None:
        if IN_CI:
            pytest.fail(f"{tool} missing under CI=true (scripts/install_lab_tools.sh)")
        pytest.skip(f"{tool} not installed (scripts/install_lab_tools.sh)")


def all_files(folder: Path) -> list[str]:
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()) \
        if folder.exists() else []


def one_error_line(r: subprocess.CompletedProcess, *needles: str) -> None:
    assert r.returncode == 1, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    for needle in needles:
        assert needle in lines[0], lines[0]


PEER = ["--peer", "srv"]
CASES = {
    "iperf3": ["iperf3", *PEER, "--server", "127.0.0.1", "-t", "1"],
    "ping": ["ping", *PEER, "--target", "127.0.0.1", "-c", "1"],
    "ethtool": ["ethtool", "--iface", "lo"],
    "journalctl": ["journal", "--unit", "x.service", "--since", "2020-01-01", "--until", "2020-01-02"],
}


@pytest.mark.parametrize("tool", sorted(CASES))
def test_missing_binary_writes_nothing(tmp_path, tool):
    empty_bin = tmp_path / "bin"
    empty_bin.mkdir()
    camp = tmp_path / "deployments" / "c1"
    r = collect(*CASES[tool], "--campaign-dir", camp, "--host", "me", path_env=str(empty_bin))
    one_error_line(r, f"{tool}: not found on PATH", "install")
    assert all_files(tmp_path / "deployments") == []


def test_bad_interface_writes_nothing(tmp_path):
    need("ethtool")
    camp = tmp_path / "c1"
    r = collect("ethtool", "--campaign-dir", camp, "--host", "me", "--iface", "lo",
                "--iface", "nosuch9z")
    one_error_line(r, "no such interface 'nosuch9z'")
    assert all_files(camp) == []      # lo exists, but its file is not written either


def _closed_port() -> int:
    # A port that was free a moment ago on loopback: nothing listens there.
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_refused_server_writes_nothing_and_keeps_old_manifest(tmp_path):
    need("iperf3")
    camp = tmp_path / "c1"
    ok = collect("netdev", "--campaign-dir", camp, "--host", "me", "--duration", "0")
    assert ok.returncode == 0, ok.stderr
    before = (camp / "manifest.yaml").read_bytes()
    r = collect("iperf3", "--campaign-dir", camp, "--host", "me", "--peer", "srv",
                "--server", "127.0.0.1", "--port", _closed_port(), "-t", "1")
    one_error_line(r, "iperf3:", "Connection refused")
    assert all_files(camp) == ["manifest.yaml", "netdev/me.netdev"]
    assert (camp / "manifest.yaml").read_bytes() == before


def _start_sampler(camp: Path) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen([sys.executable, "-m", "pipeline.collect", "netdev", "--campaign-dir",
                             str(camp), "--host", "me", "--rate", "50"],
                            cwd=REPO, env=env, stderr=subprocess.PIPE, text=True)
    assert "sampling" in proc.stderr.readline()     # blocks until the first sample is taken
    return proc


def test_killed_netdev_run_leaves_no_file(tmp_path):
    camp = tmp_path / "c1"
    camp.mkdir()
    proc = _start_sampler(camp)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    # The body was an unnamed temp file: nothing at all is left, not even a dot file.
    assert all_files(camp) == []


def test_sigterm_ends_netdev_run_with_a_complete_capture(tmp_path):
    camp = tmp_path / "c1"
    proc = _start_sampler(camp)
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=30)
    assert proc.returncode == 0
    text = (camp / "netdev/me.netdev").read_text()
    head = dict(kv.split("=", 1) for line in text.splitlines() if line.startswith("# ")
                for kv in line[2:].split() if "=" in kv)
    # The header's sample count is the number of '@' records: the file is whole.
    assert int(head["samples"]) == text.count("\n@ ") + text.startswith("@ ")
    assert int(head["samples"]) >= 1
    assert text.rstrip().endswith("0")     # last line of /proc/net/dev, not a cut line
    doc = yaml.safe_load((camp / "manifest.yaml").read_text())
    assert [f["path"] for f in doc["files"]] == ["netdev/me.netdev"]


def test_reconstructed_campaign_is_refused(tmp_path):
    camp = tmp_path / "c1"
    camp.mkdir()
    (camp / "manifest.yaml").write_text("campaign: c1\nprovenance: reconstructed\nfiles: []\n")
    r = collect("netdev", "--campaign-dir", camp, "--host", "me", "--duration", "0")
    one_error_line(r, "reconstructed")
    assert all_files(camp) == ["manifest.yaml"]


def test_journal_window_without_entries_is_an_error(tmp_path):
    fake = tmp_path / "bin"
    fake.mkdir()
    # A journalctl that knows its version but finds no entries (what the real
    # one prints with -o json for an empty window: nothing).
    (fake / "journalctl").write_text("#!/bin/sh\n[ \"$1\" = --version ] && echo 'systemd 252'\nexit 0\n")
    (fake / "journalctl").chmod(0o755)
    camp = tmp_path / "c1"
    r = collect(*CASES["journalctl"], "--campaign-dir", camp, "--host", "me",
                path_env=f"{fake}{os.pathsep}{os.environ['PATH']}")
    one_error_line(r, "no entries for unit x.service")
    assert all_files(camp) == []


def test_bad_options_exit_2_without_writing(tmp_path):
    camp = tmp_path / "c1"
    r = collect("netdev", "--campaign-dir", camp, "--host", "bad/name", "--duration", "0")
    assert r.returncode == 2 and "bad/name" in r.stderr
    r = collect("netdev", "--campaign-dir", camp, "--host", "me", "--rate", "0")
    one_error_line(r, "--rate 0")
    assert all_files(camp) == []


# A stand-in for iperf3 (the real one is driven in the namespace labs): it counts its runs in
# a file and answers each one as the test says, with iperf3's own JSON shapes.
FAKE_IPERF3 = """#!{python}
import json, pathlib, sys
if sys.argv[1:] == ["--version"]:
    print("iperf 3.12 (cJSON 1.7.15)"); sys.exit(0)
state = pathlib.Path({state!r})
runs = state.read_text().splitlines() if state.exists() else []
direction = "receive" if "-R" in sys.argv else "send"
runs.append(direction)
state.write_text("\\n".join(runs) + "\\n")
answer = {answers!r}[direction][min(runs.count(direction), len({answers!r}[direction])) - 1]
if answer == "ok":
    print(json.dumps({{"start": {{}}, "intervals": [{{"sum": {{}}}}],
                      "end": {{"sum_received": {{"bits_per_second": 9.4e8}}}}}}))
    sys.exit(0)
measured, error = answer
print(json.dumps({{"start": {{}}, "intervals": [{{"sum": {{}}}}] if measured else [], "end": {{}},
                  "error": error}}))
sys.exit(1)
"""


def _fake_iperf3(tmp_path: Path, answers: dict) -> tuple[str, Path]:
    bin_dir, state = tmp_path / "bin", tmp_path / "runs.txt"
    bin_dir.mkdir()
    fake = bin_dir / "iperf3"
    fake.write_text(FAKE_IPERF3.format(python=sys.executable, state=str(state), answers=answers))
    fake.chmod(0o755)
    return f"{bin_dir}{os.pathsep}{os.environ['PATH']}", state


REFUSED = (False, "unable to connect to server: Connection refused")


def _iperf3(camp: Path, path: str, *extra) -> subprocess.CompletedProcess:
    return collect("iperf3", "--campaign-dir", camp, "--host", "me", "--peer", "srv",
                   "--server", "10.0.0.1", "-t", "1", *extra, path_env=path)


def test_a_server_between_two_tests_is_tried_again(tmp_path):
    # the second direction finds the server's port refused twice (it is opening a new
    # listener after the first test), then runs: 1 send run + 3 receive runs, both files
    path, state = _fake_iperf3(tmp_path, {"send": ["ok"], "receive": [REFUSED, REFUSED, "ok"]})
    camp = tmp_path / "c1"
    r = _iperf3(camp, path)
    assert r.returncode == 0, r.stderr
    assert state.read_text().split() == ["send", "receive", "receive", "receive"]
    assert all_files(camp) == ["iperf3/me-to-srv.json", "iperf3/srv-to-me.json", "manifest.yaml"]


def test_a_server_that_keeps_refusing_fails_after_the_wait_and_writes_nothing(tmp_path):
    path, state = _fake_iperf3(tmp_path, {"send": [REFUSED], "receive": ["ok"]})
    camp = tmp_path / "c1"
    r = _iperf3(camp, path, "--connect-wait", "1")
    one_error_line(r, "iperf3:", "Connection refused")
    # tried every 0.25 s while a pause still ends inside the 1 s wait: the first try at 0,
    # then 0.25, 0.5, 0.75, 1.0 at most (fewer when a run itself takes time)
    tries = state.read_text().split()
    assert set(tries) == {"send"} and 2 <= len(tries) <= 5
    assert all_files(tmp_path / "c1") == []


@pytest.mark.parametrize("answer", [
    (True, "unable to receive control message: Connection reset by peer"),   # measured first
    (False, "unable to set TCP_CONGESTION: Supplied congestion control algorithm not supported"),
], ids=["after-intervals", "another-error"])
def test_an_error_that_is_not_a_server_not_ready_is_not_tried_again(tmp_path, answer):
    path, state = _fake_iperf3(tmp_path, {"send": [answer, "ok"], "receive": ["ok"]})
    r = _iperf3(tmp_path / "c1", path)
    one_error_line(r, "iperf3:", answer[1])
    assert state.read_text().split() == ["send"]
    assert all_files(tmp_path / "c1") == []


def test_connect_wait_zero_tries_once(tmp_path):
    path, state = _fake_iperf3(tmp_path, {"send": [REFUSED, "ok"], "receive": ["ok"]})
    r = _iperf3(tmp_path / "c1", path, "--connect-wait", "0")
    one_error_line(r, "iperf3:", "Connection refused")
    assert state.read_text().split() == ["send"]
