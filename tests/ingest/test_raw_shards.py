"""A capture parsed in byte ranges is stored as shards (pipeline/ingest/store.py): one Parquet file per
range in ``<key>.shards/`` beside a head file that holds no rows and the registry entry. The
head is renamed last, and shards are read only beside their head, so a kill between the two
renames leaves nothing that is read, and the next ingest repairs it."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from pipeline.ingest.formats import netdev
from pipeline.ingest.runner import columns_of, ingest_files
from pipeline.ingest.scan import scan_campaign
from pipeline.ingest.store import REGISTRY_KEY, RawStore, shard_dir

from conftest import REPO

ROW = "  eth0: {rx} 2 0 0 0 0 0 0 {tx} 4 0 0 0 0 0 0\n"


def _capture(samples: int, bad: dict[int, str] | None = None) -> str:
    """Line 1 the header; sample k's '@' on line 2 + 2k, its eth0 line on 3 + 2k."""
    text = "# procnetdev-capture v1\n"
    for k in range(samples):
        text += f"@ {100 + k}.5\n" + ROW.format(rx=1000 * k, tx=10 * k) + (bad or {}).get(k, "")
    return text


@pytest.fixture
def three_ranges(monkeypatch):
    """Every capture is cut in three ranges (one per DuckDB thread) however small."""
    monkeypatch.setattr(netdev, "RANGE_BYTES", 1)
    real = duckdb.connect

    def connect(*args, **kwargs):
        con = real(*args, **kwargs)
        con.execute("set threads = 3")
        return con
    monkeypatch.setattr(duckdb, "connect", connect)


def _campaign(tmp_path: Path, files: dict[str, str]) -> Path:
    folder = tmp_path / "raw" / "deployments" / "c"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "manifest.yaml").write_text(
        "campaign: c\nkind: deployment\nprovenance: captured\nfiles:\n"
        + "".join(f"  - {{path: {n}, format: netdev, context: {{host: h}}}}\n" for n in files))
    for name, text in files.items():
        (folder / name).write_text(text)
    return tmp_path / "raw"


def _ingest(tmp_path: Path):
    store = RawStore(tmp_path / "store")
    listed = scan_campaign(tmp_path / "raw", "deployments", "c", {"netdev"}).files
    return store, ingest_files(store, netdev.FORMAT, tmp_path / "raw", "c", listed)


def _rows(store: RawStore) -> list[tuple]:
    con = duckdb.connect()
    return con.execute(f"select source_line, sample_unix_s, rx_bytes from "
                       f"({store.relation('c', 'raw_netdev', columns_of(netdev.FORMAT))}) "
                       "order by source_line").fetchall()


def test_a_capture_in_three_ranges_is_three_shards_beside_a_head_without_rows(tmp_path,
                                                                               three_ranges):
    _campaign(tmp_path, {"big.netdev": _capture(40)})
    store, summary = _ingest(tmp_path)
    assert (summary.parsed, summary.rows) == (1, 40)
    (head,) = store.heads("c", "raw_netdev")
    shards = sorted(shard_dir(head).iterdir())
    assert [p.name for p in shards] == ["0000.parquet", "0001.parquet", "0002.parquet"]
    con = duckdb.connect()
    assert con.execute("select count(*) from read_parquet(?)", [str(head)]).fetchall() == [(0,)]
    footer = con.execute("select decode(value) from parquet_kv_metadata(?) where decode(key) = ?",
                         [str(head), REGISTRY_KEY]).fetchall()[0][0]
    assert '"rows_ingested": 40' in footer and '"shards": 3' in footer
    # every range's rows carry the file's line numbers, not the range's
    assert _rows(store) == [(3 + 2 * k, 100.5 + k, 1000 * k) for k in range(40)]
    per_shard = [con.execute("select count(*) from read_parquet(?)", [str(p)]).fetchall()[0][0]
                 for p in shards]
    assert sum(per_shard) == 40 and all(per_shard)
    assert [e["rows_ingested"] for e in store.registry("c", ["raw_netdev"])] == [40]
    # nothing temporary is left, and a second ingest parses nothing
    assert [p.name for p in head.parent.iterdir() if p.name.startswith(".")] == []
    assert _ingest(tmp_path)[1].skipped == 1


