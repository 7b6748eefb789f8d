"""The raw layer on several processes or machines: ``ingest_campaigns``, the job of the raw
assets alone, with the executor that ``INTERCONNECT_EXECUTOR`` names.

- ``in_process`` (default): every step in the launching process, one after another;
- ``multiprocess`` or ``multiprocess:N``: each step in its own process, N at a time (default:
  one per core);
- ``celery``: each step sent to Celery workers through the broker ``INTERCONNECT_CELERY_BROKER``
  (e.g. ``redis://10.0.0.5:6379/0``), workers started on any machine that sees the same tree,
  raw store and Dagster instance (``dagster-celery worker start``; see the Scaling out page).

Each campaign is its own step (pipeline/orchestration/raw_assets.py) and writes only its own folder of the raw
store, so steps need no shared writer; ``INTERCONNECT_PARSE_THREADS`` gives each step's DuckDB
that many threads (one per step when a step runs on every core). The warehouse and the pages
are then built by ``make docs``, which finds every file parsed and parses nothing again.

``reconstructable(ingest_job)`` is what an out-of-process executor needs: each step's process
(or worker) calls ``ingest_job`` again to find its step.
"""
from __future__ import annotations

import os

# Dagster and the pipeline are imported inside the functions: `python -m pipeline.commands.scale_out`
# starts the multiprocess executor's forkserver first, so that it loads them while this
# process does the same, instead of after.

EXECUTOR_ENV = "INTERCONNECT_EXECUTOR"
BROKER_ENV = "INTERCONNECT_CELERY_BROKER"
JOB = "ingest_campaigns"
PRELOAD = "pipeline.orchestration.scale_out_preload"


def executor():
    """The executor ``INTERCONNECT_EXECUTOR`` names (a clear error for any other value)."""
    from dagster import in_process_executor, multiprocess_executor
    name = os.environ.get(EXECUTOR_ENV, "") or "in_process"
    kind, _, count = name.partition(":")
    if kind == "in_process" and not count:
        return in_process_executor
    if kind == "multiprocess" and (not count or count.isdigit() and int(count) > 0):
        # forkserver with the pipeline loaded once: a step's process starts as a fork of it,
        # not a fresh interpreter that imports Dagster and the pipeline again
        return multiprocess_executor.configured(
            {"max_concurrent": int(count) if count else 0,
             "start_method": {"forkserver": {"preload_modules": [PRELOAD]}}},
            name="multiprocess")
    if kind == "celery" and not count:
        from dagster_celery import celery_executor
        broker = os.environ.get(BROKER_ENV, "")
        if not broker:
            raise ValueError(f"{EXECUTOR_ENV}=celery needs {BROKER_ENV}, the broker's URL "
                             f"(e.g. redis://127.0.0.1:6379/0)")
        return celery_executor.configured({"broker": broker, "backend": broker}, name="celery")
    raise ValueError(f"{EXECUTOR_ENV}={name!r}: expected in_process, multiprocess, "
                     f"multiprocess:<processes> or celery")


_built: dict[tuple, object] = {}


def ingest_job():
    """The raw layer's job over the campaign partitions, with the chosen executor (built once
    per process and setting: a step's process forked from the forkserver finds it built)."""
    from pipeline.project import Project
    key = (os.environ.get(EXECUTOR_ENV), os.environ.get(BROKER_ENV), str(Project.from_env().root))
    if key not in _built:
        _built[key] = _job()
    return _built[key]


def _job():
    from dagster import AssetSelection, Definitions, define_asset_job

    from pipeline.orchestration.raw_assets import raw_layer_asset
    from pipeline.orchestration.resources import Warehouse
    from pipeline.project import Project
    from pipeline.warehouse.steps import Layout
    project = Project.from_env()
    layout = Layout(project)
    raw = raw_layer_asset(list(layout.formats.values()))
    job = define_asset_job(JOB, selection=AssetSelection.assets(raw), executor_def=executor(),
                           description="Scan and parse every campaign of the run, a step per "
                                       "campaign (the raw layer alone).")
    defs = Definitions(assets=[raw], jobs=[job],
                       resources={"warehouse": Warehouse.for_project(project)})
    return defs.resolve_job_def(JOB)


def run(instance, campaigns: list[str] | None = None):
    """Ingest ``campaigns`` (default: every campaign folder) in one run of ``ingest_campaigns``
    recorded in ``instance`` (a persistent one: out-of-process steps report to it)."""
    from dagster import execute_job, reconstructable

    from pipeline.ingest.runner import parse_config
    from pipeline.orchestration.partitions import range_tags, sync_campaign_folders
    from pipeline.project import Project
    parse_config()          # a bad INTERCONNECT_PARSE_THREADS is refused before the run
    executor()              # and so is a bad INTERCONNECT_EXECUTOR
    if os.environ.get(EXECUTOR_ENV) == "celery":
        _workers_answer(os.environ[BROKER_ENV])
    ordered = sync_campaign_folders(instance, Project.from_env().raw_data)
    chosen = [n for n in ordered if not campaigns or n in campaigns]
    if not chosen:
        raise ValueError("no campaign to ingest")
    tags = range_tags(chosen)
    if campaigns is not None and len(chosen) != len(range_of(instance, chosen)):
        raise ValueError("the campaigns must be consecutive partitions")
    with execute_job(reconstructable(ingest_job), instance=instance, tags=tags) as result:
        return result.success, [e.step_key for e in result.all_events
                                if e.event_type_value == "STEP_SUCCESS"]


def _workers_answer(broker: str, timeout_s: float = 5.0) -> None:
    """Refuse a Celery run that no worker would take (it would wait for ever)."""
    from celery import Celery
    app = Celery(broker=broker, backend=broker)
    app.conf.broker_connection_retry_on_startup = False
    app.conf.broker_connection_max_retries = 1
    try:
        answers = app.control.ping(timeout=timeout_s)
    except Exception as exc:  # noqa: BLE001 - any broker failure says the same to the user
        raise ValueError(f"no Celery worker answered on {broker} (the broker: "
                         f"{type(exc).__name__}: {exc}); start the workers first "
                         f"(see the Scaling out page)") from None
    if not answers:
        raise ValueError(f"no Celery worker answered on {broker} within {timeout_s:g} s; start "
                         f"the workers first (see the Scaling out page)")


def range_of(instance, chosen: list[str]) -> list[str]:
    from pipeline.orchestration.partitions import CAMPAIGNS
    keys = instance.get_dynamic_partitions(CAMPAIGNS.name)
    return keys[keys.index(chosen[0]):keys.index(chosen[-1]) + 1]


def start_forkserver() -> None:
    """Start the forkserver the multiprocess executor forks each step from, loading PRELOAD."""
    import multiprocessing
    from multiprocessing import forkserver
    multiprocessing.set_forkserver_preload([PRELOAD])
    forkserver.ensure_running()
