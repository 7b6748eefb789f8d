"""Plain log entries for the Dagster event log storage tests, and what a run's log holds."""
from __future__ import annotations

import logging
import time

from dagster._core.events.log import EventLogEntry


def log_entry(run_id: str, text: str) -> EventLogEntry:
    """A user log line of run ``run_id`` (no Dagster event: it is written to the run's database
    only)."""
    return EventLogEntry(error_info=None, level=logging.INFO, user_message=text, run_id=run_id,
                         timestamp=time.time())


def messages(storage, run_id: str) -> list[str]:
    """The user messages of run ``run_id`` in ``storage``, in the order they were stored."""
    return [e.user_message for e in storage.get_logs_for_run(run_id)]