def test_a_bad_line_in_a_later_range_quarantines_the_capture_by_its_line(tmp_path, three_ranges):
    # after sample 33's eth0 line (3 + 2·33 = 69) comes the bad line: line 70
    _campaign(tmp_path, {"bad.netdev": _capture(40, {33: "  eth1: 1 2 3\n"}),
                         "good.netdev": _capture(5)})
    store, summary = _ingest(tmp_path)
    assert (summary.parsed, summary.quarantined) == (1, 1)
    entries = {e["source_file"]: e for e in store.registry("c", ["raw_netdev"])}
    assert entries["deployments/c/bad.netdev"]["reason"].startswith(
        "deployments/c/bad.netdev:70: expected an interface line")
    assert entries["deployments/c/good.netdev"]["rows_ingested"] == 5
    folder = store.table_dir("c", "raw_netdev")
    assert [p.name for p in folder.iterdir() if p.name.startswith(".")] == []
    # the good capture has its shards; the quarantined one only its (empty) head
    assert len(store.heads("c", "raw_netdev")) == 2
    assert len([p for p in folder.iterdir() if p.name.endswith(".shards")]) == 1


def test_a_changed_or_removed_capture_takes_its_shards_with_it(tmp_path, three_ranges):
    raw = _campaign(tmp_path, {"big.netdev": _capture(40)})
    store, _ = _ingest(tmp_path)
    (old,) = store.heads("c", "raw_netdev")
    (raw / "deployments" / "c" / "big.netdev").write_text(_capture(30))   # new bytes, new key
    _ingest(tmp_path)
    (new,) = store.heads("c", "raw_netdev")
    assert new != old and not shard_dir(old).exists() and shard_dir(new).is_dir()
    assert len(_rows(store)) == 30
    _campaign(tmp_path, {})                                             # off the manifest
    summary = _ingest(tmp_path)[1]
    assert summary.removed == 1
    assert list(store.table_dir("c", "raw_netdev").iterdir()) == []


KILLED = """
import duckdb, sys
from pathlib import Path
from pipeline.ingest.formats import netdev
from pipeline.ingest.runner import ingest_files
from pipeline.ingest.scan import scan_campaign
from pipeline.ingest.store import RawStore
netdev.RANGE_BYTES = 1
real = duckdb.connect
def connect(*a, **k):
    con = real(*a, **k)
    con.execute("set threads = 3")
    return con
duckdb.connect = connect
root = Path(sys.argv[1])
listed = scan_campaign(root / "raw", "deployments", "c", {"netdev"}).files
ingest_files(RawStore(root / "store"), netdev.FORMAT, root / "raw", "c", listed)
"""


def test_a_kill_between_the_shards_and_the_head_leaves_nothing_read(tmp_path, three_ranges):
    _campaign(tmp_path, {"big.netdev": _capture(40)})
    env = {**os.environ, "INTERCONNECT_FAULT": "ingest:shards-renamed"}
    run = subprocess.run([sys.executable, "-c", KILLED, str(tmp_path)], cwd=REPO, env=env,
                         capture_output=True, text=True)
    assert run.returncode == -9, run.stderr            # killed at that very point
    store = RawStore(tmp_path / "store")
    folder = store.table_dir("c", "raw_netdev")
    # the shards are in place, the head is not: nothing is read, no registry entry
    assert [p.name for p in folder.iterdir() if p.name.endswith(".shards")] != []
    assert store.heads("c", "raw_netdev") == [] and store.files("c", "raw_netdev") == []
    assert store.registry("c", ["raw_netdev"]) == [] and _rows(store) == []
    # the next ingest removes the leftovers and stores the capture whole
    summary = _ingest(tmp_path)[1]
    assert (summary.parsed, summary.rows) == (1, 40)
    assert _rows(store) == [(3 + 2 * k, 100.5 + k, 1000 * k) for k in range(40)]
    (head,) = store.heads("c", "raw_netdev")
    assert sorted(p.name for p in folder.iterdir()) == [head.name, shard_dir(head).name]
