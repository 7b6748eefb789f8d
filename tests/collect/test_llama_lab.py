"""A real llama.cpp RPC pipeline split, measured end to end (pipeline/collect/llama_lab/run.py).

The short lab: one rate (100 Mbit/s), a 256-token prompt, 8 decoded tokens. llama-server in one
network namespace, ggml-rpc-server in the other, joined by a tbf-shaped veth pair; the model is
the lab's random-weight llama (H 512, 8 blocks, FFN 1024; pipeline/collect/llama_lab/model.py) and -ngl 5 puts
blocks 4-7 and the output on the worker. The captured campaign is then built by the pipeline in
a tree of its own (no other campaign), and its figures are checked against what the format and
the model's shape say they must be, worked by hand below.

Needs root, iproute2, iperf3, ping, ethtool and the llama.cpp binaries; the binaries are built
through scripts/build_llama_cpp.sh when missing (about 9 minutes on 2 cores, once: the cache is
outside the repository). Without root or the tools the test skips with the reason; under
CI=true that is a failure.
"""
from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from pipeline.collect import netns_lab as lab
from pipeline.collect.llama_lab import run, tools
from pipeline.collect.llama_lab.model import Shape
from pipeline.project import CAMPAIGN_AREAS

from conftest import build_copy, warehouse

RATE_MBIT = 100
PROMPT, DECODE = 256, 8
NGL = 5
SHAPE = Shape()


