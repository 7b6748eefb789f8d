""""Your setup", prefill and decode (docs/javascripts/whatif-time.js) in a real browser: for every
row of the what-if marts the page's own computation, from the CSVs it publishes, gives the mart's
numbers; the lab model gives fct_lab_series_validation's prediction and range at each rate; the
form answers a deployment on a class and on a rate and RTT of the reader's own, worked by hand
from the deployment's published constants."""
from __future__ import annotations

import csv

import pytest

from site_browser import ARTIFACTS, browser, site_url, visit  # noqa: F401 (fixtures)


def _csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def _num(s):
    return None if s in ("", None) else float(s)


def _time_page(visit, site_url, width=1440):
    v = visit(viewport={"width": width, "height": 900})
    v.page.goto(site_url + "your-setup/", wait_until="load")
    v.page.wait_for_function("['ready', 'failed'].includes(document.documentElement.dataset.whatifTime)")
    assert v.page.evaluate("document.documentElement.dataset.whatifTime") == "ready", \
        v.page.locator("#whatif-time-answer").inner_text()
    return v


def test_every_row_of_the_what_if_marts_comes_out_with_its_own_numbers(site_url, visit, built):
    data = built.docs / "ethernet-bandwidth-math" / "data"
    prefill, decode = _csv(data / "fct_prefill_what_if.csv"), _csv(data / "fct_decode_what_if.csv")
    v = _time_page(visit, site_url)
    got = v.page.evaluate("""rows => rows.map(r => {
        const a = window.interconnectWhatIfTime.deployment({campaign: r.campaign, linkClass: r.link_class, rttS: null});
        return [a.prefill && a.prefill.tokensPerS, a.prefill && a.prefill.gainFraction,
                a.decode && a.decode.tokensPerS, a.decode && a.decode.gainFraction]; })""", prefill)
    assert len(got) == len(prefill) > 0
    wrong = [(r["campaign"], r["link_class"], g) for r, g in zip(prefill, got)
             if g[0] != pytest.approx(float(r["predicted_tokens_per_s"]), rel=1e-12)
             or g[1] != pytest.approx(float(r["gain_vs_measured_fraction"]), rel=1e-9, abs=1e-12)]
    assert not wrong, wrong[:5]
    by = {(r["campaign"], r["link_class"]): r for r in decode}
    checked = 0
    for r, g in zip(prefill, got):
        d = by.get((r["campaign"], r["link_class"]))
        if d is None or _num(d["predicted_tokens_per_s"]) is None:
            # no measured compute (a lab whose decode has no wire capture): no decode answer
            assert g[2] is None, (r["campaign"], r["link_class"], g)
            continue
        assert g[2] == pytest.approx(float(d["predicted_tokens_per_s"]), rel=1e-12), d
        assert g[3] == pytest.approx(float(d["gain_vs_measured_fraction"]), rel=1e-9, abs=1e-12), d
        checked += 1
    assert checked > 0
    snapshot = _csv(data / "fct_kv_snapshot_what_if.csv")
    got = v.page.evaluate("""rows => rows.map(r => {
        const a = window.interconnectWhatIfTime.deployment({campaign: r.campaign, linkClass: r.link_class, rttS: null});
        return a.snapshot && a.snapshot.durationS; })""", snapshot)
    wrong = [(r["campaign"], r["link_class"], g) for r, g in zip(snapshot, got)
             if (g is None) != (_num(r["duration_s"]) is None)
             or (g is not None and g != pytest.approx(float(r["duration_s"]), rel=1e-12))]
    assert not wrong and any(g is not None for g in got), wrong[:5]
    assert v.errors == [], v.errors


