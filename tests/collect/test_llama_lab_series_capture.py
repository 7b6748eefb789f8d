"""A real lab series, end to end (pipeline/collect/llama_lab/series.py): two rates (50 Mbit/s and
unshaped), two rounds, a 256-token prompt and 8 decoded tokens, llama-server and ggml-rpc-server
started once, the output layer on the head, the head's netdev sampled at 4 Hz; then the campaign alone is built by the pipeline and its runs are found in the
head's log by their task ids.

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
NAME = "lab-series-test"


@pytest.fixture(scope="module")
def series_run(tmp_path_factory):
    why = lab.missing_prerequisites() or (None if shutil.which("taskset") else "taskset missing")
    if why:
        if os.environ.get("CI") == "true":
            pytest.fail(f"lab series cannot run under CI=true: {why}")
        pytest.skip(why)
    binaries = tools.binaries_dir(build=True)
    model = tools.lab_model(binaries)
    root = tmp_path_factory.mktemp("lab-series")
    folder = root / "capture" / "labs" / NAME
    prefix = f"lst{os.getpid() % 100000}"
    runs = series.capture(folder, binaries, model, [50, None], 2, prompt_tokens=PROMPT,
                          decode_tokens=DECODE, seed=3, prefix=prefix, date="2026-01-02",
                          output_on="head")

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


def test_the_series_leaves_no_namespace_behind(series_run):
    names = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    assert f"{series_run['prefix']}a" not in names and f"{series_run['prefix']}b" not in names


def test_the_manifest_lists_every_run_with_its_three_tasks(series_run):
    doc = yaml.safe_load((series_run["folder"] / "manifest.yaml").read_text())
    runs = doc["params"]["lab_runs"]
    assert doc["kind"] == "lab_series" and runs == series_run["runs"]
    # 2 rates x 2 rounds; each round holds both rates once
    assert len(runs) == 4
    assert sorted((r["round"], r["rate_mbit"] or 0) for r in runs) == [(1, 0), (1, 50), (2, 0), (2, 50)]
    tasks = [t for r in runs for t in (r["prefill_task"], r["decode_task"], r["snapshot_task"])]
    assert tasks == sorted(tasks) and len(set(tasks)) == 12
    # one link per rate, each with its own iperf3 both ways and ping
    assert set(doc["links"]) == {"veth", "veth_tbf50"}
    formats = sorted(f["format"] for f in doc["files"])
    assert formats.count("iperf3") == 4 and formats.count("ping") == 2 and formats.count("journal") == 2


def test_every_run_is_timed_from_the_log(series_run):
    con = series_run["con"]
    rows = con.execute('select link_id, prefill_tokens, decode_tokens, snapshot_tokens, '
                       'prefill_tokens_per_s, decode_step_s, snapshot_s from "campaign:lab-series-test".fct_lab_series_runs '
                       'order by run').fetchall()
    assert len(rows) == 4
    for link, pre_tokens, dec_tokens, snap_tokens, pre_s, step_s, snap_s in rows:
        # a fresh prompt: every token evaluated; the decode's eval line counts the generated
        # tokens; the snapshot saves prompt + generated (256 + 8 = 264, less or equal)
        assert pre_tokens == PROMPT
        assert 1 <= dec_tokens <= DECODE
        assert PROMPT < snap_tokens <= PROMPT + DECODE
        assert pre_s > 0 and step_s > 0 and snap_s > 0
    # the snapshot copies megabytes: at 50 Mbit/s it takes longer than unshaped, in each round
    slow = [r[6] for r in rows if r[0] == "veth_tbf50"]
    fast = [r[6] for r in rows if r[0] == "veth"]
    assert min(slow) > max(fast)


def test_the_page_is_published(series_run):
    status, = series_run["con"].execute("select status from meta_campaign_status "
                                        "where campaign = ?", [NAME]).fetchone()
    assert status == "published"
    page = series_run["project"].root / "docs" / "labs" / f"{NAME}.md"
    assert "## Measured at each rate" in page.read_text()


def test_every_request_is_counted_on_the_wire(series_run):
    con = series_run["con"]
    rows = {(r[0], r[1]): r[2:] for r in con.execute(
        'select request, direction, runs, median_bytes, min_bytes from '
        '"campaign:lab-series-test".fct_lab_series_traffic').fetchall()}
    assert len(rows) == 6 and all(r[0] == 4 for r in rows.values())
    # lower bounds from the shape (hidden 512, vocabulary 32,000, f32 activations): every prompt
    # position's boundary activation crosses head -> worker, 4 x 512 = 2,048 B at least
    assert rows[("prefill", "head_to_worker")][2] >= 2048
    # the output layer runs on the head: a decode step brings back the last hidden state
    # (2,048 B), not the logits (4 x 32,000 = 128,000 B)
    assert 2048 <= rows[("decode", "worker_to_head")][1] < 128_000
    # the snapshot copies the worker's KV: 4 blocks x 2 (K, V) x 512 x 2 B (f16) = 8,192 B a token
    assert rows[("kv_snapshot", "worker_to_head")][2] >= 8192
    c = con.execute('select output_layer_on, worker_blocks, worker_kv_bytes_per_token from '
                    '"campaign:lab-series-test".fct_lab_series_campaigns').fetchone()
    assert c == ("head", 4, 8192)
