"""When the pipeline runs by itself: nightly, and when raw_data/ changes."""

import os

from dagster import AssetSelection, DefaultScheduleStatus, RunRequest, define_asset_job, schedule

from pipeline.orchestration.partitions import range_tags, sync_campaign_folders
from pipeline.orchestration.sensor import raw_data_sensor
from pipeline.orchestration.stale_runs import fail_dead_runs
from pipeline.orchestration.what_changed_asset import ASSET as WHAT_CHANGED
from pipeline.project import Project

rebuild_job = define_asset_job("rebuild_everything", selection=AssetSelection.all(),
                               description="Ingest raw_data/, build every model, page and the site.")


@schedule(job=rebuild_job, cron_schedule="0 3 * * *",
          execution_timezone=os.environ.get("INTERCONNECT_TIMEZONE", "UTC"),
          default_status=DefaultScheduleStatus.RUNNING,
          description="Nightly rebuild at 03:00 (timezone: INTERCONNECT_TIMEZONE, default UTC).")
def nightly_rebuild(context):
    fail_dead_runs(context.instance, context.log)
    ordered = sync_campaign_folders(context.instance, Project.from_env().raw_data)
    # the nightly build is the published one: it is compared with the ledger it published last
    return full_build_request(ordered, baseline="published")


def full_build_request(ordered: list[str], run_key: str | None = None,
                       baseline: str | None = None) -> RunRequest:
    """One run over every campaign partition (a range, first to last) and the shared assets;
    ``baseline`` sets what its What changed page compares with (pipeline/publish/figures/baseline.py)."""
    tags = range_tags(ordered)
    config = ({"ops": {WHAT_CHANGED: {"config": {"baseline": baseline}}}} if baseline else None)
    return RunRequest(run_key=run_key, tags=tags, run_config=config)


raw_data_changed = raw_data_sensor(rebuild_job)
