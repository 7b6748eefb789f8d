"""The campaigns on several processes or machines: ``build_campaigns``, the job of the raw layer,
the reference data and the campaign models (``ingest_campaigns``: the raw layer alone), with the
executor that ``INTERCONNECT_EXECUTOR`` names.

- ``in_process`` (default): every step in the launching process, one after another;
- ``multiprocess`` or ``multiprocess:N``: each step in its own process, N at a time (default:
  one per core);
- ``celery``: each step sent to Celery workers through the broker ``INTERCONNECT_CELERY_BROKER``
  (e.g. ``redis://10.0.0.5:6379/0``), workers started on any machine that sees the same tree,
  raw store and Dagster instance (``dagster-celery worker start``; see the Scaling out page).

Each campaign is its own step, twice: its raw files (pipeline/orchestration/raw_assets.py), written
to its own folder of the raw store, then its models (pipeline/orchestration/campaign_model_assets.py),
written to its own DuckDB file; so steps need no shared writer. ``INTERCONNECT_PARSE_THREADS``
gives each parse step's DuckDB that many threads (one per step when a step runs on every core).
The comparison models and the pages are then built by ``make docs``, which finds every file
parsed and every campaign's models built from the same inputs, and builds neither again.

``reconstructable(campaigns_job)`` is what an out-of-process executor needs: each step's process
(or worker) calls it again to find its step.
"""
from __future__ import annotations

import os

# Dagster and the pipeline are imported inside the functions: `python -m pipeline.commands.scale_out`
# starts the multiprocess executor's forkserver first, so that it loads them while this
# process does the same, instead of after.

EXECUTOR_ENV = "INTERCONNECT_EXECUTOR"
BROKER_ENV = "INTERCONNECT_CELERY_BROKER"
JOB = "ingest_campaigns"
MODELS_JOB = "build_campaigns"
# "0": the run is the raw layer alone (set by the command before the forkserver starts, so the
# forkserver builds the job the steps will look for)
RAW_ONLY_ENV = "INTERCONNECT_SCALE_OUT_RAW_ONLY"


def the_job():
    """The job this process's runs use: ``ingest_campaigns`` when RAW_ONLY_ENV is "1"."""
    return ingest_job() if os.environ.get(RAW_ONLY_ENV) == "1" else campaigns_job()
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
    return _cached(False)


def campaigns_job():
    """The raw layer, the reference data and the campaign models, over the campaign partitions."""
    return _cached(True)


def _cached(models: bool):
    from pipeline.project import Project
    key = (models, os.environ.get(EXECUTOR_ENV), os.environ.get(BROKER_ENV),
           str(Project.from_env().root))
    if key not in _built:
        _built[key] = _job(models)
    return _built[key]


def _job(models: bool):
    from dagster import AssetKey, AssetSelection, Definitions, define_asset_job

    from pipeline.orchestration.assembly import data_assets
    from pipeline.orchestration.raw_assets import raw_layer_asset
    from pipeline.orchestration.resources import Warehouse
    from pipeline.project import Project
    from pipeline.warehouse.steps import Layout
    project = Project.from_env()
    layout = Layout(project)
    if models:
        raw, sql, _ = data_assets(layout)
        assets = [*raw, *sql]
        plan = layout.plan
        keys = [k for a in raw for k in a.keys if k.path[-1] not in layout.reference_tables]
        keys += [AssetKey(m.name) for m in plan.campaign]
        name, selection = MODELS_JOB, AssetSelection.assets(*keys)
        description = ("Every campaign of the run: its raw files parsed and its models built, a "
                       "step per campaign for each (the reference data is built first by the "
                       "launcher: python -m pipeline.commands.scale_out).")
    else:
        assets = [raw_layer_asset(list(layout.formats.values()))]
        name, selection = JOB, AssetSelection.assets(assets[0])
        description = ("Scan and parse every campaign of the run, a step per campaign (the raw "
                       "layer alone).")
    job = define_asset_job(name, selection=selection, executor_def=executor(),
                           description=description)
    defs = Definitions(assets=assets, jobs=[job],
                       resources={"warehouse": Warehouse.for_project(project)})
    return defs.resolve_job_def(name)


def run(instance, campaigns: list[str] | None = None):
    """Build ``campaigns`` (default: every campaign folder) in one run of ``build_campaigns``
    (``ingest_campaigns`` when RAW_ONLY_ENV is "1") recorded in ``instance`` (a persistent one:
    out-of-process steps report to it)."""
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
    if os.environ.get(RAW_ONLY_ENV) != "1":
        build_reference()
    with execute_job(reconstructable(the_job), instance=instance, tags=tags) as result:
        return result.success, [e.step_key for e in result.all_events
                                if e.event_type_value == "STEP_SUCCESS"]


def build_reference() -> None:
    """The reference tables and models, in this process, under the build locks held for this
    alone: the campaign steps (in other processes, on other machines) then take them shared."""
    import duckdb

    from pipeline.project import Project
    from pipeline.util.lock import scoped_writer_lock
    from pipeline.warehouse.steps import Layout, build_reference_models, load_references
    project = Project.from_env()
    layout = Layout(project)
    with scoped_writer_lock(project.root, project.warehouse):
        project.warehouse.parent.mkdir(parents=True, exist_ok=True)
        con = duckdb.connect(str(project.warehouse))
        try:
            load_references(con, layout)
            build_reference_models(con, layout)
        finally:
            con.close()


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
