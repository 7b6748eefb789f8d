"""Loaded once by the multiprocess executor's forkserver (pipeline/orchestration/scale_out.py): every step's
process is a fork of it, so what is imported and built here is not done again per step."""
import gc
import os

import dagster._core.storage.event_log.sqlite.sqlite_event_log  # noqa: F401
import dagster._core.storage.fs_io_manager  # noqa: F401
import dagster._core.storage.runs.sqlite.sqlite_run_storage  # noqa: F401
import dagster._core.storage.schedules.sqlite.sqlite_schedule_storage  # noqa: F401
import pandas  # noqa: F401 - the parsers' frames (imported where used, not with the job)

from pipeline.orchestration import scale_out

scale_out.the_job()      # cached: the steps' processes find the job built


def _instance_as_a_step_builds_it() -> None:
    """Build and close the instance of ``DAGSTER_HOME`` the way each step's process does
    (its storages, its compute log manager): the modules that this imports on first use
    (upath and fsspec for the definitions state, the log manager, the secrets loader: about
    50, 30–40 ms a step) are then loaded once, here, for whatever storage the instance
    names."""
    if not os.environ.get("DAGSTER_HOME"):
        return
    from dagster import DagsterInstance
    with DagsterInstance.from_ref(DagsterInstance.get().get_ref()) as instance:
        instance.compute_log_manager  # noqa: B018 - built on first use


_instance_as_a_step_builds_it()

# What is loaded now lives as long as the server: the collector leaves it alone from here on,
# in the server and in every step forked from it (their collections stay short, and the
# server's own exit, which the launching shell waits for, skips a pass over all of Dagster)
gc.freeze()
