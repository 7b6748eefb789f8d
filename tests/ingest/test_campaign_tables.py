"""A campaign's manifest and file list as the raw tables ``raw_campaigns`` and ``raw_files``
(pipeline/ingest/campaign_tables.py): every column of every row read back from the Parquet
files the scan writes, for a good manifest, a missing one and a broken one."""
from __future__ import annotations

import datetime as dt
import hashlib
import json

import duckdb

from pipeline.ingest.campaign_tables import write_campaign
from pipeline.ingest.scan import scan_campaign
from pipeline.ingest.store import RawStore

MANIFEST = """campaign: p1
kind: p2p
title: Two boxes
date: 2026-03-04
provenance: captured
hosts: {b: {role: receiver}, a: {role: sender, nic: eth0}}
links: {l1: {from: a, to: b}}
params: {mtu: 9000}
files:
  - {path: ping.txt, format: ping, context: {link: l1, host: a}}
"""


def _campaign(raw, name="p1", manifest=MANIFEST, files=None):
    folder = raw / "p2p" / name
    folder.mkdir(parents=True)
    for rel, data in (files if files is not None else {"ping.txt": b"abc", "notes.md": b"hello"}).items():
        (folder / rel).write_bytes(data)
    if manifest is not None:
        (folder / "manifest.yaml").write_text(manifest)
    return scan_campaign(raw, "p2p", name, {"ping"})


def _rows(store: RawStore, name: str, table: str) -> list[dict]:
    con = duckdb.connect()
    path = store.table_dir(name, table) / "manifest.parquet"
    cur = con.execute(f"select * from read_parquet('{path}') order by all")
    cols = [d[0] for d in cur.description]
    return [dict(zip(cols, r)) for r in cur.fetchall()]


def test_a_good_manifest_is_one_campaign_row_and_one_row_a_file(tmp_path):
    raw, store = tmp_path / "raw_data", RawStore(tmp_path / "store")
    scan = _campaign(raw)
    write_campaign(store, scan)
    (row,) = _rows(store, "p1", "raw_campaigns")
    assert {k: v for k, v in row.items() if k not in ("hosts", "links", "params")} == {
        "campaign": "p1", "area": "p2p", "kind": "p2p", "title": "Two boxes",
        "date": dt.date(2026, 3, 4), "provenance": "captured",
        "manifest_file": "p2p/p1/manifest.yaml", "manifest_status": "ok",
        "manifest_problem": None, "content_sha256": scan.content_sha256,
        "manifest_sha256": hashlib.sha256(MANIFEST.encode()).hexdigest()}
    assert json.loads(row["hosts"]) == {"a": {"role": "sender", "nic": "eth0"}, "b": {"role": "receiver"}}
    assert json.loads(row["links"]) == {"l1": {"from": "a", "to": "b"}}
    assert json.loads(row["params"]) == {"mtu": 9000}
    assert len(scan.content_sha256) == 64
    files = _rows(store, "p1", "raw_files")
    assert files == [
        {"source_file": "p2p/p1/notes.md", "campaign": "p1", "format": None,
         "manifest_status": "unlisted",
         "reason": "p2p/p1/notes.md: not listed in p2p/p1/manifest.yaml, so its context is unknown",
         "context": "{}", "size_bytes": 5, "sha256": hashlib.sha256(b"hello").hexdigest()},
        {"source_file": "p2p/p1/ping.txt", "campaign": "p1", "format": "ping",
         "manifest_status": "listed", "reason": None,
         "context": '{"host": "a", "link": "l1"}',          # keys sorted: the same text each scan
         "size_bytes": 3, "sha256": hashlib.sha256(b"abc").hexdigest()},
    ]


def test_a_folder_without_manifest_is_a_campaign_row_that_says_so(tmp_path):
    raw, store = tmp_path / "raw_data", RawStore(tmp_path / "store")
    write_campaign(store, _campaign(raw, "p2", manifest=None, files={"x.txt": b"1"}))
    (row,) = _rows(store, "p2", "raw_campaigns")
    assert (row["campaign"], row["area"], row["kind"], row["manifest_status"]) == ("p2", "p2p", "p2p", "no_manifest")
    assert row["manifest_problem"] == "p2p/p2: no manifest.yaml gives these files their context"
    assert (row["title"], row["date"], row["provenance"], row["manifest_sha256"]) == (None, None, None, None)
    assert (row["hosts"], row["links"], row["params"]) == ("{}", "{}", "{}")
    (f,) = _rows(store, "p2", "raw_files")
    assert (f["source_file"], f["manifest_status"], f["reason"], f["size_bytes"]) == \
        ("p2p/p2/x.txt", "no_manifest", row["manifest_problem"], 1)


def test_a_broken_manifest_is_a_bad_manifest_row_with_its_problem(tmp_path):
    raw, store = tmp_path / "raw_data", RawStore(tmp_path / "store")
    broken = MANIFEST.replace("kind: p2p", "kind: deployment")
    write_campaign(store, _campaign(raw, manifest=broken))
    (row,) = _rows(store, "p1", "raw_campaigns")
    assert row["manifest_status"] == "bad_manifest"
    assert "kind: expected 'p2p'" in row["manifest_problem"]
    assert row["title"] is None and row["manifest_sha256"] == hashlib.sha256(broken.encode()).hexdigest()
    assert {f["manifest_status"] for f in _rows(store, "p1", "raw_files")} == {"bad_manifest"}


def test_an_empty_campaign_folder_writes_a_file_table_without_rows(tmp_path):
    raw, store = tmp_path / "raw_data", RawStore(tmp_path / "store")
    write_campaign(store, _campaign(raw, manifest=MANIFEST.split("files:")[0] + "files: []\n", files={}))
    assert _rows(store, "p1", "raw_files") == []
    con = duckdb.connect()
    path = store.table_dir("p1", "raw_files") / "manifest.parquet"
    names = [r[0] for r in con.execute(f"describe select * from read_parquet('{path}')").fetchall()]
    assert names == ["source_file", "campaign", "format", "manifest_status", "reason", "context",
                     "size_bytes", "sha256"]


def test_the_frames_have_the_raw_tables_columns_in_order_even_when_empty(tmp_path):
    from pipeline.ingest.campaign_tables import campaign_frame, files_frame
    from pipeline.ingest.store import CAMPAIGN_COLUMNS, FILE_COLUMNS
    scan = _campaign(tmp_path / "raw_data", files={})
    assert list(campaign_frame(scan).columns) == list(CAMPAIGN_COLUMNS)
    scan = _campaign(tmp_path / "raw_data", name="p2", manifest=None, files={})
    # a folder of no data file: no row, and still every column (the Parquet file's schema)
    frame = files_frame(scan)
    assert len(frame) == 0 and list(frame.columns) == list(FILE_COLUMNS)
