"""Collectors that need no network: manifest merging, GGUF header copy, journal, netdev.

The lab test (tests/collect/test_collect_lab.py) covers iperf3/ping/ethtool on real
links; the failure modes are in tests/collect/test_collect_failures.py.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import gguf
import numpy as np
import pytest
import yaml

from pipeline.collect.campaign import Campaign, Output, commit
from pipeline.collect.gguf import header_copy

from paths import REPO


def collect(*args, env_path: str | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    if env_path:
        env["PATH"] = env_path
    return subprocess.run([sys.executable, "-m", "pipeline.collect", *map(str, args)],
                          capture_output=True, text=True, env=env, cwd=REPO)


# --- manifest -----------------------------------------------------------------

def test_commits_merge_into_one_sorted_manifest(tmp_path):
    folder = tmp_path / "deployments" / "c1"
    a = Campaign(folder, "c1", "deployment", "T", "2026-01-02", {"srv": {"role": "head"}},
                 {"l1": {"label": "L", "class": "1gbe"}})
    commit(a, [Output("ping/b.txt", "ping", {"link": "l1", "sender": "b"}, data=b"B")])
    b = Campaign(folder, "c1", "deployment", "other title", "2026-01-03",
                 {"cli": {"role": "worker"}, "srv": {"role": None}}, {})
    commit(b, [Output("ping/a.txt", "ping", {"link": "l1"}, data=b"A"),
               Output("ping/b.txt", "ping", {"link": "l1", "sender": "again"}, data=b"B2")])
    doc = yaml.safe_load((folder / "manifest.yaml").read_text())
    # First writer's title/date stay; hosts merge (a None role does not erase one);
    # a re-collected file replaces its entry instead of adding a second one.
    assert (doc["title"], str(doc["date"]), doc["provenance"]) == ("T", "2026-01-02", "captured")
    assert doc["hosts"] == {"cli": {"role": "worker"}, "srv": {"role": "head"}}
    assert [f["path"] for f in doc["files"]] == ["ping/a.txt", "ping/b.txt"]
    assert doc["files"][1]["context"]["sender"] == "again"
    assert (folder / "ping/b.txt").read_bytes() == b"B2"
    assert sorted(p.name for p in folder.rglob(".*")) == []      # no temp file left


def test_manifest_of_another_campaign_is_refused(tmp_path):
    folder = tmp_path / "c1"
    commit(Campaign(folder, "c1"), [Output("x.txt", "ping", {}, data=b"x")])
    before = (folder / "manifest.yaml").read_bytes()
    with pytest.raises(Exception, match="belongs to campaign 'c1'"):
        commit(Campaign(folder, "c2"), [Output("y.txt", "ping", {}, data=b"y")])
    assert not (folder / "y.txt").exists()
    assert (folder / "manifest.yaml").read_bytes() == before


# --- gguf -----------------------------------------------------------------------

def _model(path: Path) -> None:
    w = gguf.GGUFWriter(str(path), "llama")
    w.add_block_count(2)
    w.add_embedding_length(64)
    w.add_float32("llama.attention.layer_norm_rms_epsilon", 1e-6)
    w.add_string("general.name", "tiny-test")
    w.add_array("tokenizer.ggml.tokens", [f"t{i}" for i in range(100)])   # > 64: summarised
    w.add_array("test.small_ints", [1, 2, 3])
    w.add_tensor("blk.0.w", np.arange(64 * 256, dtype=np.float32).reshape(256, 64))
    w.add_tensor("blk.1.w", np.ones((256, 64), dtype=np.float32))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def test_gguf_copy_is_small_and_reads_like_the_original(tmp_path):
    from pipeline.ingest.formats.gguf import parse
    model = tmp_path / "m.gguf"
    _model(model)
    r = collect("gguf", model, "--campaign-dir", tmp_path / "c1", "--host", "srv")
    assert r.returncode == 0, r.stderr
    copy = tmp_path / "c1/gguf/m.gguf"
    # it says what it wrote and where
    assert r.stdout.splitlines() == [
        f"wrote {copy} (gguf, {copy.stat().st_size:,} bytes)",
        f"manifest {tmp_path / 'c1/manifest.yaml'}: 1 file(s) listed"]
    # Two tensors of 256*64 float32 = 2 * 65,536 bytes of data are gone.
    assert model.stat().st_size - copy.stat().st_size > 2 * 65536 - 1024
    rows_orig, rows_copy = parse(model), parse(copy)
    assert rows_copy == rows_orig          # same keys, values and byte offsets
    assert {r["key"]: r["value"] for r in rows_copy}["llama.block_count"] == "2"
    reader = gguf.GGUFReader(copy)         # the stock reader: a complete, valid GGUF
    assert reader.tensors == [] and int(reader.fields["GGUF.tensor_count"].parts[0][0]) == 0
    ctx = yaml.safe_load((tmp_path / "c1/manifest.yaml").read_text())["files"][0]["context"]
    assert ctx["original_tensor_count"] == 2
    assert ctx["original_size_bytes"] == model.stat().st_size


def test_gguf_copy_never_needs_the_tensor_data(tmp_path):
    model = tmp_path / "m.gguf"
    _model(model)
    full, facts = header_copy(model)
    # Cut the original just after its data starts: the copy is byte-identical,
    # so the collector read nothing beyond the header.
    cut = tmp_path / "cut.gguf"
    cut.write_bytes(model.read_bytes()[: facts["original_data_offset_bytes"] + 8])
    assert header_copy(cut)[0] == full


def test_gguf_rejects_a_file_that_is_not_gguf(tmp_path):
    bad = tmp_path / "x.gguf"
    bad.write_bytes(b"NOTGGUF" * 10)
    r = collect("gguf", bad, "--campaign-dir", tmp_path / "c1", "--host", "srv")
    assert r.returncode == 1 and "no GGUF magic" in r.stderr
    assert not (tmp_path / "c1").exists()


# --- journal (journalctl stand-in: no journald in a container) --------------------

ENTRY = {"__REALTIME_TIMESTAMP": "1755456000000000", "_SYSTEMD_UNIT": "x.service",
         "_HOSTNAME": "srv", "_PID": "42", "MESSAGE": "hello"}


def test_journal_keeps_journalctl_json_verbatim(tmp_path):
    fake = tmp_path / "bin"
    fake.mkdir()
    line = json.dumps(ENTRY)
    (fake / "journalctl").write_text(
        "#!/bin/sh\n[ \"$1\" = --version ] && { echo 'systemd 252 (252.38)'; exit 0; }\n"
        f"echo '{line}'\necho \"$@\" > {tmp_path}/argv\n")
    (fake / "journalctl").chmod(0o755)
    camp = tmp_path / "c1"
    r = collect("journal", "--campaign-dir", camp, "--host", "srv", "--unit", "x.service",
                "--since", "2026-08-17 10:00", "--until", "2026-08-17 11:00",
                env_path=f"{fake}{os.pathsep}{os.environ['PATH']}")
    assert r.returncode == 0, r.stderr
    assert (camp / "journal/srv-x.service.json").read_text() == line + "\n"
    assert (tmp_path / "argv").read_text().split() == [
        "-u", "x.service", "--since", "2026-08-17", "10:00", "--until", "2026-08-17", "11:00",
        "-o", "json", "--no-pager"]
    ctx = yaml.safe_load((camp / "manifest.yaml").read_text())["files"][0]["context"]
    assert ctx["tool_version"] == "systemd 252 (252.38)" and ctx["unit"] == "x.service"


# --- netdev -----------------------------------------------------------------------

def test_netdev_capture_has_the_documented_shape(tmp_path):
    # A fixed fake /proc/net/dev: every sample must carry it unmodified.
    src = tmp_path / "dev"
    table = ("Inter-|   Receive                                                |  Transmit\n"
             " face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets "
             "errs drop fifo colls carrier compressed\n"
             "    lo:     100       1    0    0    0     0          0         0      100       1"
             "    0    0    0     0       0          0\n")
    src.write_text(table)
    camp = tmp_path / "c1"
    r = collect("netdev", "--campaign-dir", camp, "--host", "srv", "--rate", "100",
                "--duration", "0.05", "--source", src)
    assert r.returncode == 0, r.stderr
    text = (camp / "netdev/srv.netdev").read_text()
    lines = text.splitlines()
    assert lines[0] == "# procnetdev-capture v1"
    head = dict(kv.split("=", 1) for ln in lines if ln.startswith("# ") for kv in ln[2:].split()
                if "=" in kv)
    assert head["host"] == "srv" and head["rate_hz"] == "100"
    assert {"achieved_hz", "worst_gap_ms", "started", "cpu_s", "cpu_fraction"} <= set(head)
    samples = ("\n" + text).split("\n@ ")[1:]
    assert len(samples) == int(head["samples"]) >= 1
    # achieved_hz = (samples - 1) / the span from the first sample to the last (monotonic clock;
    # the wall-clock stamps of the first and last sample span the same time to a few us)
    n, span = int(head["samples"]), float(head["ended"]) - float(head["started"])
    if n > 1:
        assert float(head["achieved_hz"]) == pytest.approx((n - 1) / span, rel=0.02)
    for s in samples:
        stamp, body = s.split("\n", 1)
        float(stamp)
        # split() ate the newline before each '@': put it back.
        assert body + ("" if body.endswith("\n") else "\n") == table


def test_netdev_header_states_the_achieved_rate_and_worst_gap():
    from pipeline.collect.netdev import Stats, header
    # 50 samples over 0.98 s: (50 - 1) / 0.98 = 50.0 Hz; worst gap 0.0312 s = 31.2 ms;
    # cpu 0.049 s of 0.98 s wall = 0.0500
    s = Stats(samples=50, started=1000.25, ended=1001.23, achieved_hz=49 / 0.98, worst_gap_s=0.0312,
              cpu_s=0.049, wall_s=0.98)
    text = header("h", 50, s, "/proc/net/dev").decode()
    fields = dict(kv.split("=", 1) for ln in text.splitlines()[1:] for kv in ln[2:].split())
    assert (fields["rate_hz"], fields["achieved_hz"], fields["worst_gap_ms"]) == ("50", "50.00", "31.2")
    assert (fields["samples"], fields["started"], fields["ended"]) == ("50", "1000.250000", "1001.230000")
    assert (fields["cpu_s"], fields["cpu_fraction"]) == ("0.049", "0.0500")
