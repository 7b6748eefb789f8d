"""The campaigns scale out (pipeline/orchestration/scale_out.py): the same partitioned job,
``build_campaigns``, run with dagster-celery's executor, a local Redis broker on a loopback port
and two Celery worker processes, leaves exactly the raw layer and the campaign files that the
in-process executor leaves, every campaign's parse and model steps having run in a worker. Also:
each campaign is its own step, twice, and an unknown executor or a missing broker is refused
with what to set."""
from __future__ import annotations

import os
import subprocess
import sys
import pytest

from pipeline.orchestration.raw_digest import models_digest, raw_digest
from pipeline.project import Project

from conftest import REPO
from support.scale_out import (
    celery_ingest,
    celery_workers_of_steps,
    free_port,
    ingest,
    redis_broker,
    scale_env,
    tree_of,
)


@pytest.fixture
def broker(tmp_path):
    """redis-server on a free loopback port, stopped after the test."""
    with redis_broker(tmp_path) as url:
        yield url


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The raw layer the in-process executor leaves: what every other executor must leave."""
    root = tree_of(tmp_path_factory.mktemp("in-process"))
    done = ingest(root)
    assert done.returncode == 0, done.stderr[-3000:]
    return _digests(root)


def _digests(root):
    old = os.environ.get("INTERCONNECT_DB")
    os.environ.pop("INTERCONNECT_DB", None)     # the tree's own warehouse, as the command's
    try:
        return raw_digest(Project(root)), models_digest(Project(root))
    finally:
        if old is not None:
            os.environ["INTERCONNECT_DB"] = old


def test_celery_workers_leave_the_raw_layer_the_in_process_run_leaves(tmp_path, broker,
                                                                       reference):

    root = tree_of(tmp_path / "celery")
    run = celery_ingest(root, broker)
    assert run.returncode == 0, run.stderr[-3000:]
    # raw layer: the list, 3 campaigns, the summary; models: the list, the template, 3
    # campaigns, the summary (the launcher builds the reference data before the run)
    assert "succeeded: 11 step(s)" in run.stderr

    # every campaign's steps ran in one of the two workers, not in the launching process
    ran_in = celery_workers_of_steps(root)
    keys = {"lab_veth_tbf", "lab_rpc_veth", "aws_p3_tc"}
    assert {k for k in ran_in if k.startswith("raw_layer.ingest_campaign[")} == \
        {f"raw_layer.ingest_campaign[{k}]" for k in keys}
    assert {k for k in ran_in if k.startswith("campaign_models.campaign_model_step[")} == \
        {f"campaign_models.campaign_model_step[{k}]" for k in keys}
    assert {v.split("@")[0] for v in ran_in.values()} <= {"w0", "w1"}

    raw, models = _digests(root)
    assert (raw, models) == reference
    # the comparison has something in it: every campaign's rows, registry entries and models
    assert len({k.split("/")[0] for k in raw}) == 3
    assert sum(v[0] for k, v in raw.items() if k.endswith("/raw_netdev")) > 0
    assert {k.split("/")[0] for k in models} == {"lab-veth-tbf", "lab-rpc-veth", "aws-p3-tc"}
    assert all(models[f"{c}/status"][0] == "published" for c in ("lab-veth-tbf", "aws-p3-tc"))


def test_an_unknown_executor_or_a_missing_broker_is_refused_with_what_to_set(tmp_path):
    root = tree_of(tmp_path / "t")
    bad = ingest(root, INTERCONNECT_EXECUTOR="threads")
    assert bad.returncode == 2
    assert ("INTERCONNECT_EXECUTOR='threads': expected in_process, multiprocess, "
            "multiprocess:<processes> or celery") in bad.stderr
    no_broker = ingest(root, INTERCONNECT_EXECUTOR="celery")
    assert no_broker.returncode == 2
    assert "INTERCONNECT_EXECUTOR=celery needs INTERCONNECT_CELERY_BROKER" in no_broker.stderr
    # a broker nobody listens on (a free port): refused at once, not a run that waits for ever
    nobody = f"redis://127.0.0.1:{free_port()}/0"
    unanswered = ingest(root, INTERCONNECT_EXECUTOR="celery", INTERCONNECT_CELERY_BROKER=nobody)
    assert unanswered.returncode == 2
    assert f"no Celery worker answered on {nobody}" in unanswered.stderr
    threads = ingest(root, INTERCONNECT_PARSE_THREADS="two")
    assert threads.returncode != 0 and "INTERCONNECT_PARSE_THREADS='two'" in threads.stderr


def test_the_multiprocess_executor_runs_each_campaign_in_its_own_process(tmp_path, reference):
    root = tree_of(tmp_path / "mp")
    run = ingest(root, INTERCONNECT_EXECUTOR="multiprocess:2")
    assert run.returncode == 0, run.stderr[-3000:]
    assert _digests(root) == reference
    from dagster import DagsterEventType, DagsterInstance
    os.environ["DAGSTER_HOME"] = str(root / ".dagster_home")
    try:
        instance = DagsterInstance.get()
        (record,) = instance.get_run_records()
        starts = instance.all_logs(record.dagster_run.run_id, of_type=DagsterEventType.STEP_START)
        pids = {e.step_key: e.dagster_event.pid for e in starts}
    finally:
        del os.environ["DAGSTER_HOME"]
    for step in ("raw_layer.ingest_campaign[", "campaign_models.campaign_model_step["):
        ran = {k: p for k, p in pids.items() if k.startswith(step)}
        assert len(ran) == 3 and len(set(ran.values())) == 3   # a process per campaign


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
    root = tree_of(tmp_path / "t")
    out = subprocess.run([sys.executable, "-c", _FROZEN.format(load=load)], cwd=REPO,
                         env=scale_env(root, INTERCONNECT_EXECUTOR="in_process"),
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
    root = tree_of(tmp_path / "t")
    out = subprocess.run([sys.executable, "-c", _STEP_IMPORTS], cwd=REPO, env=scale_env(root),
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    # without the preload's instance, about 50 modules (upath, fsspec, the compute log
    # manager's watchdog, the secrets loader) are imported here, in every step
    assert out.stdout.split("\n")[-2] == "[]"
