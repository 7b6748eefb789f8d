"""When the pipeline runs by itself: nightly, and when raw_data/ changes."""

import hashlib
import os

from dagster import (AssetSelection, DefaultScheduleStatus, DefaultSensorStatus, RunRequest,
                     SensorEvaluationContext, SkipReason, define_asset_job, schedule, sensor)

from .project import Project

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
def nightly_rebuild():
    return RunRequest()


@sensor(job=rebuild_job, minimum_interval_seconds=30, default_status=DefaultSensorStatus.RUNNING,
        description="Starts a rebuild when files under raw_data/ are added, removed or changed.")
def raw_data_changed(context: SensorEvaluationContext):
    fingerprint = raw_data_fingerprint(Project.from_env())
    if context.cursor == fingerprint:
        return SkipReason("raw_data/ unchanged")
    context.update_cursor(fingerprint)
    return RunRequest(run_key=fingerprint)
