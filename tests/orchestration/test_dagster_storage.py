"""The instance storage named in config/dagster.yaml (pipeline/orchestration/run_storage.py): Dagster's own
SQLite files, with the event log's databases kept open between events."""
from __future__ import annotations

import os
import shutil
from pathlib import Path
from unittest import mock

import pytest
from dagster import AssetKey, DagsterInstance, asset, materialize
from dagster._core.storage.event_log.sqlite import sqlite_event_log
from dagster._core.storage.sqlite_storage import DagsterSqliteStorage

from pipeline.orchestration import run_storage as dagster_storage
from pipeline.orchestration.run_storage import (
    OPEN_RUN_DATABASES,
    KeptOpenEventLogStorage,
    SqliteStorage,
)

from conftest import REPO
from event_log import log_entry, messages


@asset
def little() -> int:
    return 1


def test_the_project_config_names_this_storage_and_dagster_reads_what_it_wrote(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    shutil.copy(REPO / "config" / "dagster.yaml", home / "dagster.yaml")
    with mock.patch.dict(os.environ, {"DAGSTER_HOME": str(home)}):
        with DagsterInstance.get() as instance:
            assert isinstance(instance.event_log_storage, KeptOpenEventLogStorage)
            result = materialize([little], instance=instance)
            assert result.success
    # Dagster's own SQLite storage, on the same folder, finds the run and its materialization
    stock = DagsterSqliteStorage.from_local(str(home / "storage"))
    try:
        (record,) = stock.run_storage.get_run_records()
        assert record.dagster_run.run_id == result.run_id
        latest = stock.event_log_storage.get_latest_materialization_events([AssetKey("little")])
        assert latest[AssetKey("little")].run_id == result.run_id
    finally:
        stock.dispose()


def test_it_reads_an_instance_that_dagsters_own_storage_wrote(tmp_path):
    stock = DagsterSqliteStorage.from_local(str(tmp_path))
    stock.event_log_storage.store_event(log_entry("run-a", "written by Dagster"))
    stock.dispose()
    ours = SqliteStorage(str(tmp_path))
    try:
        assert messages(ours.event_log_storage, "run-a") == ["written by Dagster"]
    finally:
        ours.dispose()


def test_a_database_is_opened_once_not_for_every_event(tmp_path):
    created = []

    def counting(*args, **kwargs):
        created.append(args[0])
        return real(*args, **kwargs)

    real = dagster_storage.create_engine
    stores = {"kept": KeptOpenEventLogStorage(str(tmp_path / "kept")),
              "dagster": sqlite_event_log.SqliteEventLogStorage(str(tmp_path / "dagster"))}
    counts = {}
    for name, storage in stores.items():
        created.clear()
        with mock.patch.object(dagster_storage, "create_engine", counting), \
                mock.patch.object(sqlite_event_log, "create_engine", counting):
            for k in range(30):
                storage.store_event(log_entry("run-a", f"event {k}"))
        counts[name] = len(created)
        assert messages(storage, "run-a") == [f"event {k}" for k in range(30)]
        storage.dispose()
    # Dagster's: an engine for each of the 30 events (the first also creates the run's
    # database); kept open: one to create (or check) that database, one kept for all 30
    assert counts == {"kept": 2, "dagster": 30}


def test_a_table_found_in_the_index_is_not_looked_up_again(tmp_path):
    asked = []

    def lookup(self, name):         # Dagster's own: a new engine and connection each time
        asked.append(name)
        return name == "asset_event_tags"

    storage = KeptOpenEventLogStorage(str(tmp_path))
    with mock.patch.object(sqlite_event_log.SqliteEventLogStorage, "has_table", lookup):
        found = [storage.has_table("asset_event_tags") for _ in range(3)]
        missing = [storage.has_table("pending_steps") for _ in range(3)]
    assert found == [True] * 3 and missing == [False] * 3
    # found once, remembered; a missing table (a migration may add it) asked each time
    assert asked == ["asset_event_tags"] + ["pending_steps"] * 3
    storage.dispose()


def test_a_run_over_partitions_looks_up_the_tags_table_once(tmp_path, monkeypatch):
    from dagster import StaticPartitionsDefinition
    from dagster._core.storage.tags import (
        ASSET_PARTITION_RANGE_END_TAG,
        ASSET_PARTITION_RANGE_START_TAG,
    )

    @asset(partitions_def=StaticPartitionsDefinition(["a", "b", "c", "d"]))
    def quarters() -> None:
        return None

    asked = []
    real = sqlite_event_log.SqliteEventLogStorage.has_table

    def counting(self, name):
        asked.append(name)
        return real(self, name)

    home = tmp_path / "home"
    home.mkdir()
    shutil.copy(REPO / "config" / "dagster.yaml", home / "dagster.yaml")
    monkeypatch.setenv("DAGSTER_HOME", str(home))
    with DagsterInstance.get() as instance, \
            mock.patch.object(sqlite_event_log.SqliteEventLogStorage, "has_table", counting):
        result = materialize([quarters], instance=instance, tags={
            ASSET_PARTITION_RANGE_START_TAG: "a", ASSET_PARTITION_RANGE_END_TAG: "d"})
        assert result.success
        # the four materializations' tags were indexed, as with Dagster's own storage
        tagged = instance.event_log_storage.get_event_tags_for_asset(AssetKey("quarters"))
        assert len(tagged) == 4
    # each materialization carries tags (its partition's data version...): Dagster asks
    # whether the tags table exists for every one of them; asked here once
    assert asked.count("asset_event_tags") == 1


def test_a_forked_process_opens_its_own_connections_and_leaves_the_parents_alone(tmp_path):
    storage = KeptOpenEventLogStorage(str(tmp_path))
    storage.store_event(log_entry("run-a", "parent, before"))
    inherited = storage._engines["run-a"]     # and its open connection, the parent's
    pid = os.fork()
    if pid == 0:                                  # the child: a step's process of the executor
        code = 1
        try:
            storage.store_event(log_entry("run-a", "child"))
            code = 0 if storage._engines["run-a"] is not inherited else 2
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    storage.store_event(log_entry("run-a", "parent, after"))     # its connection still works
    assert messages(storage, "run-a") == ["parent, before", "child", "parent, after"]
    storage.dispose()


def test_only_the_latest_run_databases_stay_open(tmp_path):
    storage = KeptOpenEventLogStorage(str(tmp_path))
    runs = [f"run-{k}" for k in range(OPEN_RUN_DATABASES + 3)]
    for run_id in runs:
        storage.store_event(log_entry(run_id, run_id))
    open_runs = [name for name in storage._engines if name != "index"]
    assert open_runs == runs[-OPEN_RUN_DATABASES:]
    # a closed one opens again when it is read
    assert messages(storage, runs[0]) == [runs[0]]
    storage.dispose()


def test_wiping_closes_the_run_databases_it_deletes(tmp_path):
    storage = KeptOpenEventLogStorage(str(tmp_path))
    storage.store_event(log_entry("run-a", "old"))
    storage.wipe()
    assert not (tmp_path / "run-a.db").exists()
    storage.store_event(log_entry("run-a", "new"))
    assert messages(storage, "run-a") == ["new"]
    storage.dispose()


def test_without_a_folder_it_says_what_to_set(monkeypatch):
    monkeypatch.delenv("DAGSTER_HOME", raising=False)
    with pytest.raises(ValueError, match="DAGSTER_HOME is not set"):
        SqliteStorage.from_config_value(None, {})


def test_its_folder_is_dagsters_default_under_dagster_home(tmp_path, monkeypatch):
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path))
    storage = SqliteStorage.from_config_value(None, {})
    try:
        storage.event_log_storage.store_event(log_entry("run-a", "here"))
        assert Path(tmp_path / "storage" / "history" / "runs" / "run-a.db").exists()
    finally:
        storage.dispose()


