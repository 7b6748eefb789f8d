"""The Dagster instance's SQLite storage, with the event log's databases kept open.

Dagster's own SQLite event log (``SqliteEventLogStorage``) creates a SQLAlchemy engine, opens
the database, writes and closes it again for every event, twice for an asset event (the run's
database and the cross-run index): no statement is ever compiled once for the next event, and
closing the last connection of a WAL database checkpoints it. A run of the raw layer writes
about 370 events, a full build well over a thousand: most of a Dagster step's own time.

``SqliteStorage`` is Dagster's ``DagsterSqliteStorage`` (the same files under the same folder,
so an existing instance is read and written unchanged) whose event log keeps one engine and
its open connection for the index and for the latest run databases, and which opens a database
that is stamped with a schema revision already without reading alembic's scripts (``stamped``).
Named in
``config/dagster.yaml``::

    storage:
      custom:
        module: pipeline.orchestration.run_storage
        class: SqliteStorage
        config: {}            # base_dir: default $DAGSTER_HOME/storage, Dagster's own default

Batches of events are written in one transaction a database (``store_event_batch``): Dagster
hands the storage a run's planned materializations (one per asset and partition) and one
output's materializations over its partitions as batches once ``DAGSTER_EVENT_BATCH_SIZE`` is
set, which ``SqliteStorage`` does unless the user set it (0: no batches). Each event is still its
own row, read back as before; a batch that fails keeps none of its events, and Dagster then
writes them one by one.

Several processes still write the same files at once (the steps of the multiprocess executor,
Celery workers, the webserver): SQLite's own locking and WAL journal are unchanged, a forked
process opens its own connections, and every write is still one committed transaction.
"""
from __future__ import annotations

import os
import sqlite3
import threading
from collections import OrderedDict
from contextlib import closing, contextmanager
from typing import Iterator

from dagster import Field
from dagster._config import StringSource
from dagster._core.storage.event_log.sqlite.sqlite_event_log import (
    INDEX_SHARD_NAME,
    SqliteEventLogStorage,
)
from dagster._core.storage.runs.sqlite.sqlite_run_storage import SqliteRunStorage
from dagster._core.storage.schedules.sqlite.sqlite_schedule_storage import SqliteScheduleStorage
from dagster._core.storage.sqlite import SQLITE_BUSY_TIMEOUT_SECONDS, create_db_conn_string
from dagster._core.storage.sqlite_storage import DagsterSqliteStorage
from dagster._serdes import ConfigurableClassData
from dagster._utils import mkdir_p
from sqlalchemy import create_engine
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.pool import NullPool, QueuePool

# Dagster's setting for handing the storage batches of events (store_event_batch), and the
# largest batch: the planned events of a run over a few hundred campaigns
BATCH_ENV, BATCH_SIZE = "DAGSTER_EVENT_BATCH_SIZE", 10_000

# Run databases kept open besides the index: a run writes to its own, a webserver reads many
# (each open database is a file descriptor; older ones are closed first)
OPEN_RUN_DATABASES = 4


def stamped(path: str, *tables: str) -> bool:
    """Whether the SQLite database at ``path`` carries a schema revision and has ``tables``.

    Dagster's SQLite storages create a database's tables when it has no revision and leave it
    alone when it has one, but ask alembic which revision is the head first, which reads
    Dagster's ~90 migration scripts (about 25 ms; four databases in every process, every step's
    included). A database that is stamped already is left alone here without that question;
    one that is not goes through Dagster's own code, as before. Migrating an older one stays
    ``dagster instance migrate``'s job, as it is with Dagster's storage."""
    if not os.path.isfile(path):
        return False
    try:
        with closing(sqlite3.connect(path, timeout=SQLITE_BUSY_TIMEOUT_SECONDS)) as con:
            if not con.execute("select version_num from alembic_version").fetchone():
                return False
            have = {row[0] for row in con.execute(
                "select name from sqlite_master where type = 'table'")}
    except sqlite3.Error:
        return False
    return all(table in have for table in tables)