def _unavailable(reason: str):
    if os.environ.get("CI") == "true":
        pytest.fail(f"llama.cpp lab cannot run under CI=true: {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def lab_run(tmp_path_factory):
    why = lab.missing_prerequisites()
    if why:
        _unavailable(why)
    if shutil.which("cmake") is None:
        _unavailable("cmake not installed (needed to build llama.cpp once)")
    binaries = tools.binaries_dir(build=True)
    model = tools.lab_model(binaries)
    root = tmp_path_factory.mktemp("llama-lab")
    folder = root / "capture" / "deployments" / "lab-rpc-test"
    prefix = f"plt{os.getpid() % 100000}"
    report = run.capture(folder, binaries, model, RATE_MBIT, prompt_tokens=PROMPT,
                         decode_tokens=DECODE, ngl=NGL, prefix=prefix, date="2026-01-01")

    def only_the_lab(tree):
        for area in CAMPAIGN_AREAS:
            for campaign in (tree / "raw_data" / area).iterdir():
                if campaign.is_dir():
                    shutil.rmtree(campaign)
        shutil.copytree(folder, tree / "raw_data" / "deployments" / folder.name)

    project = build_copy(root / "tree", edit=only_the_lab, site=False)
    con = warehouse(project)
    yield {"report": report, "con": con, "prefix": prefix, "folder": folder, "project": project}
    con.close()


def _one(con, sql):
    rows = con.execute(sql).fetchall()
    assert len(rows) == 1, rows
    return rows[0]


def test_the_lab_leaves_no_namespace_and_no_process_behind(lab_run):
    names = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    assert f"{lab_run['prefix']}a" not in names and f"{lab_run['prefix']}b" not in names
    procs = subprocess.run(["pgrep", "-f", str(lab_run["folder"])], capture_output=True, text=True)
    assert procs.stdout.strip() == ""


def test_every_captured_file_is_listed_and_ingested(lab_run):
    rows = lab_run["con"].execute(
        "select f.format, count(*), count(*) filter (where r.status = 'ok') "
        "from raw_files f left join ingest_registry r using (source_file) "
        "group by f.format order by f.format").fetchall()
    # ethtool on each end, the env file, the GGUF header, iperf3 both ways, the two logs
    # (llama-server and ggml-rpc-server), a netdev capture per namespace, one ping
    assert rows == [("env", 1, 1), ("ethtool", 2, 2), ("gguf", 1, 1), ("iperf3", 2, 2),
                    ("journal", 2, 2), ("netdev", 2, 2), ("ping", 1, 1)]


def test_the_campaign_is_published(lab_run):
    status, = _one(lab_run["con"], "select status from meta_campaign_status "
                                   "where campaign = 'lab-rpc-test'")
    assert status == "published"


def test_the_layer_split_is_what_ngl_gives(lab_run):
    # llama.cpp: n = 8 blocks, ngl = 5 -> offloaded layers start at n + 1 - ngl = 4, so
    # blocks 4..7 (and the output, layer 8) on the one RPC device, blocks 0..3 on the head's CPU
    worker, head, hidden = _one(lab_run["con"], "select blocks_worker, blocks_head, hidden_size "
                                                "from fct_deployment_constants")
    assert (worker, head, hidden) == (4, 4, SHAPE.embedding)


def test_llama_server_timed_the_driven_tasks(lab_run):
    tokens, decoded, tps, decode_s = _one(
        lab_run["con"], "select prefill_tokens, decode_tokens, prefill_tokens_per_s, decode_s "
                        "from fct_deployment_constants")
    prefill = lab_run["report"]["prefill"]["timings"]
    decode = lab_run["report"]["decode"]["timings"]
    # the log's timing blocks and the HTTP responses' timings are the same measurements:
    # the prefill task evaluates the whole prompt, the decode task generates DECODE tokens
    assert tokens == prefill["prompt_n"] == PROMPT and decoded == decode["predicted_n"] == DECODE
    assert tps == pytest.approx(prefill["prompt_n"] / prefill["prompt_ms"] * 1000, rel=1e-3)
    assert decode_s == pytest.approx(decode["predicted_ms"] / 1000, rel=1e-3)


def test_the_boundary_carries_at_least_the_f32_hidden_state(lab_run):
    # ggml RPC sends the worker's input tensor as the head computed it: f32, H = 512 values
    # per position = 2048 bytes; the graph and the protocol come on top, never below
    h2w, raw = _one(lab_run["con"], "select wire_bytes_per_position_head_to_worker, "
                                    "raw_hidden_bytes_per_position from fct_deployment_constants")
    assert raw == SHAPE.embedding * 2              # fp16 reference, 1024 bytes
    assert h2w >= SHAPE.embedding * 4


def test_a_decode_step_brings_the_logits_back(lab_run):
    # the output layer is on the worker: every step returns 32,000 f32 logits = 128,000 bytes
    measured, = _one(lab_run["con"], "select decode_step_measured_wire_bytes from fct_lab_rpc_runs")
    assert measured >= 32000 * 4


def test_the_snapshot_copies_the_workers_kv(lab_run):
    # the worker holds blocks 4..7: per token K and V of 8 heads x 64 dims in f16 =
    # 2 x 512 x 2 = 2048 bytes a block, 4 blocks = 8192 bytes per token of the saved prompt,
    # which holds the prompt and the decoded tokens (the last one is sampled, not evaluated)
    tokens, copied, model_bytes = _one(
        lab_run["con"], "select saved_tokens, copied_bytes, model_bytes from fct_kv_snapshot")
    assert PROMPT + DECODE - 1 <= tokens <= PROMPT + DECODE
    assert model_bytes == tokens * 4 * 2 * SHAPE.embedding * 2
    # netdev counts the headers and the RPC framing too: within 15 % above the KV itself
    assert model_bytes * 0.98 <= copied <= model_bytes * 1.15


def test_the_run_is_a_lab_series_row_and_its_own_calibration(lab_run):
    con = lab_run["con"]
    series, shaped = _one(con, "select series, shaped_rate_bits_per_s from fct_lab_rpc_runs")
    assert (series, shaped) == (run.SERIES, RATE_MBIT * 1_000_000)
    rows = con.execute("select quantity, is_calibration, error_fraction from fct_lab_rpc_validation "
                       "order by sort_order").fetchall()
    # one run: it is the calibration, so each prediction equals its measurement
    assert [(q, c) for q, c, _ in rows] == [("prefill", True), ("decode step", True),
                                            ("KV snapshot", True)]
    assert all(e == pytest.approx(0.0, abs=1e-9) for _, _, e in rows)


def test_iperf3_runs_at_the_shaped_rate(lab_run):
    up, down = _one(lab_run["con"], "select iperf3_head_to_worker_bits_per_s, "
                                    "iperf3_worker_to_head_bits_per_s from fct_lab_rpc_runs")
    # tbf shapes whole frames; TCP payload is 1448 of every 1514 bytes on the wire
    for rate in (up, down):
        assert RATE_MBIT * 1e6 * 0.85 <= rate <= RATE_MBIT * 1e6 * 1448 / 1514 * 1.02