def test_a_stamped_instance_opens_without_reading_the_migration_scripts(tmp_path):
    from alembic.script import ScriptDirectory
    real = ScriptDirectory.from_config.__func__
    reads = []

    def counting(cls, config):
        reads.append(config)
        return real(cls, config)

    new = SqliteStorage(str(tmp_path))               # a new instance: created as Dagster does
    new.event_log_storage.store_event(log_entry("run-a", "new"))
    new.dispose()
    opened = {}
    for name, make in (("ours", SqliteStorage), ("dagster", DagsterSqliteStorage)):
        reads.clear()
        with mock.patch.object(ScriptDirectory, "from_config", classmethod(counting)):
            storage = make(str(tmp_path))
            storage.event_log_storage.store_event(log_entry("run-a", name))
            storage.dispose()
        opened[name] = len(reads)
    # Dagster's storage asks alembic for the head revision for the runs' database, the
    # schedules' and the run's events'; they are stamped already, so this one asks nothing
    assert opened == {"ours": 0, "dagster": 3}
    storage = SqliteStorage(str(tmp_path))
    assert messages(storage.event_log_storage, "run-a") == ["new", "ours", "dagster"]
    storage.dispose()


def test_an_unstamped_database_is_left_to_dagster_to_create(tmp_path):
    from pipeline.orchestration.run_storage import stamped
    path = tmp_path / "x.db"
    assert not stamped(str(path))                   # no file
    path.write_bytes(b"not a database")
    assert not stamped(str(path))                   # not SQLite
    import sqlite3
    path.unlink()
    with sqlite3.connect(path) as con:
        con.execute("create table alembic_version (version_num text)")
    assert not stamped(str(path))                   # no revision in it
    with sqlite3.connect(path) as con:
        con.execute("insert into alembic_version values ('abc')")
    assert stamped(str(path)) and not stamped(str(path), "runs")   # a table is missing
