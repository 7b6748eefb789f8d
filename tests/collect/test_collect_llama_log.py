"""``python -m pipeline.collect llama-log``: a llama-server that does not run under systemd.

A stand-in server (a Python script printing lines in llama-server's own wording, on stderr as
llama.cpp's common/log.cpp does) is run by the collector; the log it writes is read back by the
``journal`` parser like a journal export.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import yaml

from pipeline.ingest.formats.journal import parse

from paths import REPO

SERVER = r'''
import sys, time
err = sys.stderr
err.write("main: server is listening on http://127.0.0.1:8080 - starting the main loop\n")
err.write("srv  update_slots: all slots are idle\n")
err.flush()
time.sleep(0.3)
err.write("slot launch_slot_: id  0 | task 3 | processing task\n")
err.write("slot print_timing: id  0 | task 3 | \n")
err.write("prompt eval time =     120.50 ms /    64 tokens (    1.88 ms per token,   531.12 tokens per second)\n")
err.write("       eval time =    1000.00 ms /    50 tokens (   20.00 ms per token,    50.00 tokens per second)\n")
err.write("      total time =    1120.50 ms /   114 tokens\n")
err.write("loading model progress 50%\r\n")
err.flush()
if len(sys.argv) > 1:
    time.sleep(float(sys.argv[1]))
'''


def collect(camp: Path, *command: str, **kw) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.Popen([sys.executable, "-m", "pipeline.collect", "llama-log",
                             "--campaign-dir", str(camp), "--host", "head", *kw.pop("extra", ()),
                             "--", *command], env=env, cwd=REPO, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, **kw)


def test_a_server_log_is_kept_with_times_and_read_back(tmp_path):
    server = tmp_path / "llama-server"
    server.write_text(SERVER)
    camp = tmp_path / "deployments" / "outside-systemd"
    before = time.time()
    proc = collect(camp, sys.executable, str(server))
    out, err = proc.communicate(timeout=60)
    after = time.time()
    assert proc.returncode == 0, err
    # journal/<host>-<program>.log, the program being the interpreter that ran the script
    (log,) = (camp / "journal").glob("head-*.log")
    assert log.name == f"head-{Path(sys.executable).name}.log"
    manifest = yaml.safe_load((camp / "manifest.yaml").read_text())
    (entry,) = [f for f in manifest["files"] if f["path"] == log.relative_to(camp).as_posix()]
    assert entry["format"] == "journal" and entry["context"]["exit_code"] == 0
    rows = parse(log)
    # 8 lines printed, each kept once, in order
    assert [r["source_line"] for r in rows] == list(range(1, 9))
    times = [r["realtime_us"] / 1e6 for r in rows]
    assert times == sorted(times) and before <= times[0] and times[-1] <= after
    # the first two lines came before the 0.3 s pause, the task after it
    assert times[2] - times[1] >= 0.25
    by_event = {r["event"]: r for r in rows if r["event"]}
    # the timing block as one call: its unprefixed lines take task 3 from the first line
    assert (by_event["prompt_eval"]["task_id"], by_event["prompt_eval"]["ms"],
            by_event["prompt_eval"]["tokens"]) == (3, 120.5, 64)
    assert (by_event["eval"]["task_id"], by_event["eval"]["tokens"]) == (3, 50)
    # a progress line written with "\r\n" keeps its text without the "\r"
    assert rows[-1]["message"] == "loading model progress 50%"


def test_sigterm_stops_the_server_and_keeps_what_it_printed(tmp_path):
    server = tmp_path / "srv.py"
    server.write_text(SERVER)
    camp = tmp_path / "deployments" / "stopped"
    proc = collect(camp, sys.executable, str(server), "600", extra=("--ready", "listening"))
    assert proc.stdout.readline().strip() == "ready"
    time.sleep(1.0)                       # the task lines come 0.3 s after "listening"
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    (log,) = (camp / "journal").glob("head-*.log")
    rows = parse(log)
    assert len(rows) == 8
    # the server was terminated, not left running: SIGTERM's exit code
    manifest = yaml.safe_load((camp / "manifest.yaml").read_text())
    assert manifest["files"][0]["context"]["exit_code"] == -signal.SIGTERM


def _started_ignoring_sigterm():
    signal.signal(signal.SIGTERM, signal.SIG_IGN)


def test_a_collector_started_ignoring_sigterm_still_stops_its_server(tmp_path):
    # a parent that ignores SIGTERM (a Dagster run left it so in a test worker; a shell's
    # background job) passes that on; the server must not inherit it, or terminate() never
    # stops it and the collector waits for ever
    server = tmp_path / "srv.py"
    server.write_text(SERVER)
    camp = tmp_path / "deployments" / "ignored"
    proc = collect(camp, sys.executable, str(server), "600", extra=("--ready", "listening"),
                   preexec_fn=_started_ignoring_sigterm)
    assert proc.stdout.readline().strip() == "ready"
    time.sleep(1.0)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    manifest = yaml.safe_load((camp / "manifest.yaml").read_text())
    # stopped by SIGTERM (it reached the server with its default action), not by the SIGKILL
    # that would follow a server that ignores it
    assert manifest["files"][0]["context"]["exit_code"] == -signal.SIGTERM


def test_a_server_that_ignores_sigterm_is_killed_after_the_grace_period(tmp_path):
    stubborn = tmp_path / "stubborn.py"
    stubborn.write_text("import signal, sys, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
                        "print('listening', flush=True)\ntime.sleep(600)\n")
    camp = tmp_path / "deployments" / "stubborn"
    proc = collect(camp, sys.executable, str(stubborn), extra=("--ready", "listening"))
    assert proc.stdout.readline().strip() == "ready"
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    manifest = yaml.safe_load((camp / "manifest.yaml").read_text())
    assert manifest["files"][0]["context"]["exit_code"] == -signal.SIGKILL


def test_a_command_that_prints_nothing_writes_nothing(tmp_path):
    camp = tmp_path / "deployments" / "silent"
    proc = collect(camp, sys.executable, "-c", "pass")
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 1
    assert "printed nothing (exit code 0); nothing written" in err
    assert not (camp / "manifest.yaml").exists()
    assert not list(camp.rglob("*.log"))


def test_no_command_is_an_error(tmp_path):
    proc = collect(tmp_path / "deployments" / "x")
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 1 and "give the command to run after --" in err
