"""An unreadable SQLite file of the Dagster instance is moved aside with a line naming it
(pipeline/orchestration/instance_heal.py); readable and empty ones are left alone."""
from __future__ import annotations

import sqlite3

from pipeline.orchestration.instance_heal import heal_instance


def _db(path, rows=3):
    path.parent.mkdir(parents=True, exist_ok=True)
    con = sqlite3.connect(path)
    con.execute("create table runs (id integer)")
    con.executemany("insert into runs values (?)", [(i,) for i in range(rows)])
    con.commit()
    con.close()


def test_garbage_and_a_cut_file_are_moved_aside_and_named(tmp_path):
    home = tmp_path / ".dagster_home"
    good, garbage, cut, empty = (home / "storage/history/runs.db",
                                 home / "storage/history/runs/index.db",
                                 home / "storage/schedules/schedules.db",
                                 home / "storage/history/runs/new.db")
    _db(good)
    garbage.parent.mkdir(parents=True)
    garbage.write_bytes(b"this is not a database at all" * 200)
    _db(cut, rows=5000)
    cut.write_bytes(b"SQLite format 3\x00" + b"\x00" * 84)   # a header and nothing after it
    (cut.with_name("schedules.db-wal")).write_bytes(b"wal")
    empty.write_bytes(b"")
    lines = heal_instance(home)
    assert len(lines) == 2 and all("\n" not in line for line in lines)
    assert lines[0].startswith(f"{garbage}: SQLite cannot read it (file is not a database); "
                               "moved aside to index.db.unreadable-")
    assert lines[1].startswith(f"{cut}: SQLite cannot read it (")
    assert not garbage.exists() and not cut.exists() and not cut.with_name("schedules.db-wal").exists()
    assert good.exists() and empty.exists()
    aside = sorted(p.name.split(".unreadable-")[0] + p.name.split(".unreadable-")[1][16:]
                   for p in home.rglob("*.unreadable-*"))
    # the two databases and the WAL beside one (and the -shm SQLite made reading it, if it did)
    assert {"index.db", "schedules.db", "schedules.db-wal"} <= set(aside) <= {
        "index.db", "schedules.db", "schedules.db-wal", "schedules.db-shm"}
    assert heal_instance(home) == []                          # what is left reads
