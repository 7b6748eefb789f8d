"""Runs whose process is gone are failed, so they never block the queue.

``max_concurrent_runs: 1`` queues every run behind one in progress. A build killed with SIGKILL
(or a machine that lost power) leaves its run STARTED for ever, and Dagster's run monitoring
cannot see that on the default run launcher (it has no worker health check). Every run records
the pid of the process executing it (its first engine event); the sensor and the schedule call
:func:`fail_dead_runs` before they ask for a run, which marks as failed every in-progress run
whose process no longer exists on this machine. ``run_monitoring`` in config/dagster.yaml stays as the
backstop (a maximum run time) for runs elsewhere.
"""
from __future__ import annotations

import os

from dagster import DagsterEventType, DagsterInstance, DagsterRunStatus, RunsFilter

IN_PROGRESS = [DagsterRunStatus.STARTING, DagsterRunStatus.STARTED, DagsterRunStatus.CANCELING]


def run_pid(instance: DagsterInstance, run_id: str) -> int | None:
    for record in instance.all_logs(run_id, of_type=DagsterEventType.ENGINE_EVENT):
        data = record.dagster_event.event_specific_data
        pid = (getattr(data, "metadata", None) or {}).get("pid")
        if pid is not None:
            return int(getattr(pid, "text", pid))
    return None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False
    except PermissionError:      # someone else's process: alive
        return True


def fail_dead_runs(instance: DagsterInstance, log=None) -> list[str]:
    """Mark as failed every in-progress run whose process is gone; returns their run ids."""
    failed = []
    for record in instance.get_run_records(RunsFilter(statuses=IN_PROGRESS)):
        run = record.dagster_run
        pid = run_pid(instance, run.run_id)
        if pid is None or _alive(pid):
            continue
        message = (f"the process running this build (pid {pid}) no longer exists (killed or "
                   f"crashed); marked failed so that later runs are not queued behind it")
        instance.report_run_failed(run, message)
        failed.append(run.run_id)
        if log is not None:
            log.warning(f"run {run.run_id}: {message}")
    return failed
