"""Retention of the Dagster instance (pipeline/orchestration/retention.py): 50 runs recorded into
an instance with the project's storage stay within the bound of the last N."""
from __future__ import annotations

import os
import shutil
from pathlib import Path
from unittest import mock

import pytest
from dagster import DagsterInstance, DagsterRunStatus, MaterializeResult, asset, materialize
from dagster._core.test_utils import create_run_for_test

from pipeline.orchestration.retention import DEFAULT_KEEP, KEEP_ENV, keep_runs, prune_runs

from conftest import REPO

KEEP = 5


@asset
def noisy(context) -> MaterializeResult:
    for i in range(200):                 # a run with many events, as a build has
        context.log.info(f"event {i} " + "x" * 200)
    return MaterializeResult(metadata={"rows": 1})


def _size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def test_fifty_runs_stay_within_twice_the_size_of_the_runs_kept(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    shutil.copy(REPO / "config" / "dagster.yaml", home / "dagster.yaml")
    storage = home / "storage"
    sizes, lines = [], []
    with mock.patch.dict(os.environ, {"DAGSTER_HOME": str(home)}):
        with DagsterInstance.get() as instance:
            run_ids = []
            for n in range(50):
                result = materialize([noisy], instance=instance)
                assert result.success
                run_ids.append(result.run_id)
                lines.append(prune_runs(instance, KEEP))
                sizes.append(_size(storage))
            kept = [r.dagster_run.run_id for r in instance.get_run_records()]
            # run databases on disk: one per kept run (history/runs/<run_id>.db), and the index
            # (looked at first: asking Dagster for a deleted run's logs creates its file again)
            run_files = {p.stem for p in (storage / "history" / "runs").glob("*.db")} - {"index"}
            assert run_files == set(run_ids[-KEEP:])
            # the newest KEEP runs, with their events; the others gone with theirs
            assert sorted(kept) == sorted(run_ids[-KEEP:])
            assert instance.all_logs(run_ids[-1])
            assert not instance.all_logs(run_ids[0])
    # the first KEEP runs delete nothing; the sixth deletes one
    assert lines[:KEEP] == [None] * KEEP
    assert lines[KEEP].startswith(f"Dagster instance: removed 1 run older than the last {KEEP}")
    # within the bound: after 50 runs at most twice the size with KEEP runs recorded
    assert sizes[-1] <= 2 * sizes[KEEP - 1], (sizes[KEEP - 1], sizes[-1])


def test_runs_in_progress_are_never_deleted(tmp_path):
    with DagsterInstance.ephemeral() as instance:
        for _ in range(3):
            assert materialize([noisy], instance=instance).success
        queued = create_run_for_test(instance, job_name="started", status=DagsterRunStatus.STARTED)
        assert prune_runs(instance, 1).startswith("Dagster instance: removed 2 runs")
        ids = {r.dagster_run.run_id for r in instance.get_run_records()}
        assert queued.run_id in ids and len(ids) == 2


@pytest.mark.parametrize("raw, expected", [("", DEFAULT_KEEP), ("7", 7), (" 3 ", 3)])
def test_the_setting_has_a_default(raw, expected):
    with mock.patch.dict(os.environ, {KEEP_ENV: raw}):
        assert keep_runs() == expected


@pytest.mark.parametrize("raw", ["0", "-2", "ten", "2.5"])
def test_a_bad_setting_is_refused_by_name(raw):
    with mock.patch.dict(os.environ, {KEEP_ENV: raw}):
        with pytest.raises(ValueError, match=f"{KEEP_ENV}='{raw}': give the number of runs"):
            keep_runs()
