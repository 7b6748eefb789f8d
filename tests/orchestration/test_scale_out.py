"""The raw layer scales out (pipeline/orchestration/scale_out.py): the same partitioned job, ``ingest_campaigns``,
run with dagster-celery's executor, a local Redis broker on a loopback port and two Celery worker
processes, leaves exactly the raw layer that the in-process executor leaves, every campaign's
step having run in a worker. Also: each campaign is its own step, and an unknown executor or a
missing broker is refused with what to set."""
from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pipeline.orchestration.raw_digest import raw_digest
from pipeline.project import Project

from conftest import REPO

# three small campaigns of three kinds: a deployment, a tc campaign, a lab capture
CAMPAIGNS = ("deployments/lab-veth-tbf", "deployments/lab-rpc-veth", "p2p/aws-p3-tc")


def _tree(dest: Path) -> Path:
    for name in ("reference", *CAMPAIGNS):
        shutil.copytree(REPO / "raw_data" / name, dest / "raw_data" / name)
    (dest / ".dagster_home").mkdir()
    # the project's instance settings, as make dev and make docs copy them (its storage too:
    # the steps' processes and workers write one instance's databases at once)
    shutil.copy(REPO / "config" / "dagster.yaml", dest / ".dagster_home" / "dagster.yaml")
    return dest


def _env(root: Path, **extra) -> dict:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("INTERCONNECT_") and k != "DAGSTER_HOME"}
    env.update({"INTERCONNECT_ROOT": str(root), "DAGSTER_HOME": str(root / ".dagster_home"),
                "INTERCONNECT_PARSE_THREADS": "1", **extra})
    return env


def _ingest(root: Path, **extra) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pipeline.commands.scale_out"], cwd=REPO,
                          env=_env(root, **extra), capture_output=True, text=True, timeout=600)


def _need(tool: str) -> str:
    path = shutil.which(tool)
    if path:
        return path
    reason = f"{tool} is not installed (make tools installs it as root)"
    if os.environ.get("CI") == "true":
        pytest.fail(f"scale-out test cannot run under CI=true: {reason}")
    pytest.skip(reason)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def broker(tmp_path):
    """redis-server on a free loopback port, stopped after the test."""
    server = _need("redis-server")
    port = _free_port()
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


def _workers(root: Path, broker: str, count: int) -> list[subprocess.Popen]:
    """``count`` Celery workers, one process each (solo pool), as the Scaling out page starts
    them: ``dagster-celery worker start`` with the broker in its config file."""
    # the instance's storage first: two workers creating it at once race on its schema
    subprocess.run([sys.executable, "-c", "from dagster import DagsterInstance; "
                    "DagsterInstance.get().get_run_records(limit=1)"],
                   env=_env(root), check=True, capture_output=True)
    config = root / "celery.yaml"
    config.write_text(f"execution:\n  config:\n    broker: {broker}\n    backend: {broker}\n")
    dagster_celery = str(Path(sys.executable).with_name("dagster-celery"))
    env = _env(root, INTERCONNECT_EXECUTOR="celery", INTERCONNECT_CELERY_BROKER=broker)
    # dagster-celery starts the `celery` command of this environment
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return [subprocess.Popen([dagster_celery, "worker", "start", "-A", "dagster_celery.app",
                              "-y", str(config), "-n", f"w{k}", "-l", "WARNING", "--",
                              "-P", "solo"], cwd=REPO, env=env, start_new_session=True,
                             stdout=(root / f"w{k}.log").open("wb"), stderr=subprocess.STDOUT)
            for k in range(count)]


def _stop(workers: list[subprocess.Popen]) -> None:
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


