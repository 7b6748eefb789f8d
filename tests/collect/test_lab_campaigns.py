"""The committed llama.cpp RPC lab campaigns (raw_data/deployments/lab-rpc-*), built with the
rest of the tree: each is published with its own figures, the series is validated, and the
figures agree with what the model's shape and the captured setup say, worked by hand here."""
from __future__ import annotations

import pytest

from pipeline.collect.llama_lab import run
from pipeline.collect.llama_lab.model import Shape

from conftest import REPO, warehouse

SHAPE = Shape()
CAMPAIGNS = sorted(p.name for p in (REPO / "raw_data" / "deployments").glob("lab-rpc-*"))


@pytest.fixture(scope="module")
def con(built):
    if len(CAMPAIGNS) < 4:
        pytest.fail(f"expected at least four committed lab runs, found {CAMPAIGNS}")
    c = warehouse(built)
    yield c
    c.close()


def test_every_lab_run_is_a_published_row_of_the_series(con):
    rows = con.execute("select r.campaign, r.series, s.status from fct_lab_rpc_runs r "
                       "join meta_campaign_status s using (campaign) order by r.campaign").fetchall()
    assert rows == [(c, run.SERIES, "published") for c in CAMPAIGNS]


def test_only_the_lab_runs_are_in_the_series(con):
    # the reconstructed deployment and the iperf3-only lab have no params.lab_series
    names = {c for (c,) in con.execute("select campaign from fct_lab_rpc_runs").fetchall()}
    assert "qwen38-27b-pp" not in names and "lab-veth-tbf" not in names


def test_each_run_has_its_own_measured_figures(con):
    rows = con.execute("select campaign, blocks_worker, blocks_head, raw_hidden_bytes_per_position, "
                       "wire_bytes_per_position_head_to_worker, prefill_tokens_per_s, decode_step_s, "
                       "snapshot_s, snapshot_bytes, snapshot_model_bytes, snapshot_tokens, "
                       "tcp_bytes_per_s, shaped_rate_bits_per_s from fct_lab_rpc_runs").fetchall()
    for (campaign, worker, head, raw, h2w, prefill, decode, snap_s, snap_b, snap_model, tokens,
         tcp, shaped) in rows:
        # -ngl 5 of 8 blocks: blocks 4..7 on the worker (n + 1 - ngl = 4), 0..3 on the head
        assert (worker, head) == (4, 4), campaign
        assert raw == SHAPE.embedding * 2                       # fp16 reference: 1024 bytes
        assert h2w >= SHAPE.embedding * 4, campaign             # the f32 hidden state at least
        assert prefill > 0 and decode > 0 and snap_s > 0, campaign
        # 4 worker blocks x (K + V) x 512 values x 2 bytes (f16) per saved token
        assert snap_model == tokens * 4 * 2 * SHAPE.embedding * 2, campaign
        assert snap_model * 0.98 <= snap_b <= snap_model * 1.15, campaign
        if shaped is not None:
            # TCP payload is at most 1448 of each 1514-byte frame tbf lets through
            assert tcp * 8 <= shaped * 1448 / 1514 * 1.02, campaign


def test_a_decode_step_brings_the_logits_back(con):
    # -ngl 5 offloads the output layer with blocks 4..7: each decode step returns the logits,
    # 32,000 x 4 bytes (f32) = 128,000 bytes, from the worker; the prefill's bytes per position
    # (what §0 assumes a step carries) hold one logits row per ubatch, a few KiB a position
    rows = con.execute("select campaign, decode_step_measured_wire_bytes, decode_step_wire_bytes "
                       "from fct_lab_rpc_runs").fetchall()
    for campaign, measured, model in rows:
        assert measured >= 32000 * 4, campaign
        assert measured > 10 * model, campaign


def test_the_series_is_calibrated_once_and_predicts_the_rest(con):
    cal = con.execute("select distinct calibration_campaign from fct_lab_rpc_validation").fetchall()
    assert len(cal) == 1
    fastest = con.execute("select campaign from fct_lab_rpc_runs order by tcp_bytes_per_s desc "
                          "limit 1").fetchone()
    assert cal[0] == fastest
    predicted = con.execute("select quantity, count(*) from fct_lab_rpc_validation "
                            "where not is_calibration and error_fraction is not null "
                            "group by quantity order by quantity").fetchall()
    assert predicted == [(q, len(CAMPAIGNS) - 1) for q in ("KV snapshot", "decode step", "prefill")]


def test_the_page_shows_the_validation_and_each_run_links_to_it(built):
    page = (built.root / "docs" / "ethernet-bandwidth-math.md").read_text()
    assert "{ #lab-validation .lab-evidence }" in page      # ranked as lab evidence in search
    for quantity in ("prefill", "decode", "snapshot"):
        assert (built.root / "docs" / "ethernet-bandwidth-math" /
                f"lab-validation-{quantity}.svg").is_file()
    for c in CAMPAIGNS:
        assert f"deployments/{c}.md" in page
        own = (built.root / "docs" / "deployments" / f"{c}.md").read_text()
        assert "ethernet-bandwidth-math.md#lab-validation" in own
