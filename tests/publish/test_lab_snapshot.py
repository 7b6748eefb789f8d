"""The KV snapshot of a lab run on a tc-shaped veth (pipeline's own captures, raw_data/
deployments/lab-rpc-*): its busy intervals and share of line rate are of the shaped rate, the
unshaped veth has no line rate to take a share of, and no page prints a dash where a figure
belongs (issue 40, finding 6: "at — of line rate (— average over — busy intervals, — peak)")."""
from __future__ import annotations

import csv

import pytest


def _snapshot(built, campaign):
    with open(built.docs / "deployments" / campaign / "data" / "fct_kv_snapshot.csv", newline="") as f:
        return next(csv.DictReader(f))


@pytest.mark.parametrize("campaign,rate_mbit", [("lab-rpc-tbf050", 50), ("lab-rpc-tbf400", 400)])
def test_a_shaped_links_snapshot_is_a_share_of_its_shaped_rate(built, campaign, rate_mbit):
    s = _snapshot(built, campaign)
    assert (s["line_rate_basis"], float(s["line_rate_bits_per_s"])) == ("shaped rate", rate_mbit * 1e6)
    # average = copied bytes / busy time; share = average x 8 / the tbf rate
    avg = float(s["copied_bytes"]) / float(s["link_s"])
    assert float(s["avg_bytes_per_s"]) == pytest.approx(avg)
    assert float(s["avg_line_rate_fraction"]) == pytest.approx(avg * 8 / (rate_mbit * 1e6))
    # a tbf queue drains at its rate: the copy's average cannot be far from it either way
    assert 0.8 < float(s["avg_line_rate_fraction"]) < 1.05
    page = (built.docs / "deployments" / f"{campaign}.md").read_text()
    share = round(float(s["avg_line_rate_fraction"]) * 100)
    assert f"at {share}% of line rate (the link's shaped rate; " in page
    assert "at — of line rate" not in page and "— (model)" not in page
    assert "The snapshot's duration on each Ethernet class is *not measured*" in page


def test_the_unshaped_veth_has_no_line_rate_and_says_so(built):
    s = _snapshot(built, "lab-rpc-veth")
    assert s["line_rate_basis"] == "no line rate (nominal speed)"
    assert s["avg_line_rate_fraction"] == "" and s["avg_bytes_per_s"] != ""
    page = (built.docs / "deployments" / "lab-rpc-veth.md").read_text()
    assert "ethtool's speed of this link is nominal, so it has no line rate to take a share of" in page


def test_the_reconstructed_deployment_keeps_its_negotiated_speed(built):
    s = _snapshot(built, "qwen38-27b-pp")
    assert s["line_rate_basis"] == "negotiated speed"
    assert float(s["avg_line_rate_fraction"]) == pytest.approx(
        float(s["avg_bytes_per_s"]) * 8 / float(s["line_rate_bits_per_s"]))


@pytest.mark.parametrize("campaign", ["lab-rpc-tbf050", "qwen38-27b-pp"])
def test_the_utilisation_charts_name_the_captures_own_sampling_rate(built, campaign):
    with open(built.docs / "deployments" / campaign / "data" / "fct_deployment_constants.csv",
              newline="") as f:
        hz = float(next(csv.DictReader(f))["netdev_samples_per_s"])
    svg = (built.docs / "deployments" / campaign / "snapshot-utilisation.svg").read_text()
    # 1 / the median interval of the captures: the lab samples at 200 Hz, the deployment at 50
    assert f"<title>Link utilisation at {hz:.0f} Hz during the KV snapshot" in svg
    if campaign == "lab-rpc-tbf050":
        assert "50 Hz" not in svg