def _wait_for(broker: str, names: set[str], timeout_s: float = 120) -> None:
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


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The raw layer the in-process executor leaves: what every other executor must leave."""
    root = _tree(tmp_path_factory.mktemp("in-process"))
    done = _ingest(root)
    assert done.returncode == 0, done.stderr[-3000:]
    return raw_digest(Project(root))


def test_celery_workers_leave_the_raw_layer_the_in_process_run_leaves(tmp_path, broker,
                                                                       reference):

    root = _tree(tmp_path / "celery")
    workers = _workers(root, broker, 2)
    try:
        _wait_for(broker, {"w0", "w1"})
        run = _ingest(root, INTERCONNECT_EXECUTOR="celery", INTERCONNECT_CELERY_BROKER=broker)
    finally:
        _stop(workers)
    assert run.returncode == 0, run.stderr[-3000:]
    assert "succeeded: 5 step(s)" in run.stderr     # the list, 3 campaigns, the summary

    # every campaign's step ran in one of the two workers, not in the launching process
    from dagster import DagsterEventType, DagsterInstance
    os.environ["DAGSTER_HOME"] = str(root / ".dagster_home")
    try:
        instance = DagsterInstance.get()
        (record,) = instance.get_run_records()
        events = instance.all_logs(record.dagster_run.run_id, of_type=DagsterEventType.ENGINE_EVENT)
        ran_in = {e.step_key: e.dagster_event.engine_event_data.metadata["Celery worker"].value
                  for e in events if e.step_key and e.dagster_event
                  and "Celery worker" in (e.dagster_event.engine_event_data.metadata or {})}
    finally:
        del os.environ["DAGSTER_HOME"]
    ingests = {k for k in ran_in if k.startswith("raw_layer.ingest_campaign[")}
    assert ingests == {"raw_layer.ingest_campaign[lab_veth_tbf]",
                       "raw_layer.ingest_campaign[lab_rpc_veth]",
                       "raw_layer.ingest_campaign[aws_p3_tc]"}
    assert {v.split("@")[0] for v in ran_in.values()} <= {"w0", "w1"}

    ours = raw_digest(Project(root))
    assert ours == reference
    # the comparison has something in it: every campaign's rows and registry entries
    assert len({k.split("/")[0] for k in ours}) == 3
    assert sum(v[0] for k, v in ours.items() if k.endswith("/raw_netdev")) > 0


def test_an_unknown_executor_or_a_missing_broker_is_refused_with_what_to_set(tmp_path):
    root = _tree(tmp_path / "t")
    bad = _ingest(root, INTERCONNECT_EXECUTOR="threads")
    assert bad.returncode == 2
    assert ("INTERCONNECT_EXECUTOR='threads': expected in_process, multiprocess, "
            "multiprocess:<processes> or celery") in bad.stderr
    no_broker = _ingest(root, INTERCONNECT_EXECUTOR="celery")
    assert no_broker.returncode == 2
    assert "INTERCONNECT_EXECUTOR=celery needs INTERCONNECT_CELERY_BROKER" in no_broker.stderr
    # a broker nobody listens on (a free port): refused at once, not a run that waits for ever
    nobody = f"redis://127.0.0.1:{_free_port()}/0"
    unanswered = _ingest(root, INTERCONNECT_EXECUTOR="celery", INTERCONNECT_CELERY_BROKER=nobody)
    assert unanswered.returncode == 2
    assert f"no Celery worker answered on {nobody}" in unanswered.stderr
    threads = _ingest(root, INTERCONNECT_PARSE_THREADS="two")
    assert threads.returncode != 0 and "INTERCONNECT_PARSE_THREADS='two'" in threads.stderr


def test_the_multiprocess_executor_runs_each_campaign_in_its_own_process(tmp_path, reference):
    root = _tree(tmp_path / "mp")
    run = _ingest(root, INTERCONNECT_EXECUTOR="multiprocess:2")
    assert run.returncode == 0, run.stderr[-3000:]
    assert raw_digest(Project(root)) == reference
    from dagster import DagsterEventType, DagsterInstance
    os.environ["DAGSTER_HOME"] = str(root / ".dagster_home")
    try:
        instance = DagsterInstance.get()
        (record,) = instance.get_run_records()
        starts = instance.all_logs(record.dagster_run.run_id, of_type=DagsterEventType.STEP_START)
        pids = {e.step_key: e.dagster_event.pid for e in starts}
    finally:
        del os.environ["DAGSTER_HOME"]
    ingests = {k: p for k, p in pids.items() if k.startswith("raw_layer.ingest_campaign[")}
    assert len(ingests) == 3 and len(set(ingests.values())) == 3   # a process per campaign


def test_campaign_names_that_spell_the_same_mapping_key_each_get_their_own_step():
    from pipeline.orchestration.raw_assets import mapping_key
    taken: set[str] = set()
    # 'a-b', 'a.b' and 'a_b' are three campaign folders: letters, digits and '_' only in a key
    assert [mapping_key(c, taken) for c in ("a-b", "a.b", "a_b", "x")] == ["a_b", "a_b_2", "a_b_3", "x"]


_FROZEN = """
import gc, sys
{load}
print(gc.get_freeze_count())
"""


@pytest.mark.parametrize("load", [
    # the forkserver's preload: every step's process is a fork of what it loaded
    "import pipeline.orchestration.scale_out_preload",
    # the launcher, after its run: the interpreter's exit then skips Dagster's objects
    "from pipeline.commands import scale_out\nassert scale_out.main([]) == 0",
])
def test_what_outlives_the_run_is_left_out_of_garbage_collection(tmp_path, load):
    root = _tree(tmp_path / "t")
    out = subprocess.run([sys.executable, "-c", _FROZEN.format(load=load)], cwd=REPO,
                         env=_env(root, INTERCONNECT_EXECUTOR="in_process"),
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    # gc.freeze() moved every object alive then into the permanent generation: thousands
    # (Dagster alone is more than 100,000); without it the count is 0
    assert int(out.stdout.split()[-1]) > 10_000


_STEP_IMPORTS = """
import sys
import pipeline.orchestration.scale_out_preload
from dagster import DagsterInstance
ref = DagsterInstance.get().get_ref()
loaded = set(sys.modules)
# what each step's process does first (Dagster's multiprocess executor): the instance from its ref
with DagsterInstance.from_ref(ref) as instance:
    instance.compute_log_manager
print(sorted(set(sys.modules) - loaded))
"""


def test_a_steps_process_finds_what_its_instance_imports_already_loaded(tmp_path):
    root = _tree(tmp_path / "t")
    out = subprocess.run([sys.executable, "-c", _STEP_IMPORTS], cwd=REPO, env=_env(root),
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    # without the preload's instance, about 50 modules (upath, fsspec, the compute log
    # manager's watchdog, the secrets loader) are imported here, in every step
    assert out.stdout.split("\n")[-2] == "[]"
