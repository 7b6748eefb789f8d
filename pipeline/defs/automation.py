"""When the pipeline runs by itself: nightly, and when raw_data/ changes."""

import hashlib
import os

from dagster import (AddDynamicPartitionsRequest, AssetSelection, DefaultScheduleStatus,
                     DefaultSensorStatus, DeleteDynamicPartitionsRequest, RunRequest,
                     SensorEvaluationContext, SensorResult, SkipReason, define_asset_job,
                     schedule, sensor)

from ..ingest.scan import campaign_folders
from ..project import Project
from .partitions import CAMPAIGNS
from .stale_runs import fail_dead_runs

RANGE_START, RANGE_END = "dagster/asset_partition_range_start", "dagster/asset_partition_range_end"

rebuild_job = define_asset_job("rebuild_everything", selection=AssetSelection.all(),
                               description="Ingest raw_data/, build every model, page and the site.")


def raw_data_fingerprint(project: Project) -> str:
    """Names, sizes and modification times of every file under raw_data/."""
    h = hashlib.sha256()
    for path in sorted(project.raw_data.rglob("*")):
        if path.is_file():
            st = path.stat()
            h.update(f"{path.relative_to(project.raw_data).as_posix()}\0{st.st_size}\0"
                     f"{st.st_mtime_ns}\n".encode())
    return h.hexdigest()


@schedule(job=rebuild_job, cron_schedule="0 3 * * *",
          execution_timezone=os.environ.get("INTERCONNECT_TIMEZONE", "UTC"),
          default_status=DefaultScheduleStatus.RUNNING,
          description="Nightly rebuild at 03:00 (timezone: INTERCONNECT_TIMEZONE, default UTC).")
def nightly_rebuild(context):
    from .partitions import sync_partitions
    fail_dead_runs(context.instance, context.log)
    names = [n for _, n, _ in campaign_folders(Project.from_env().raw_data)]
    sync_partitions(context.instance, names)
    return full_build_request(context.instance.get_dynamic_partitions(CAMPAIGNS.name))


def full_build_request(ordered: list[str], run_key: str | None = None) -> RunRequest:
    """One run over every campaign partition (a range, first to last) and the shared assets."""
    tags = {RANGE_START: ordered[0], RANGE_END: ordered[-1]} if ordered else {}
    return RunRequest(run_key=run_key, tags=tags)


@sensor(job=rebuild_job, minimum_interval_seconds=int(os.environ.get("INTERCONNECT_SENSOR_INTERVAL", "30")), default_status=DefaultSensorStatus.RUNNING,
        description="Starts a rebuild when files under raw_data/ are added, removed or changed.")
def raw_data_changed(context: SensorEvaluationContext):
    fail_dead_runs(context.instance, context.log)
    fingerprint = raw_data_fingerprint(Project.from_env())
    if context.cursor == fingerprint:
        return SkipReason("raw_data/ unchanged")
    context.update_cursor(fingerprint)
    names = [n for _, n, _ in campaign_folders(Project.from_env().raw_data)]
    known = context.instance.get_dynamic_partitions(CAMPAIGNS.name)
    gone = [n for n in known if n not in names]
    ordered = [n for n in known if n in names] + [n for n in names if n not in known]
    requests = []
    if [n for n in names if n not in known]:
        requests.append(AddDynamicPartitionsRequest(CAMPAIGNS.name, [n for n in names if n not in known]))
    if gone:
        requests.append(DeleteDynamicPartitionsRequest(CAMPAIGNS.name, gone))
    return SensorResult(run_requests=[full_build_request(ordered, fingerprint)],
                        dynamic_partitions_requests=requests)
