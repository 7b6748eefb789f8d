"""Retention of the Dagster instance: the last ``INTERCONNECT_KEEP_RUNS`` runs (default 10).

Every build records a run with its event log: about 1,900 events, 7 MB of run database and
6 MB more of the cross-run ``index.db`` (its asset materializations), nothing pruned before this. After each build the finished runs beyond the newest N are
deleted with their events and their run databases (``instance.delete_run``; the event log of
``pipeline.orchestration.run_storage`` also removes each run's file), and the cross-run index
is vacuumed once a quarter of it is free pages. Runs still queued or in progress are never
touched, and neither are the asset partitions the sensor registered.
"""
from __future__ import annotations

import os

KEEP_ENV = "INTERCONNECT_KEEP_RUNS"
DEFAULT_KEEP = 10


def keep_runs() -> int:
    raw = os.environ.get(KEEP_ENV, "").strip()
    if not raw:
        return DEFAULT_KEEP
    try:
        keep = int(raw)
    except ValueError:
        keep = 0
    if keep < 1:
        raise ValueError(f"{KEEP_ENV}={raw!r}: give the number of runs to keep, a whole number "
                         f"of at least 1 (default {DEFAULT_KEEP})")
    return keep


def prune_runs(instance, keep: int | None = None) -> str | None:
    """Delete the finished runs older than the newest ``keep``; a line saying so, or None."""
    keep = keep_runs() if keep is None else keep
    records = instance.get_run_records(order_by="create_timestamp", ascending=False)
    finished = [r.dagster_run for r in records if r.dagster_run.is_finished]
    old = finished[keep:]
    for run in old:
        instance.delete_run(run.run_id)
    freed = 0
    compact = getattr(instance.event_log_storage, "compact_index", None)
    if old and compact is not None:
        freed = compact()
    if not old:
        return None
    return (f"Dagster instance: removed {len(old)} run{'s' if len(old) != 1 else ''} older than "
            f"the last {keep} ({KEEP_ENV})"
            + (f", {freed / 1e6:.1f} MB given back" if freed else ""))
