"""A real lab series split over two workers, end to end (pipeline/collect/llama_lab/series.py with
--workers 2): three namespaces, a shaped veth pair from the head to each worker, two
ggml-rpc-servers and one llama-server; two rates (50 Mbit/s and unshaped), one round, a 256-token
prompt and 8 decoded tokens, the head's netdev at 4 Hz. Then the campaign alone is built and each
hop's bytes are read from the warehouse.

Needs root, iproute2, iperf3, ping, ethtool, taskset and the llama.cpp binaries (built once by
scripts/build_llama_cpp.sh when missing); without them it skips, under CI=true it fails."""
from __future__ import annotations

import os
import shutil
import subprocess

import pytest
import yaml

from pipeline.collect import netns_lab as lab
from pipeline.collect.llama_lab import series, tools
from pipeline.project import CAMPAIGN_AREAS

from conftest import build_copy, warehouse

PROMPT, DECODE = 256, 8
NAME = "lab-hops-test"


@pytest.fixture(scope="module")
def hops_run(tmp_path_factory):
    why = lab.missing_prerequisites() or (None if shutil.which("taskset") else "taskset missing")
    if why:
        if os.environ.get("CI") == "true":
            pytest.fail(f"lab series cannot run under CI=true: {why}")
        pytest.skip(why)
    binaries = tools.binaries_dir(build=True)
    model = tools.lab_model(binaries)
    root = tmp_path_factory.mktemp("lab-hops")
    folder = root / "capture" / "labs" / NAME
    prefix = f"lht{os.getpid() % 100000}"
    runs = series.capture(folder, binaries, model, [50, None], 1, prompt_tokens=PROMPT,
                          decode_tokens=DECODE, ngl=7, seed=5, prefix=prefix, date="2026-01-03",
                          workers=2)

    def only_the_series(tree):
        for area in CAMPAIGN_AREAS:
            for campaign in (tree / "raw_data" / area).glob("*"):
                if campaign.is_dir():
                    shutil.rmtree(campaign)
        shutil.copytree(folder, tree / "raw_data" / "labs" / NAME)

    project = build_copy(root / "tree", edit=only_the_series, site=False)
    con = warehouse(project)
    yield {"runs": runs, "con": con, "prefix": prefix, "folder": folder, "project": project}
    con.close()


def test_three_namespaces_are_built_and_removed(hops_run):
    names = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    assert not any(f"{hops_run['prefix']}{end}" in names for end in "abc")
    doc = yaml.safe_load((hops_run["folder"] / "manifest.yaml").read_text())
    # each hop is its own link at each rate, measured by its own ping and iperf3 both ways
    assert set(doc["links"]) == {"hop1_veth", "hop1_veth_tbf50", "hop2_veth", "hop2_veth_tbf50"}
    assert doc["links"]["hop2_veth_tbf50"]["interfaces"] == {"lab-head": f"{hops_run['prefix']}vc",
                                                             "lab-worker-2": f"{hops_run['prefix']}vd"}
    formats = sorted(f["format"] for f in doc["files"])
    assert formats.count("iperf3") == 8 and formats.count("ping") == 4 and formats.count("journal") == 3
    assert [r["hop_links"] for r in doc["params"]["lab_runs"] if r["rate_mbit"] == 50] == [
        ["hop1_veth_tbf50", "hop2_veth_tbf50"]]
    env = (hops_run["folder"] / "env" / "lab-head-llama-server.env").read_text()
    assert "LLAMA_ARG_RPC=10.203.0.2:50052,10.203.0.6:50052" in env and "LLAMA_ARG_TENSOR_SPLIT=3,4" in env


def test_the_split_puts_three_blocks_on_each_worker(hops_run):
    c = hops_run["con"].execute(f'select workers, worker_blocks, output_layer_on from '
                                f'"campaign:{NAME}".fct_lab_series_campaigns').fetchone()
    # -ngl 7 of 8 blocks: blocks 2-7 and the output offloaded; 3:4 gives 2-4 and 5-7 + output
    assert c == (2, 6, "worker")


def test_each_hop_carries_its_own_workers_traffic(hops_run):
    rows = {(r[0], r[1]): r[2:] for r in hops_run["con"].execute(
        "select worker_host, quantity, hop, first_block, last_block, holds_output, measured_bytes, runs "
        "from main.fct_lab_hop_bytes").fetchall()}
    assert len(rows) == 10 and all(r[-1] == 2 for r in rows.values())
    assert rows[("lab-worker-1", "prefill forward")][:4] == (1, 2, 4, False)
    assert rows[("lab-worker-2", "prefill forward")][:4] == (2, 5, 7, True)
    # lower bounds from the shape (hidden 512, vocabulary 32,000, f32): each worker receives every
    # prompt position's activation, 4 x 512 = 2,048 B; the first sends it on through the head
    for worker in ("lab-worker-1", "lab-worker-2"):
        assert rows[(worker, "prefill forward")][4] >= 2048
    assert rows[("lab-worker-1", "prefill return")][4] >= 2048
    # a decode step: the first worker returns a hidden state (>= 2,048 B, far below the logits),
    # the second the logits (4 x 32,000 = 128,000 B)
    assert 2048 <= rows[("lab-worker-1", "decode return")][4] < 128_000
    assert rows[("lab-worker-2", "decode return")][4] >= 128_000
    # the snapshot copies each worker's own KV: 3 blocks x 2 (K, V) x 512 x 2 B (f16) = 6,144 B a token
    for worker in ("lab-worker-1", "lab-worker-2"):
        assert rows[(worker, "KV snapshot")][4] >= 6144
