"""The prefill pipeline model's wire wait psi and the lab's tbf bucket (fct_lab_pipeline_model,
fct_pipeline_model_range, fct_prefill_pipeline_what_if) on hand-made series whose measured times
were made with known constants: psi and the bucket's refills m fitted on the other series, the
bucket's bytes capped by what the rate gathers while the wire waits, a link whose bucket is
unknown left out, and a deployment's prediction counting every byte. Every expected number is
worked by hand next to its assertion."""
from __future__ import annotations

import pytest

from model_runs import dict_rows
from pipeline_lab import pipeline_deployment, pipeline_lab


# phi held at 0; psi on {0, 0.5}; m on {0, 1, 2, 3}
PARAMS = {"lab_model_range_quantile": 0.5, "lab_target_median_error": 0.05,
          "lab_target_inside_range": 0.6, "lab_target_half_width": 0.06,
          "lab_overlap_grid_step": 0.1, "lab_overlap_grid_max": 0.0,
          "lab_wait_grid_step": 0.5, "lab_wait_grid_max": 0.5, "lab_bucket_refills_max": 3}
# an unshaped link so fast that its wire time is nothing, a 80 Mbit/s tbf (10 MB/s) with a
# 400,000-byte bucket, and one whose bucket is unknown
LINKS = [("veth", None, None, 1e15), ("tbf80", 80e6, 400_000, 1e7), ("nob", 80e6, None, 1e7)]
# 12,000 B a position to the worker: 3 MB a micro-batch, w = 0.3 s at 10 MB/s with no bucket.
# Anchors 1.0 s: c = min((1.0 - 0) / (1 + 3 x 0.5), (1.0 - 0) / (1 + 3 x psi x 0.5)) = 0.4 for
# psi <= 1, so s c = 0.2. At tbf80 a micro-batch costs max(s c, w + psi s c), and the bucket
# frees min(m x 400,000, 1e7 B/s x psi s c) of its bytes:
#   psi 0:          nothing free, w 0.3, max(0.2, 0.3):          T = 0.4 + 0.3 + 3 x 0.3 = 1.6
#   psi 0.5, m 0:   w 0.3, max(0.2, 0.3 + 0.1) = 0.4:            T = 0.7 + 1.2 = 1.9
#   psi 0.5, m 1:   400,000 free, w 0.26, 0.36:                  T = 0.66 + 1.08 = 1.74
#   psi 0.5, m 2:   800,000 free, w 0.22, 0.32:                  T = 0.62 + 0.96 = 1.58
#   psi 0.5, m 3:   min(1.2 MB, 1e7 x 0.1 = 1 MB) free, w 0.2:  T = 0.6 + 0.9 = 1.5
# (uncapped, m 3 would free 1.2 MB: w 0.18, T 1.42)
SERIES = {
    "x": ((12_000, 100), {"veth": [1.0], "tbf80": [1.5], "nob": [1.5]}),   # made with psi 0.5, m 3
    "y": ((12_000, 100), {"veth": [1.0], "tbf80": [1.5], "nob": [1.5]}),   # made with psi 0.5, m 3
    "z": ((12_000, 100), {"veth": [1.0], "tbf80": [1.58], "nob": [1.5]}),  # made with psi 0.5, m 2
}


@pytest.fixture(scope="module")
def lab():
    con = pipeline_lab(PARAMS, SERIES, LINKS)
    yield con
    con.close()


def _by_campaign(con) -> dict:
    return {r["campaign"]: r for r in dict_rows(con, "select * from fct_lab_pipeline_model")}


def test_a_link_with_an_unknown_bucket_is_not_predicted(lab):
    rows = dict_rows(lab, "select campaign, link_id from fct_lab_pipeline_model")
    assert sorted((r["campaign"], r["link_id"]) for r in rows) == [(s, "tbf80") for s in "xyz"]


