"""The raw_data sensor: rebuild what changed under raw_data/, once the tree is quiet.

Each tick compares the content digest of every campaign folder and of ``raw_data/reference/``
(pipeline/ingest/digest.py: bytes, never names, sizes or times) with ``meta_build_inputs``, the
digests the last completed build covered:

- equal: nothing to do (so the first tick of ``dg dev`` on a built checkout starts nothing);
- different from what the previous tick saw: the tree is changing (a capture in progress, a
  manifest half written); the sensor remembers the new digests and the time, and waits;
- unchanged for the settle time (``INTERCONNECT_SENSOR_SETTLE`` seconds, default 60): it asks
  for one run per changed campaign, over that campaign's partition and everything downstream
  of the campaign layer (the shared tables and pages), never the other campaigns' partitions;
  a changed reference folder means one run over every campaign; campaigns that are gone are
  deleted as partitions and one run of the shared assets takes them off the pages.

A run's key is the folder and its digest, so the same content is never built twice by the
sensor, even while the warehouse still shows the old digests (the build is queued or running,
or it failed: the nightly schedule rebuilds everything). The cursor holds only what the last
tick saw and since when.
"""
from __future__ import annotations

import json
import os
import time

from dagster import (
    AddDynamicPartitionsRequest,
    AssetSelection,
    DefaultSensorStatus,
    DeleteDynamicPartitionsRequest,
    RunRequest,
    SensorEvaluationContext,
    SensorResult,
    SkipReason,
    sensor,
)

from pipeline.ingest.digest import folder_digest
from pipeline.ingest.scan import campaign_folders
from pipeline.orchestration.partitions import CAMPAIGNS, range_tags
from pipeline.orchestration.stale_runs import fail_dead_runs
from pipeline.project import Project
from pipeline.util.lock import BuildLockedError, reader_lock
from pipeline.warehouse.catalog import REFERENCE_FOLDER

SETTLE_ENV, INTERVAL_ENV = "INTERCONNECT_SENSOR_SETTLE", "INTERCONNECT_SENSOR_INTERVAL"

clock = time.time     # the tests' clock


def tree_digests(project: Project) -> dict[str, str]:
    """Folder (``deployments/<c>``, ``p2p/<c>``, ``reference``) -> content digest, now."""
    found = {f"{area}/{name}": folder_digest(path)
             for area, name, path in campaign_folders(project.raw_data)}
    found[REFERENCE_FOLDER] = folder_digest(project.reference)
    return found


class WarehouseBusy(Exception):
    pass


def built_digests(project: Project) -> dict[str, str]:
    """What the last completed build covered ({} before the first build)."""
    import duckdb
    if not project.warehouse.exists():
        return {}
    try:
        with reader_lock(project.root, project.warehouse):
            try:
                con = duckdb.connect(str(project.warehouse), read_only=True)
            except duckdb.Error as exc:      # another process has it open for writing
                raise WarehouseBusy(str(exc)) from None
            try:
                rows = con.execute("select folder, content_sha256 from meta_build_inputs").fetchall()
            except duckdb.CatalogException:
                return {}
            finally:
                con.close()
    except BuildLockedError as exc:          # a build is running: ask again at the next tick
        raise WarehouseBusy(str(exc)) from None
    return dict(rows)


def _selection(context: SensorEvaluationContext):
    """(every partitioned asset and what is downstream of it, only the unpartitioned part)."""
    graph = context.repository_def.asset_graph
    partitioned = [k for k in graph.get_all_asset_keys() if graph.get(k).is_partitioned]
    downstream = AssetSelection.assets(*partitioned).downstream().resolve(graph)
    return sorted(downstream), sorted(k for k in downstream if not graph.get(k).is_partitioned)


def _state(cursor: str | None) -> dict:
    """The cursor as this sensor writes it; anything else (an older version's fingerprint, a
    cursor reset by hand) is no state: the sensor starts waiting afresh."""
    try:
        state = json.loads(cursor) if cursor else {}
    except ValueError:
        return {}
    return state if isinstance(state, dict) else {}


def _campaign(folder: str) -> str:
    return folder.split("/", 1)[1]


def evaluate(context: SensorEvaluationContext, project: Project, settle_s: float):
    current = tree_digests(project)
    try:
        built = built_digests(project)
    except WarehouseBusy:
        return SkipReason("a build is writing the warehouse; looking again at the next tick")
    if current == built:
        context.update_cursor(json.dumps({"seen": current, "since": None}))
        return SkipReason("raw_data/ is what the last build covered")
    state = _state(context.cursor)
    now = clock()
    if state.get("seen") != current or state.get("since") is None:
        context.update_cursor(json.dumps({"seen": current, "since": now}))
        return SkipReason(f"raw_data/ changed; waiting until it has been quiet for {settle_s:g} s")
    quiet = now - state["since"]
    if quiet < settle_s:
        return SkipReason(f"raw_data/ quiet for {quiet:.0f} of {settle_s:g} s")

    changed = sorted(f for f in current if current[f] != built.get(f) and f != REFERENCE_FOLDER)
    gone = sorted(f for f in built if f not in current and f != REFERENCE_FOLDER)
    names = [_campaign(f) for f in current if f != REFERENCE_FOLDER]
    known = context.instance.get_dynamic_partitions(CAMPAIGNS.name)
    partitions = []
    added = [n for n in names if n not in known]
    if added:
        partitions.append(AddDynamicPartitionsRequest(CAMPAIGNS.name, added))
    removed = [n for n in known if n not in names]
    if removed:
        partitions.append(DeleteDynamicPartitionsRequest(CAMPAIGNS.name, removed))
    everything, shared = _selection(context)
    if current[REFERENCE_FOLDER] != built.get(REFERENCE_FOLDER):
        ordered = [n for n in known if n in names] + added
        key = "all:" + "".join(sorted(current.values()))
        runs = [RunRequest(run_key=_short(key), tags=range_tags(ordered))]
    else:
        runs = [RunRequest(run_key=f"{f}:{current[f][:16]}",
                           tags=range_tags([_campaign(f)]),
                           asset_selection=everything) for f in changed]
        if gone and not changed:
            runs.append(RunRequest(run_key=_short("gone:" + ",".join(gone) + ":" +
                                                  "".join(sorted(current.values()))),
                                   asset_selection=shared))
    return SensorResult(run_requests=runs, dynamic_partitions_requests=partitions)


def _short(text: str) -> str:
    import hashlib
    return hashlib.sha256(text.encode()).hexdigest()[:24]


def raw_data_sensor(job):
    @sensor(job=job, minimum_interval_seconds=int(os.environ.get(INTERVAL_ENV, "30")),
            default_status=DefaultSensorStatus.RUNNING,
            description="Rebuilds the campaigns whose files under raw_data/ changed (by content), "
                        "and what is downstream of them, once raw_data/ has been quiet for "
                        f"{SETTLE_ENV} seconds (default 60). Nothing at start-up when the last "
                        "build covered the current files.")
    def raw_data_changed(context: SensorEvaluationContext):
        fail_dead_runs(context.instance, context.log)
        return evaluate(context, Project.from_env(), float(os.environ.get(SETTLE_ENV, "60")))

    return raw_data_changed
