"""A SIGKILLed build never blocks later runs: with ``max_concurrent_runs: 1`` its run would stay
STARTED and queue everything behind it. Here a build recorded in a Dagster instance is killed,
then the real daemon starts; the raw_data sensor fails the dead run (pipeline/orchestration/stale_runs.py)
and its own run launches and finishes."""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from unittest import mock

import pytest
from dagster import DagsterInstance, DagsterRunStatus, RunsFilter

from pipeline.commands.in_process import copy_tree
from pipeline.project import CAMPAIGN_AREAS

from conftest import REPO

BIN = Path(sys.executable).parent


def _instance(home: Path) -> DagsterInstance:
    # the project's storage is DAGSTER_HOME/storage (pipeline/orchestration/run_storage.py)
    with mock.patch.dict(os.environ, {"DAGSTER_HOME": str(home)}):
        return DagsterInstance.from_config(str(home))


def _runs(home: Path):
    with _instance(home) as inst:
        return [(r.dagster_run.run_id, r.dagster_run.status, dict(r.dagster_run.tags))
                for r in inst.get_run_records(RunsFilter())]


def _wait(condition, timeout_s: float, what: str):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        found = condition()
        if found:
            return found
        time.sleep(0.5)
    raise AssertionError(f"timed out waiting for {what}")


@pytest.fixture
def tree(tmp_path):
    root = tmp_path / "root"
    copy_tree(REPO, root)
    for area in CAMPAIGN_AREAS:      # one small campaign: a fast build
        for folder in (root / "raw_data" / area).iterdir():
            if folder.is_dir() and folder.name != "lab-veth-tbf":
                shutil.rmtree(folder)
    home = tmp_path / "home"
    home.mkdir()
    shutil.copy(REPO / "config" / "dagster.yaml", home / "dagster.yaml")
    # create the instance's SQLite storage (and run its migrations) once, before the build and
    # this test's polling both open it: two processes creating it at the same moment can leave
    # two alembic heads (Dagster then refuses the storage)
    _instance(home).dispose()
    return root, home


def test_a_killed_build_does_not_block_the_sensor(tree, tmp_path):
    root, home = tree
    env = {k: v for k, v in os.environ.items()
           if k not in ("INTERCONNECT_DB", "INTERCONNECT_PUBLISH_DIR", "INTERCONNECT_FAULT")}
    env.update(DAGSTER_HOME=str(home), INTERCONNECT_ROOT=str(root),
               INTERCONNECT_SENSOR_INTERVAL="5", INTERCONNECT_SENSOR_SETTLE="0")
    # its own process group, killed whole: a step's compute-log capture runs `tail -F` as a
    # child, which would otherwise outlive the build holding its output open (a test that waits
    # for that output to end then hangs)
    with (tmp_path / "build.log").open("wb") as sink:
        build = subprocess.Popen([sys.executable, "-m", "pipeline.commands.build", "--no-site"],
                                 cwd=REPO, env=env, stdout=sink, stderr=subprocess.STDOUT,
                                 start_new_session=True)
    run_id = _wait(lambda: next((r for r, s, _ in _runs(home) if s == DagsterRunStatus.STARTED), None),
                   120, "the build's run to start")
    os.killpg(build.pid, signal.SIGKILL)
    build.wait(timeout=60)
    assert dict((r, s) for r, s, _ in _runs(home))[run_id] == DagsterRunStatus.STARTED  # stuck

    workspace = tmp_path / "workspace.yaml"
    workspace.write_text(f"load_from:\n  - python_module:\n      module_name: pipeline.definitions\n"
                         f"      working_directory: {REPO}\n")
    # the daemon's log goes to a file: a pipe nobody reads fills up and blocks the daemon
    log = tmp_path / "daemon.log"
    with log.open("wb") as sink:
        daemon = subprocess.Popen([str(BIN / "dagster-daemon"), "run", "-w", str(workspace)],
                                  cwd=REPO, env=env, stdout=sink, stderr=subprocess.STDOUT,
                                  start_new_session=True)
    try:
        def sensor_run_done():
            runs = _runs(home)
            done = [r for r, s, tags in runs if tags.get("dagster/sensor_name") == "raw_data_changed"
                    and s in (DagsterRunStatus.SUCCESS, DagsterRunStatus.FAILURE)]
            return done and runs
        try:
            runs = _wait(sensor_run_done, 300, "the sensor's run to finish")
        except AssertionError as exc:
            raise AssertionError(f"{exc}; daemon log tail:\n{log.read_text()[-4000:]}") from None
    finally:
        os.killpg(daemon.pid, signal.SIGTERM)
        try:
            daemon.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(daemon.pid, signal.SIGKILL)
    status = {r: s for r, s, _ in runs}
    assert status[run_id] == DagsterRunStatus.FAILURE          # the dead run was failed ...
    sensor_runs = [r for r, s, tags in runs if tags.get("dagster/sensor_name") == "raw_data_changed"]
    assert [status[r] for r in sensor_runs] == [DagsterRunStatus.SUCCESS]   # ... and did not block
    with _instance(home) as inst:
        failure = [e for e in inst.all_logs(run_id) if e.dagster_event and
                   e.dagster_event.event_type_value == "PIPELINE_FAILURE"]
    assert failure and "no longer exists" in failure[-1].dagster_event.message