def test_psi_and_m_are_fitted_on_the_other_series(lab):
    rows = _by_campaign(lab)
    z = rows["z"]
    # z left out: x and y fit exactly at psi 0.5, m 3 (squared errors 0); z is predicted 1.5
    assert (z["wire_wait_fraction"], z["bucket_refills"], z["exposed_wire_fraction"]) == (0.5, 3, 0)
    assert z["compute_s"] == pytest.approx(0.4, abs=1e-6)
    # the rate's cap, not 1.2 MB (c is 0.4 less the anchor's 3e-9 s of wire: a few thousandths of a byte)
    assert z["bucket_free_bytes"] == pytest.approx(1e6, abs=0.01)
    assert z["wire_s"] == pytest.approx(0.2, abs=1e-6)
    assert z["predicted_s"] == pytest.approx(1.5, abs=1e-6)
    assert z["error_fraction"] == pytest.approx(1.5 / 1.58 - 1, abs=1e-6)
    # x left out, fitted on y (1.5) and z (1.58); sum of squared errors:
    #   p 1.5 (psi 0.5, m 3):  0 + (1.5 / 1.58 - 1)^2              = 0.0025637
    #   p 1.58 (psi 0.5, m 2): (1.58 / 1.5 - 1)^2 + 0              = 0.0028444
    #   p 1.6 (psi 0):         0.0044444 + (1.6 / 1.58 - 1)^2      = 0.0046047
    #   p 1.74, 1.9: larger still
    # so psi 0.5, m 3: x predicted 1.5, error 0; y the same
    for name in ("x", "y"):
        assert (rows[name]["wire_wait_fraction"], rows[name]["bucket_refills"]) == (0.5, 3)
        assert rows[name]["error_fraction"] == pytest.approx(0, abs=1e-6)
    # published over all three: 2 x 0 + 0.0025637 at 1.5 beats 2 x 0.0028444 at 1.58
    assert {(r["published_wire_wait_fraction"], r["published_bucket_refills"]) for r in rows.values()} == {(0.5, 3)}


def test_the_summary_and_its_targets(lab):
    (r,) = dict_rows(lab, "select * from fct_pipeline_model_range")
    assert (r["wire_wait_fraction"], r["bucket_refills"], r["exposed_wire_fraction"]) == (0.5, 3, 0)
    # |errors| 0, 0, 0.050633: median 0; h = ceil(0.5 x 4) = 2nd smallest = 0
    assert r["median_abs_error_fraction"] == pytest.approx(0, abs=1e-6)
    assert r["range_fraction"] == pytest.approx(0, abs=1e-6)
    # x's range from y and z: 2nd smallest of 0, 0.050633; 1.5 lies within 1.5 x (1 +/- h): in;
    # y the same; z's from x and y: 0, so 1.58 against 1.5 is out: 2 of 3 inside
    assert r["inside_range_fraction"] == pytest.approx(2 / 3)
    assert r["max_range_half_width_fraction"] == pytest.approx(1 - 1.5 / 1.58, abs=1e-6)
    # 0 <= 0.05, 0.667 >= 0.6, 0.0506 <= 0.06
    assert r["meets_targets"] is True


def test_a_deployment_counts_every_byte_and_the_wait(lab):
    pipeline_deployment(lab, [("100m", "100 Mbit/s", 1, 1e7, -0.8), ("10g", "10 GbE", 3, 1e9, 0.1)])
    rows = {r["link_class"]: r for r in dict_rows(lab, "select * from fct_prefill_pipeline_what_if")}
    s = 45 / 64
    # w0 = 10 MB / 250 MB/s = 0.04; c = min((2.0 - 0.04) / (1 + 3 s), (2.0 - 4 x 0.04) / (1 + 3 x 0.5 s))
    # = min(0.630352, 0.895513) = 0.630352
    c = 1.96 / (1 + 3 * s)
    assert rows["2g5"]["compute_s"] == pytest.approx(c)
    assert rows["100m"]["wire_wait_fraction"] == 0.5
    # 100 Mbit/s: all 10 MB on the wire (no bucket), w = 1.0; max(s c = 0.443216, 1.0 + 0.5 s c =
    # 1.221608): T = c + 1.0 + 3 x 1.221608 = 5.295176 (4.630352 were the wire not waiting)
    t100 = c + 1.0 + 3 * (1.0 + 0.5 * s * c)
    assert t100 == pytest.approx(5.295176, abs=1e-6)
    assert rows["100m"]["predicted_prefill_s"] == pytest.approx(t100)
    # 10 GbE: w = 0.01, max(0.443216, 0.01 + 0.221608): the compute: T = c + 0.01 + 3 s c = 1.97
    assert rows["10g"]["predicted_prefill_s"] == pytest.approx(1.97)
    assert rows["10g"]["gain_vs_measured_fraction"] == pytest.approx(2 / 1.97 - 1)