def _opened(storage_class, folder: str, name: str, *tables: str):
    """Dagster's run or schedule storage on ``folder/name.db``: opened directly when it is
    stamped and has ``tables``, else created or checked by Dagster's own ``from_local``."""
    if stamped(os.path.join(folder, f"{name}.db"), *tables):
        return storage_class(create_db_conn_string(folder, name))
    return storage_class.from_local(folder)


@contextmanager
def _creating(base_dir: str) -> Iterator[None]:
    """One process at a time opens (and, the first time, creates) the databases."""
    import fcntl
    mkdir_p(base_dir)
    with open(os.path.join(base_dir, ".opening.lock"), "a") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


class KeptOpenEventLogStorage(SqliteEventLogStorage):
    """``SqliteEventLogStorage`` whose databases stay open between events (see the module)."""

    def __init__(self, base_dir: str, inst_data: ConfigurableClassData | None = None):
        self._engines: OrderedDict[str, Engine] = OrderedDict()
        self._pid = os.getpid()
        self._batch: dict[str, Connection] | None = None
        self._tables: set[str] = set()        # index tables seen to exist (has_table)
        super().__init__(base_dir, inst_data)
        self._db_lock = threading.RLock()       # a batch holds it across its events

    @contextmanager
    def _connect(self, shard: str) -> Iterator[Connection]:
        with self._db_lock:
            if self._batch is not None:         # inside store_event_batch: its transaction
                if (conn := self._batch.get(shard)) is None:
                    conn = self._batch[shard] = self._engine(shard).connect()
                    conn.begin()
                yield conn
                return
            engine = self._engine(shard)
            with engine.connect() as conn:
                with conn.begin():
                    yield conn

    def store_event_batch(self, events) -> None:
        """A batch of events in one transaction a database, not one (two for an asset event)
        an event. Dagster hands batches when ``DAGSTER_EVENT_BATCH_SIZE`` is set (SqliteStorage
        sets it): a run's planned materializations (one per asset and partition: 721 for the
        campaign models of 8 campaigns) and one output's materializations over its partitions.
        On any error nothing of the batch is kept, and Dagster stores the events one by one."""
        with self._db_lock:
            self._batch = {}
            try:
                for event in events:
                    self.store_event(event)
                # the run's database first, the cross-run index last (as store_event writes)
                for shard in sorted(self._batch, key=lambda name: name == INDEX_SHARD_NAME):
                    self._batch[shard].commit()
            except BaseException:
                for conn in self._batch.values():
                    conn.rollback()
                raise
            finally:
                for conn in self._batch.values():
                    conn.close()
                self._batch = None

    def has_table(self, table_name: str) -> bool:
        """Whether the index has ``table_name``. Dagster asks for every asset event with tags
        (``asset_event_tags``), each time on a new engine and connection; a table found once is
        remembered (tables are added by ``dagster instance migrate``, never dropped), a missing
        one is asked about again."""
        if table_name in self._tables:
            return True
        found = super().has_table(table_name)
        if found:
            self._tables.add(table_name)
        return found

    def _engine(self, shard: str) -> Engine:
        if self._pid != os.getpid():
            # a forked process: the connections belong to the parent, which still uses them
            for engine in self._engines.values():
                engine.dispose(close=False)
            self._engines.clear()
            self._pid = os.getpid()
        engine = self._engines.get(shard)
        if engine is not None:
            self._engines.move_to_end(shard)
            return engine
        url = self.conn_string_for_shard(shard)
        if shard not in self._initialized_dbs:
            if not stamped(self.path_for_shard(shard), "event_logs"):
                # created as Dagster does, on connections of their own
                self._initdb(create_engine(url, poolclass=NullPool,
                                           connect_args={"timeout": SQLITE_BUSY_TIMEOUT_SECONDS}))
            self._initialized_dbs.add(shard)
        engine = create_engine(url, poolclass=QueuePool, pool_size=1, max_overflow=0,
                               connect_args={"timeout": SQLITE_BUSY_TIMEOUT_SECONDS})
        self._engines[shard] = engine
        runs = [name for name in self._engines if name != INDEX_SHARD_NAME]
        for name in runs[:-OPEN_RUN_DATABASES]:
            self._engines.pop(name).dispose()
        return engine

    def _close(self, keep_index: bool) -> None:
        with self._db_lock:
            for name in [n for n in self._engines if not (keep_index and n == INDEX_SHARD_NAME)]:
                self._engines.pop(name).dispose()

    def wipe(self) -> None:
        self._close(keep_index=True)      # the run databases' files are deleted next
        super().wipe()

    def delete_events(self, run_id: str) -> None:
        """Dagster deletes the run's rows and leaves its database file: the file goes too."""
        super().delete_events(run_id)
        with self._db_lock:
            if (engine := self._engines.pop(run_id, None)) is not None:
                engine.dispose()
        path = self.path_for_shard(run_id)
        for suffix in ("", "-wal", "-shm"):
            try:
                os.unlink(path + suffix)
            except FileNotFoundError:
                pass
        self._initialized_dbs.discard(run_id)

    def compact_index(self, free_share: float = 0.25) -> int:
        """VACUUM the cross-run index when more than ``free_share`` of its pages are free
        (deleted runs leave them); returns the bytes it gave back."""
        path = self.path_for_shard(INDEX_SHARD_NAME)
        if not os.path.isfile(path):
            return 0
        with self._db_lock:
            if (engine := self._engines.pop(INDEX_SHARD_NAME, None)) is not None:
                engine.dispose()
            with closing(sqlite3.connect(path, timeout=SQLITE_BUSY_TIMEOUT_SECONDS)) as con:
                pages = con.execute("pragma page_count").fetchone()[0]
                free = con.execute("pragma freelist_count").fetchone()[0]
                if not pages or free / pages <= free_share:
                    return 0
                before = os.path.getsize(path)
                con.execute("vacuum")
            return max(0, before - os.path.getsize(path))

    def dispose(self) -> None:
        self._close(keep_index=False)
        super().dispose()