def test_the_lab_model_gives_each_rates_prediction_and_range(site_url, visit, built):
    """fct_lab_series_validation, corrected model, prefill and decode, every series and rate: the
    page's lab model at the rate's TCP rate gives the mart's prediction and range."""
    rows = []
    for path in sorted((built.docs / "labs").glob("*/data/fct_lab_series_validation.csv")):
        rows += [r for r in _csv(path) if r["model"] == "corrected" and r["quantity"] != "KV snapshot"]
    assert rows
    v = _time_page(visit, site_url)
    got = v.page.evaluate("""rows => rows.map(r => {
        const a = window.interconnectWhatIfTime.lab({campaign: r.campaign, tcpBitsPerS: Number(r.tcp_bits_per_s)});
        const p = r.quantity === 'prefill' ? a.prefill : a.decode;
        return p ? [p.timeS, p.tokensPerS, p.lowTokensPerS, p.highTokensPerS] : null; })""", rows)
    wrong = []
    for r, g in zip(rows, got):
        if r["quantity"] == "prefill":
            want = [float(r["predicted"]), _num(r["predicted_low"]), _num(r["predicted_high"])]
            have = [g[1], g[2], g[3]]
        else:
            # a decode step is published in seconds: the range is time x (1 -/+ h), the page's
            # 1 / time x 1 / (1 +/- h) tok/s the same numbers inverted
            want = [float(r["predicted"]), _num(r["predicted_high"]), _num(r["predicted_low"])]
            have = [g[0], None if g[2] is None else 1 / g[2], None if g[3] is None else 1 / g[3]]
        for w, h in zip(want, have):
            if (w is None) != (h is None) or (w is not None and h != pytest.approx(w, rel=1e-9)):
                wrong.append((r["campaign"], r["link_id"], r["quantity"], want, have))
                break
    assert not wrong, wrong[:5]
    assert v.errors == [], v.errors


def test_the_form_answers_a_deployment_on_a_class_and_on_a_rate_of_its_own(site_url, visit, built):
    data = built.docs / "ethernet-bandwidth-math" / "data"
    pre = {r["link_class"]: r for r in _csv(data / "fct_prefill_what_if.csv") if r["campaign"] == "qwen38-27b-pp"}
    dec = {r["link_class"]: r for r in _csv(data / "fct_decode_what_if.csv") if r["campaign"] == "qwen38-27b-pp"}
    v = _time_page(visit, site_url, width=390)
    page = v.page
    page.locator("#whatif-anchor").select_option("deployment:qwen38-27b-pp")
    page.locator("#whatif-link").select_option("10gbe")
    answer = " ".join(page.locator("#whatif-time-answer").inner_text().split())
    p10, d10 = pre["10gbe"], dec["10gbe"]
    gain = float(p10["gain_vs_measured_fraction"])
    assert f"Prefill up to {float(p10['predicted_tokens_per_s']):,.0f} tok/s (+{100 * gain:.1f} %)" in answer, answer
    assert f"decode up to {float(d10['predicted_tokens_per_s']):,.2f} tok/s" in answer, answer
    assert "reconstructed deployment" in answer and "1 parallel slot(s)" in answer
    # a rate and RTT of the reader's own: 1 Gbit/s at the classes' payload share, RTT 2 ms.
    # prefill = ubatch / (residual + ubatch bytes / usable); decode = tokens per step /
    # (compute + 0.002 s + step bytes / usable), the deployment's constants from its rows
    page.locator("#whatif-link").select_option("__any__")
    page.fill("#whatif-gbit", "1")
    page.fill("#whatif-rtt", "2")
    share = float(_csv(built.docs / "your-setup" / "data" / "dim_link_classes.csv")[0]["usable_fraction"])
    usable = 1e9 * share / 8
    m = pre["2.5gbe"]
    want_pre = float(m["ubatch_tokens"]) / (float(m["residual_s"]) + float(m["ubatch_bytes"]) / usable)
    k = dec["2.5gbe"]
    want_dec = float(k["tokens_per_step"]) / (float(k["compute_s"]) + 0.002 + float(k["step_wire_bytes"]) / usable)
    answer = " ".join(page.locator("#whatif-time-answer").inner_text().split())
    assert f"Prefill up to {want_pre:,.0f} tok/s" in answer, answer
    assert f"decode up to {want_dec:,.2f} tok/s" in answer and "RTT of 2.000 ms (yours)" in answer, answer
    page.screenshot(path=str(ARTIFACTS / "your-setup--time-own-rate.png"))
    assert page.evaluate("document.documentElement.scrollWidth - window.innerWidth") <= 0
    assert v.errors == [], v.errors


def test_a_lab_series_is_offered_only_when_its_model_met_the_targets(site_url, visit, built):
    fits = [r for path in sorted((built.docs / "labs").glob("*/data/fct_lab_series_fit.csv"))
            for r in _csv(path) if r["model"] == "corrected" and r["quantity"] == "prefill"]
    want = sorted("lab:" + r["campaign"] for r in fits if r["meets_targets"] == "True")
    v = _time_page(visit, site_url)
    offered = v.page.evaluate("[...document.querySelectorAll('#whatif-anchor option')].map(o => o.value)")
    assert sorted(o for o in offered if o.startswith("lab:")) == want
    assert "deployment:qwen38-27b-pp" in offered
