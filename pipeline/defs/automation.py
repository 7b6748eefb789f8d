"""When the pipeline runs by itself: nightly, and when raw_data/ changes."""

import os

from dagster import (AssetSelection, DefaultScheduleStatus, RunRequest, define_asset_job,
                     schedule)

from ..ingest.scan import campaign_folders
from ..project import Project
from .partitions import CAMPAIGNS
from .raw_data_sensor import RANGE_END, RANGE_START, raw_data_sensor
from .stale_runs import fail_dead_runs
from .what_changed import ASSET as WHAT_CHANGED

rebuild_job = define_asset_job("rebuild_everything", selection=AssetSelection.all(),
                               description="Ingest raw_data/, build every model, page and the site.")


@schedule(job=rebuild_job, cron_schedule="0 3 * * *",
          execution_timezone=os.environ.get("INTERCONNECT_TIMEZONE", "UTC"),
          default_status=DefaultScheduleStatus.RUNNING,
          description="Nightly rebuild at 03:00 (timezone: INTERCONNECT_TIMEZONE, default UTC).")
def nightly_rebuild(context):
    from .partitions import sync_partitions
    fail_dead_runs(context.instance, context.log)
    names = [n for _, n, _ in campaign_folders(Project.from_env().raw_data)]
    sync_partitions(context.instance, names)
    # the nightly build is the published one: it is compared with the ledger it published last
    return full_build_request(context.instance.get_dynamic_partitions(CAMPAIGNS.name),
                              baseline="published")


def full_build_request(ordered: list[str], run_key: str | None = None,
                       baseline: str | None = None) -> RunRequest:
    """One run over every campaign partition (a range, first to last) and the shared assets;
    ``baseline`` sets what its What changed page compares with (pipeline/figures/baseline.py)."""
    tags = {RANGE_START: ordered[0], RANGE_END: ordered[-1]} if ordered else {}
    config = ({"ops": {WHAT_CHANGED: {"config": {"baseline": baseline}}}} if baseline else None)
    return RunRequest(run_key=run_key, tags=tags, run_config=config)


raw_data_changed = raw_data_sensor(rebuild_job)