class SqliteStorage(DagsterSqliteStorage):
    """Dagster's SQLite storage (runs, schedules, event log under ``base_dir``) with the event
    log of ``KeptOpenEventLogStorage``."""

    def __init__(self, base_dir: str, inst_data: ConfigurableClassData | None = None):
        # DagsterSqliteStorage.__init__, with the event log storage replaced and the run and
        # schedule databases opened without the schema question when they are stamped already
        self.base_dir = base_dir
        # processes that open a new instance at once (the steps of the multiprocess executor)
        # would each create its tables: "table asset_daemon_asset_evaluations already exists"
        with _creating(base_dir):
            self._run_storage = _opened(SqliteRunStorage, os.path.join(base_dir, "history", ""),
                                        "runs", "runs", "instance_info")
            self._event_log_storage = KeptOpenEventLogStorage(
                os.path.join(base_dir, "history", "runs", ""))
            self._schedule_storage = _opened(SqliteScheduleStorage,
                                             os.path.join(base_dir, "schedules"), "schedules",
                                             "jobs")
        self._inst_data = inst_data
        super(DagsterSqliteStorage, self).__init__()
        # Dagster writes the event batches it makes one event at a time unless this is set
        os.environ.setdefault(BATCH_ENV, str(BATCH_SIZE))

    @classmethod
    def config_type(cls):
        return {"base_dir": Field(StringSource, is_required=False)}

    @classmethod
    def from_config_value(cls, inst_data, config_value) -> "SqliteStorage":
        base_dir = config_value.get("base_dir")
        if not base_dir:
            home = os.environ.get("DAGSTER_HOME")
            if not home:
                raise ValueError(f"{__name__}.{cls.__name__}: its config has no base_dir and "
                                 f"DAGSTER_HOME is not set; set DAGSTER_HOME to the instance's "
                                 f"folder (its storage is then DAGSTER_HOME/storage) or give "
                                 f"base_dir")
            base_dir = os.path.join(home, "storage")
        mkdir_p(base_dir)
        return cls(base_dir, inst_data=inst_data)
