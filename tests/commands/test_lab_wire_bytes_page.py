"""The committed shape series' bytes on the wire, worked from their raw files in Python (not
with the project's parsers or SQL) and found on the built pages: each run's prefill window is
what llama-server timed (its "prompt eval time" and "eval time" lines, up to the second line's
instant) widened by lab_window_margin_s = 0.5 s both ways; the bytes are the head veth's tx
counter at the first sample at or after the window's end minus the one at the last sample at or
before its start (the sampling intervals the window touches, whole)."""
from __future__ import annotations

import re
import statistics
from datetime import datetime
from pathlib import Path

import pytest
import yaml

from conftest import REPO

LABS = REPO / "raw_data" / "labs"
MARGIN = 0.5
TIMING = re.compile(r"^(\S+) .* task (\d+) \| +(prompt eval|eval) time = +([\d.]+) ms / +(\d+) tokens")


def _timings(log: Path) -> dict[int, dict]:
    """task -> {instant of its last timing line, prompt eval ms, eval ms, prompt tokens}."""
    tasks: dict[int, dict] = {}
    for line in log.read_text().splitlines():
        m = TIMING.match(line)
        if m:
            stamp, task, kind, ms, tokens = m.groups()
            t = tasks.setdefault(int(task), {})
            t["at"] = max(t.get("at", 0.0), datetime.fromisoformat(stamp).timestamp())
            t[kind] = float(ms)
            if kind == "prompt eval":
                t["tokens"] = int(tokens)
    return tasks


def _tx_samples(capture: Path, iface: str) -> list[tuple[float, int]]:
    samples, at = [], None
    for line in capture.read_text().splitlines():
        if line.startswith("@ "):
            at = float(line[2:])
        elif at is not None and line.strip().startswith(iface + ":"):
            samples.append((at, int(line.split(":", 1)[1].split()[8])))
    return samples


def _prefill_bytes_per_position(folder: Path) -> tuple[float, int]:
    manifest = yaml.safe_load((folder / "manifest.yaml").read_text())
    iface = manifest["links"]["veth"]["interfaces"]["lab-head"]
    samples = _tx_samples(next((folder / "netdev").glob("lab-head*.netdev")), iface)
    tasks = _timings(folder / "journal" / "lab-head-llama-server.log")
    per_position = []
    for run in manifest["params"]["lab_runs"]:
        t = tasks[run["prefill_task"]]
        start = t["at"] - (t["prompt eval"] + t["eval"]) / 1000 - MARGIN
        end = t["at"] + MARGIN
        before = [v for s, v in samples if s <= start][-1]
        after = [v for s, v in samples if s >= end][0]
        per_position.append((after - before) / t["tokens"])
    return statistics.median(per_position), len(per_position)


@pytest.mark.parametrize("name", ["lab-rpc-shape-h256", "lab-rpc-shape-h1024-head"])
def test_the_prefill_bytes_per_position_on_the_pages(built, name):
    median, runs = _prefill_bytes_per_position(LABS / name)
    assert runs == 9                                        # 3 rates x 3 rounds
    kib = f"{median / 1024:.2f} KiB"
    page = (built.root / "docs" / "labs" / f"{name}.md").read_text()
    assert f"| prefill | head to worker | position | {runs} | {kib} |" in page
    math = (built.root / "docs" / "ethernet-bandwidth-math.md").read_text()
    assert re.search(rf"\| prefill forward per position \| \[{name}\]\([^)]*\) \| [^|]+ \| [^|]+ \| "
                     rf"[^|]+ \| {re.escape(kib)} \(", math)


