"""Loaded once by the multiprocess executor's forkserver (pipeline/scale_out.py): every step's
process is a fork of it, so what is imported and built here is not done again per step."""
import gc

import dagster._core.storage.event_log.sqlite.sqlite_event_log  # noqa: F401
import dagster._core.storage.runs.sqlite.sqlite_run_storage  # noqa: F401
import dagster._core.storage.schedules.sqlite.sqlite_schedule_storage  # noqa: F401
import dagster._core.storage.fs_io_manager  # noqa: F401

from pipeline import scale_out

scale_out.ingest_job()      # cached: the steps' processes find the job built

# What is loaded now lives as long as the server: the collector leaves it alone from here on,
# in the server and in every step forked from it (their collections stay short, and the
# server's own exit, which the launching shell waits for, skips a pass over all of Dagster)
gc.freeze()
