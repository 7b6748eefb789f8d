"""The project's SQLite event log writes a batch of events in one transaction a database
(pipeline/orchestration/run_storage.py, store_event_batch): Dagster hands it the planned
materializations of a run and one output's materializations over its partitions once
DAGSTER_EVENT_BATCH_SIZE is set, which the storage does. What Dagster reads back is what it
wrote one event at a time; a batch that fails keeps nothing."""
from __future__ import annotations

import os
import shutil
from unittest import mock

import pytest
from dagster import (
    AssetKey,
    DagsterEventType,
    DagsterInstance,
    StaticPartitionsDefinition,
    asset,
    materialize,
)
from dagster._core.storage.tags import ASSET_PARTITION_RANGE_END_TAG, ASSET_PARTITION_RANGE_START_TAG
from sqlalchemy import event
from sqlalchemy.engine import Engine

from pipeline.orchestration.run_storage import BATCH_ENV, BATCH_SIZE, KeptOpenEventLogStorage, SqliteStorage

from conftest import REPO
from event_log import log_entry, messages

PARTS = StaticPartitionsDefinition(["a", "b", "c", "d", "e"])


@asset(partitions_def=PARTS)
def parted(context) -> None:
    assert context.partition_keys == ["a", "b", "c", "d", "e"]


@pytest.fixture
def commits():
    """How many transactions were committed on any SQLAlchemy engine while the test ran."""
    counted: list[int] = []

    def count(conn):
        counted.append(1)

    event.listen(Engine, "commit", count)
    yield counted
    event.remove(Engine, "commit", count)


def test_a_batch_is_one_transaction_and_one_by_one_is_one_an_event(tmp_path, commits):
    storage = KeptOpenEventLogStorage(str(tmp_path))
    storage.store_event(log_entry("run-a", "opens the database"))
    commits.clear()
    storage.store_event_batch([log_entry("run-a", f"batched {k}") for k in range(30)])
    assert len(commits) == 1                      # the run's database, once
    commits.clear()
    for k in range(30):
        storage.store_event(log_entry("run-a", f"alone {k}"))
    assert len(commits) == 30
    assert messages(storage, "run-a") == (["opens the database"]
                                           + [f"batched {k}" for k in range(30)]
                                           + [f"alone {k}" for k in range(30)])
    storage.dispose()


def test_a_failed_batch_keeps_nothing_and_the_storage_goes_on(tmp_path):
    storage = KeptOpenEventLogStorage(str(tmp_path))
    storage.store_event(log_entry("run-a", "before"))
    real = KeptOpenEventLogStorage.prepare_insert_event

    def failing(self, entry):
        if entry.user_message == "third":
            raise RuntimeError("the disk is full")
        return real(self, entry)

    with mock.patch.object(KeptOpenEventLogStorage, "prepare_insert_event", failing):
        with pytest.raises(RuntimeError, match="the disk is full"):
            storage.store_event_batch([log_entry("run-a", m) for m in ("first", "second", "third")])
    assert messages(storage, "run-a") == ["before"]           # first and second rolled back
    storage.store_event_batch([log_entry("run-a", "after")])
    storage.store_event(log_entry("run-a", "alone"))
    assert messages(storage, "run-a") == ["before", "after", "alone"]
    storage.dispose()


def test_the_storage_asks_for_batches_unless_the_user_set_the_size(tmp_path, monkeypatch):
    monkeypatch.delenv(BATCH_ENV, raising=False)
    SqliteStorage(str(tmp_path / "one")).dispose()
    assert os.environ[BATCH_ENV] == str(BATCH_SIZE)
    monkeypatch.setenv(BATCH_ENV, "0")                        # the user's: no batches
    SqliteStorage(str(tmp_path / "two")).dispose()
    assert os.environ[BATCH_ENV] == "0"


def _run_over_partitions(home, monkeypatch, commits, size: str) -> dict:
    """One run of ``parted`` over its five partitions in a new instance at ``home`` (the
    project's dagster.yaml), with DAGSTER_EVENT_BATCH_SIZE ``size``: what Dagster reads back,
    and how many transactions the run committed."""
    monkeypatch.setenv(BATCH_ENV, size)
    home.mkdir()
    shutil.copy(REPO / "config" / "dagster.yaml", home / "dagster.yaml")
    monkeypatch.setenv("DAGSTER_HOME", str(home))
    key = AssetKey("parted")
    with DagsterInstance.get() as instance:
        commits.clear()
        result = materialize([parted], instance=instance, tags={
            ASSET_PARTITION_RANGE_START_TAG: "a", ASSET_PARTITION_RANGE_END_TAG: "e"})
        made = len(commits)
        storage = instance.event_log_storage
        logged = [e for e in storage.get_logs_for_run(result.run_id) if e.is_dagster_event]
        return {
            "success": result.success, "commits": made,
            "materialized": instance.get_materialized_partitions(key),
            # one planned event a partition either way: what marks a failed run's partitions
            "planned": sorted(e.dagster_event.event_specific_data.partition for e in logged
                              if e.dagster_event_type == DagsterEventType.ASSET_MATERIALIZATION_PLANNED),
            "unfinished": storage.get_latest_asset_partition_materialization_attempts_without_materializations(key),
            "events": [e.dagster_event_type for e in logged]}


def test_a_run_over_partitions_reads_back_the_same_with_batches(tmp_path, monkeypatch, commits):
    alone = _run_over_partitions(tmp_path / "alone", monkeypatch, commits, "0")
    batched = _run_over_partitions(tmp_path / "batched", monkeypatch, commits, str(BATCH_SIZE))
    for got in (alone, batched):
        assert got["success"] and got["materialized"] == {"a", "b", "c", "d", "e"}
        assert got["planned"] == ["a", "b", "c", "d", "e"] and got["unfinished"] == {}
    assert batched["events"] == alone["events"]            # the same events, in the same order
    # 5 planned and 5 materialization events, each written into the run's database and the
    # index: 20 transactions one by one, 2 + 2 in the two batches (the run's other events are
    # written one by one both ways)
    assert alone["commits"] - batched["commits"] == 20 - 4