def test_what_a_faster_link_buys_is_an_upper_bound_beside_the_lab_overlap(built):
    """Home's bottom line quotes the additive gain as "up to", with the workload it holds for, and
    the share of prefill wire bytes that still cost time above the knee in the lab series whose
    corrected fit has a knee and a range (a series with fewer than 9 calibration rates between two
    others has no range at 90 %, and is left out)."""
    import duckdb
    con = duckdb.connect(str(built.root / ".warehouse" / "interconnect.duckdb"), read_only=True)
    fits = con.execute("select campaign, slope_bytes, measured_wire_bytes, left_out_rates, "
                       "knee_bits_per_s from main.fct_lab_series_fit "
                       "where quantity = 'prefill' and model = 'corrected' "
                       "order by campaign").fetchall()
    quoted = [c for (c,) in con.execute("select campaign from main.fct_lab_prefill_overlap "
                                        "order by campaign").fetchall()]
    k = con.execute("select parallel_slots, prefill_tokens from main.fct_deployment_constants "
                    "where campaign = 'qwen38-27b-pp'").fetchone()
    con.close()
    # the rule, from the folders' own rates: a knee, bytes counted, and n >= 0.9 / 0.1 = 9
    assert quoted == [c for c, _, counted, n, knee in fits
                      if counted is not None and knee is not None and n >= 9]
    # every shipped series with 16 or fewer rates has at most 7 left-out rates
    assert "lab-rpc-series-h512-dense" not in quoted
    home = " ".join((built.root / "docs" / "index.md").read_text().split())
    con = duckdb.connect(str(built.root / ".warehouse" / "interconnect.duckdb"), read_only=True)
    pre = con.execute("select gain_vs_measured_fraction, gain_low_fraction, gain_high_fraction, "
                      "additive_gain_vs_measured_fraction, model_meets_targets "
                      "from main.fct_prefill_pipeline_what_if where campaign = 'qwen38-27b-pp' "
                      "and link_class = '10gbe'").fetchone()
    con.close()
    if pre[4]:
        # the pipeline model met its targets on the lab: its gain with the range, the additive
        # figure beside it as the bound, and no "up to" lead
        pct = [f"{v * 100:+.1f}%" for v in pre[:4]]
        assert (f"10 GbE: **{pct[0]} prefill** ({pct[1]} to {pct[2]}; additive bound {pct[3]})"
                in home), home[:1500]
        assert "**up to +" not in home.split("## The constants")[0]
    else:
        assert "10 GbE: **up to +" in home and "**+10" not in home
    assert f"{k[0]} parallel slot, a {k[1]:,}-token prompt in micro-batches of 256" in home
    # decode beside prefill: the 10 GbE row's predicted rate over the measured class's, minus 1
    con = duckdb.connect(str(built.root / ".warehouse" / "interconnect.duckdb"), read_only=True)
    dec = dict(con.execute("select link_class, predicted_tokens_per_s from main.fct_decode_what_if "
                           "where campaign = 'qwen38-27b-pp'").fetchall())
    measured = con.execute("select link_class from main.fct_decode_what_if where campaign = "
                           "'qwen38-27b-pp' and is_measured").fetchone()[0]
    ranged = con.execute("select gain_low_fraction, gain_high_fraction, model_meets_targets "
                         "from main.fct_decode_range_what_if where campaign = 'qwen38-27b-pp' "
                         "and link_class = '10gbe'").fetchone()
    con.close()
    gain = dec["10gbe"] / dec[measured] - 1
    if ranged[2]:
        # the decode model met its targets on the lab: the gain with its range, not a bound
        assert (f"**{gain * 100:+.1f}% decode** ({ranged[0] * 100:+.1f}% to {ranged[1] * 100:+.1f}%)"
                in home), home[:1500]
    else:
        assert f"**up to {gain * 100:+.1f}% decode**" in home and "% decode** (" not in home, home[:1500]
    if not quoted or pre[4]:
        # no series to quote, or the pipeline model's prediction leads instead of the bound
        assert "In the lab series that counted" not in home
        return
    for c, slope, counted, _, _ in fits:
        if c in quoted:
            assert f"{round(100 * slope / counted)}%" in home.split("In the lab series that counted")[1][:400]


def test_the_snapshot_what_if_carries_the_lab_range(built):
    """A deployment's snapshot on another class is printed with the snapshot model's range while
    the lab series hold that model within its targets: duration x (1 -/+ h), from the marts."""
    import duckdb
    con = duckdb.connect(str(built.root / ".warehouse" / "interconnect.duckdb"), read_only=True)
    rows = con.execute("select link_label, duration_s, low_s, high_s, model_meets_targets, range_fraction "
                       "from main.fct_kv_snapshot_range_what_if where campaign = 'qwen38-27b-pp' "
                       "and not is_measured order by sort_order").fetchall()
    con.close()
    page = (built.root / "docs" / "deployments" / "qwen38-27b-pp.md").read_text()
    assert rows
    for label, duration, low, high, met, h in rows:
        if met:
            assert low == pytest.approx(duration * (1 - h)) and high == pytest.approx(duration * (1 + h))
            assert f"| {label} | {duration:.1f} s (model, {low:.1f} s to {high:.1f} s: the [snapshot model]" in page
        else:
            assert low is None and f"| {label} | {duration:.1f} s (model) |" in page
