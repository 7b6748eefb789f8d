"""Helpers of the scale-out tests (tests/orchestration/test_scale_out*.py): a small tree of three
campaigns, the environment and command of ``python -m pipeline.commands.scale_out``, a Redis
broker on a loopback port and Celery workers started as the Scaling out page starts them."""
from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from support.paths import REPO

# three small campaigns of three kinds: a deployment, a tc campaign, a lab capture
CAMPAIGNS = ("deployments/lab-veth-tbf", "deployments/lab-rpc-veth", "p2p/aws-p3-tc")


def tree_of(dest: Path) -> Path:
    for name in ("reference", *CAMPAIGNS):
        shutil.copytree(REPO / "raw_data" / name, dest / "raw_data" / name)
    shutil.copytree(REPO / "sql", dest / "sql")       # the campaign models build too
    (dest / ".dagster_home").mkdir()
    # the project's instance settings, as make dev and make docs copy them (its storage too:
    # the steps' processes and workers write one instance's databases at once)
    shutil.copy(REPO / "config" / "dagster.yaml", dest / ".dagster_home" / "dagster.yaml")
    return dest


def scale_env(root: Path, **extra) -> dict:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("INTERCONNECT_") and k != "DAGSTER_HOME"}
    env.update({"INTERCONNECT_ROOT": str(root), "DAGSTER_HOME": str(root / ".dagster_home"),
                "INTERCONNECT_PARSE_THREADS": "1", **extra})
    return env


def ingest(root: Path, **extra) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pipeline.commands.scale_out"], cwd=REPO,
                          env=scale_env(root, **extra), capture_output=True, text=True, timeout=600)


def need(tool: str) -> str:
    path = shutil.which(tool)
    if path:
        return path
    reason = f"{tool} is not installed (make tools installs it as root)"
    if os.environ.get("CI") == "true":
        pytest.fail(f"scale-out test cannot run under CI=true: {reason}")
    pytest.skip(reason)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def redis_broker(tmp_path: Path):
    """redis-server on a free loopback port, stopped on leaving."""
    server = need("redis-server")
    port = free_port()
    proc = subprocess.Popen([server, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                             "--appendonly", "no", "--dir", str(tmp_path)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 20
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                pytest.fail(f"redis-server did not start on port {port}")
            time.sleep(0.1)
    yield f"redis://127.0.0.1:{port}/0"
    proc.terminate()
    proc.wait(10)


def start_workers(root: Path, broker: str, count: int) -> list[subprocess.Popen]:
    """``count`` Celery workers, one process each (solo pool), as the Scaling out page starts
    them: ``dagster-celery worker start`` with the broker in its config file."""
    # the instance's storage first: two workers creating it at once race on its schema
    subprocess.run([sys.executable, "-c", "from dagster import DagsterInstance; "
                    "DagsterInstance.get().get_run_records(limit=1)"],
                   env=scale_env(root), check=True, capture_output=True, text=True)
    config = root / "celery.yaml"
    config.write_text(f"execution:\n  config:\n    broker: {broker}\n    backend: {broker}\n")
    dagster_celery = str(Path(sys.executable).with_name("dagster-celery"))
    env = scale_env(root, INTERCONNECT_EXECUTOR="celery", INTERCONNECT_CELERY_BROKER=broker)
    # dagster-celery starts the `celery` command of this environment
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return [subprocess.Popen([dagster_celery, "worker", "start", "-A", "dagster_celery.app",
                              "-y", str(config), "-n", f"w{k}", "-l", "WARNING", "--",
                              "-P", "solo"], cwd=REPO, env=env, start_new_session=True,
                             stdout=(root / f"w{k}.log").open("wb"), stderr=subprocess.STDOUT)
            for k in range(count)]


def stop_workers(workers: list[subprocess.Popen]) -> None:
    """Each worker's whole process group (dagster-celery runs `celery` as its child)."""
    for w in workers:
        try:
            os.killpg(w.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    for w in workers:
        try:
            w.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(w.pid, signal.SIGKILL)
            w.wait()


def wait_for_workers(broker: str, names: set[str], timeout_s: float = 120) -> None:
    """Until every worker in ``names`` answers a ping (each takes seconds to start)."""
    from celery import Celery
    app = Celery(broker=broker, backend=broker)
    deadline = time.monotonic() + timeout_s
    while True:
        answered = {name.split("@")[0] for reply in app.control.ping(timeout=1) for name in reply}
        if names <= answered:
            return
        if time.monotonic() > deadline:
            pytest.fail(f"Celery workers {sorted(names - answered)} did not start")




def celery_ingest(root: Path, broker: str, workers: int = 2) -> subprocess.CompletedProcess:
    """``python -m pipeline.commands.scale_out`` on ``root`` with the Celery executor, after
    ``workers`` workers named w0, w1, … answer on ``broker``; they are stopped after the run."""
    started = start_workers(root, broker, workers)
    try:
        wait_for_workers(broker, {f"w{k}" for k in range(workers)})
        return ingest(root, INTERCONNECT_EXECUTOR="celery", INTERCONNECT_CELERY_BROKER=broker)
    finally:
        stop_workers(started)


def celery_workers_of_steps(root: Path) -> dict[str, str]:
    """step key -> the Celery worker (``name@host``) that ran it, read through Dagster from the
    instance at ``root/.dagster_home`` (its only run)."""
    from dagster import DagsterEventType, DagsterInstance
    before = os.environ.get("DAGSTER_HOME")
    os.environ["DAGSTER_HOME"] = str(root / ".dagster_home")
    try:
        with DagsterInstance.get() as instance:
            (record,) = instance.get_run_records()
            events = instance.all_logs(record.dagster_run.run_id,
                                       of_type=DagsterEventType.ENGINE_EVENT)
    finally:
        if before is None:
            del os.environ["DAGSTER_HOME"]
        else:
            os.environ["DAGSTER_HOME"] = before
    return {e.step_key: e.dagster_event.engine_event_data.metadata["Celery worker"].value
            for e in events if e.step_key and e.dagster_event
            and "Celery worker" in (e.dagster_event.engine_event_data.metadata or {})}
