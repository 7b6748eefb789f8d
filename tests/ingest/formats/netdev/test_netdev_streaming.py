"""The netdev ingest streams: rows go from DuckDB straight into the raw store's Parquet file,
the file is checked before it is renamed into place, and a bad capture leaves nothing behind
but its quarantine entry while the good capture beside it is ingested."""
from pathlib import Path

import duckdb

from pipeline.ingest.formats import netdev
from pipeline.ingest.runner import columns_of, ingest_files
from pipeline.ingest.scan import scan_campaign
from pipeline.ingest.store import REGISTRY_KEY, RawStore

from paths import FIXTURES

FIVE = FIXTURES / "netdev" / "good" / "server-5-samples.txt"
ROW = "  eth0: {rx} 2 0 0 0 0 0 0 {tx} 4 0 0 0 0 0 0\n"


def _capture(samples, bad_line: str | None = None) -> str:
    text = "# procnetdev-capture v1\n"
    for k in range(samples):
        text += f"@ {100 + k}.5\n" + ROW.format(rx=1000 * k, tx=10 * k)
        if bad_line and k == 1:
            text += bad_line
    return text


def _tree(tmp_path, files: dict[str, str]):
    folder = tmp_path / "raw" / "deployments" / "c"
    folder.mkdir(parents=True)
    (folder / "manifest.yaml").write_text(
        "campaign: c\nkind: deployment\nprovenance: captured\nfiles:\n"
        + "".join(f"  - {{path: {n}, format: netdev, context: {{host: h}}}}\n" for n in files))
    for name, text in files.items():
        (folder / name).write_text(text)
    store = RawStore(tmp_path / "store")
    listed = scan_campaign(tmp_path / "raw", "deployments", "c", {"netdev"}).files
    return store, ingest_files(store, netdev.FORMAT, tmp_path / "raw", "c", listed)


def test_streamed_rows_and_registry(tmp_path):
    store, summary = _tree(tmp_path, {"good.netdev": _capture(3)})
    assert (summary.parsed, summary.quarantined, summary.rows) == (1, 0, 3)
    (path,) = store.files("c", "raw_netdev")
    con = duckdb.connect()
    rows = con.execute(store.relation("c", "raw_netdev", columns_of(netdev.FORMAT))
                       + " order by source_line").fetchall()
    # line 1 is the header; sample k is '@' on line 2 + 2k and eth0 on line 3 + 2k
    # columns: source_file, campaign, source_line, sample_unix_s, interface, rx_bytes, …
    assert [(r[0], r[3], r[4], r[5], r[2]) for r in rows] == [
        ("deployments/c/good.netdev", 100.5, "eth0", 0, 3),
        ("deployments/c/good.netdev", 101.5, "eth0", 1000, 5),
        ("deployments/c/good.netdev", 102.5, "eth0", 2000, 7)]
    # the footer has no count (the rows were streamed); the registry takes the file's own
    (footer,) = con.execute("select decode(value) from parquet_kv_metadata(?) where decode(key) = ?",
                            [str(path), REGISTRY_KEY]).fetchall()[0]
    assert "rows_ingested" not in footer
    assert [e["rows_ingested"] for e in store.registry("c", ["raw_netdev"])] == [3]


def test_a_bad_capture_is_quarantined_by_line_and_leaves_no_temporary(tmp_path):
    bad = _capture(3, bad_line="  eth1: 1 2 3\n")      # sample 1's eth1 is on line 6
    store, summary = _tree(tmp_path, {"bad.netdev": bad, "good.netdev": _capture(2)})
    assert (summary.parsed, summary.quarantined) == (1, 1)
    entries = {e["source_file"]: e for e in store.registry("c", ["raw_netdev"])}
    reason = entries["deployments/c/bad.netdev"]["reason"]
    assert reason.startswith("deployments/c/bad.netdev:6: expected an interface line")
    assert "found 3 fields" in reason
    assert entries["deployments/c/good.netdev"]["rows_ingested"] == 2
    folder = store.table_dir("c", "raw_netdev")
    assert sorted(p.name for p in folder.iterdir() if p.name.startswith(".")) == []


def test_an_overflowing_counter_is_named_with_its_line(tmp_path):
    line = ROW.format(rx=2**64, tx=1)                 # one past the kernel's u64
    store, summary = _tree(tmp_path, {"wrap.netdev": _capture(3, bad_line=line)})
    (entry,) = store.registry("c", ["raw_netdev"])
    assert entry["status"] == "quarantined" and entry["reason"].startswith(
        "deployments/c/wrap.netdev:6: expected counters below 2^64")


def test_interface_line_before_any_sample(tmp_path):
    text = "# procnetdev-capture v1\n" + ROW.format(rx=1, tx=1) + "@ 1.0\n"
    store, _ = _tree(tmp_path, {"early.netdev": text})
    (entry,) = store.registry("c", ["raw_netdev"])
    assert entry["reason"].startswith("deployments/c/early.netdev:2: expected a '#' header or '@")


def test_out_of_order_sample_times_follow_the_lines_not_the_clock(tmp_path):
    # the second '@' is earlier in time: each row takes the '@' line above it, not the max time
    text = "@ 200.0\n" + ROW.format(rx=1, tx=1) + "@ 150.0\n" + ROW.format(rx=2, tx=2)
    frame = netdev.parse(_write(tmp_path, text))
    assert frame["sample_unix_s"].tolist() == [200.0, 150.0]
    assert frame["source_line"].tolist() == [2, 4]


def _write(tmp_path, text) -> Path:
    path = tmp_path / "x.netdev"
    path.write_text(text)
    return path


def test_parse_of_the_fixture_matches_the_stream(tmp_path):
    # the DataFrame helper and the runner's stream give the same rows for the same file
    frame = netdev.parse(FIVE)
    con = duckdb.connect()
    streamed = netdev.stream(FIVE, con)
    out = tmp_path / "rows.parquet"
    con.execute(f"copy ({streamed.select}) to '{out}' (format parquet)")
    streamed.check(out)
    rows = con.execute(f"select * from read_parquet('{out}') order by source_line").df()
    assert rows.equals(frame)
