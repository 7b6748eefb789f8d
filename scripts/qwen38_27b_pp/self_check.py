"""Read the written campaign back with plain Python and assert the seed's numbers."""
from __future__ import annotations

import json
import math
import re
from pathlib import Path

from .ping import iputils_stats, iputils_time
from .targets import (
    BUSY_BPS,
    H2W_PER_POS,
    KV_BYTES_PER_TOKEN_LAYER,
    PING,
    PREFILL_MS,
    PROMPT_TOKENS,
    SNAP_BYTES,
    SNAP_LINK_S,
    SNAP_TOKENS,
    SNAP_TOOK_MS,
    TASK_ID,
    W2H_PER_POS,
)


def read_netdev(path: Path, iface: str) -> tuple[list[int], list[int]]:
    """(sample µs, tx_bytes) of one interface, read back from the capture text."""
    ts, tx, cur = [], [], None
    for line in path.read_text().splitlines():
        if line.startswith("@ "):
            sec, frac = line[2:].split(".")
            cur = int(sec) * 1_000_000 + int(frac)
        elif line.strip().startswith(iface + ":"):
            fields = line.split(":", 1)[1].split()
            ts.append(cur)
            tx.append(int(fields[8]))
    return ts, tx


def window_delta(ts, c, a_us, b_us):
    """Counter at t = value at the last sample with timestamp <= t."""
    ia = max(i for i, t in enumerate(ts) if t <= a_us)
    ib = max(i for i, t in enumerate(ts) if t <= b_us)
    return c[ib] - c[ia]


def baseline_rate(ts, c, w_start_us):
    ib = max(i for i, t in enumerate(ts) if t <= w_start_us - 1_000_000)
    return (c[ib] - c[0]) / ((ts[ib] - ts[0]) / 1e6)


def self_check(out: Path) -> None:
    rows = []

    def row(name, value, target, ok):
        rows.append((name, value, target, "ok" if ok else "FAIL"))

    entries = [json.loads(x) for x in (out / "journal/frank-dragoon.json").read_text().splitlines()]
    msgs = [(int(e["__REALTIME_TIMESTAMP"]), e["MESSAGE"]) for e in entries]
    t0 = next(t for t, m in msgs if f"task {TASK_ID} | new prompt" in m)
    t1 = next(t for t, m in msgs if "prompt cache update took 14418.00 ms" in m)
    timing_i = next(i for i, (t, m) in enumerate(msgs) if m.startswith(f"slot print_timing: id  0 | task {TASK_ID}"))
    pm = re.search(r"prompt eval time =\s+([\d.]+) ms /\s+(\d+) tokens", msgs[timing_i + 1][1])
    em = re.search(r"eval time =\s+([\d.]+) ms /\s+(\d+) tokens", msgs[timing_i + 2][1])
    dm = re.search(r"\(\s*(\d+) accepted /\s*(\d+) generated\)", msgs[timing_i + 5][1])
    p_tps = int(pm.group(2)) / (float(pm.group(1)) / 1000)
    d_tps = int(em.group(2)) / (float(em.group(1)) / 1000)
    row("prefill tok/s", f"{p_tps:.1f}", "457.9", f"{p_tps:.1f}" == "457.9")
    row("decode tok/s", f"{d_tps:.2f}", "23.47", f"{d_tps:.2f}" == "23.47")
    steps = int(em.group(2)) - int(dm.group(1))
    row("MTP verify steps", steps, 250, steps == 250 and int(dm.group(2)) == 4 * steps)
    n_prog = sum(1 for _, m in msgs if f"task {TASK_ID} | prompt processing progress" in m)
    row("prefill ubatch lines", n_prog, 55, n_prog == 55)

    win = int(PREFILL_MS * 1000)
    for host, target, label in (("server", H2W_PER_POS, "head->worker B/position"),
                                ("claw", W2H_PER_POS, "worker->head B/position")):
        ts, tx = read_netdev(out / f"netdev/{host}-prefill.netdev", "eno1")
        assert ts[0] <= t0 - 8_000_000 and ts[-1] >= t0 + win + 3_000_000
        per = (window_delta(ts, tx, t0, t0 + win) - baseline_rate(ts, tx, t0) * win / 1e6) / PROMPT_TOKENS
        row(label, f"{per:.1f} ({per / 1024:.1f} KiB)", f"{target} +-30 ({target / 1024:.1f} KiB)",
            abs(per - target) <= 30 and f"{per / 1024:.1f}" == f"{target / 1024:.1f}")

    ts, tx = read_netdev(out / "netdev/claw-snapshot.netdev", "eno1")
    w0 = t1 - int(SNAP_TOOK_MS * 1000)
    assert ts[0] <= w0 - 8_000_000 and ts[-1] >= t1 + 3_000_000
    snap = window_delta(ts, tx, w0, t1) - baseline_rate(ts, tx, w0) * SNAP_TOOK_MS / 1000
    busy = [((tx[i + 1] - tx[i]) / ((ts[i + 1] - ts[i]) / 1e6), (ts[i + 1] - ts[i]) / 1e6)
            for i in range(len(ts) - 1) if ts[i] >= w0 and ts[i + 1] <= t1]
    busy = [(r, d) for r, d in busy if r > BUSY_BPS]
    link_s = sum(d for _, d in busy)
    first_busy = next(ts[i] for i in range(len(ts) - 1) if ts[i] >= w0 and
                      (tx[i + 1] - tx[i]) / ((ts[i + 1] - ts[i]) / 1e6) > BUSY_BPS)
    row("snapshot bytes", f"{snap:,.0f}", "3,454,000,000 +-300,000", abs(snap - SNAP_BYTES) <= 3e5)
    row("snapshot link time s", f"{link_s:.3f}", "13.6 +-0.03", abs(link_s - SNAP_LINK_S) <= 0.03)
    row("snapshot avg MB/s", f"{snap / link_s / 1e6:.2f}", "254 +-0.4", abs(snap / link_s / 1e6 - 254) <= 0.4)
    peak = max(r for r, _ in busy) / 1e6
    row("snapshot peak MB/s", f"{peak:.2f}", "308 +-0.4", abs(peak - 308) <= 0.4)
    row("transfer starts after W_snap", f"{(first_busy - w0) / 1e6:.3f} s", "~0.4 s",
        0.3 <= (first_busy - w0) / 1e6 <= 0.5)
    ms = re.search(r"saving prompt with length (\d+), total state size = ([\d.]+) MiB",
                   next(m for _, m in msgs if "prompt_save" in m))
    row("snapshot prompt length", ms.group(1), SNAP_TOKENS, int(ms.group(1)) == SNAP_TOKENS)
    model = SNAP_TOKENS * 11 * KV_BYTES_PER_TOKEN_LAYER
    row("model check 98100x11x3136 B", f"{model / 1e9:.3f} GB", "3.38 GB", f"{model / 1e9:.2f}" == "3.38")

    for name, target in (("claw-to-server", 281), ("server-to-claw", 294)):
        doc = json.loads((out / f"iperf3/{name}.json").read_text())
        mbs = doc["end"]["sum_received"]["bits_per_second"] / 8 / 1e6
        rev = doc["start"]["test_start"]["reverse"]
        b, sec = doc["end"]["sum_received"]["bytes"], doc["end"]["sum_received"]["seconds"]
        ok = round(mbs) == target and abs(b * 8 / sec - doc["end"]["sum_received"]["bits_per_second"]) < 1
        ok &= rev == (name == "server-to-claw")
        row(f"iperf3 {name} MB/s", f"{mbs:.3f} (reverse={rev})", target, ok)

    for link, (tmin, tavg, tmax, tmdev) in PING.items():
        text = (out / f"ping/server-to-claw-{link}.txt").read_text()
        times = re.findall(r"time=([\d.]+) ms", text)
        summary = re.search(r"rtt min/avg/max/mdev = ([\d.]+)/([\d.]+)/([\d.]+)/([\d.]+) ms", text)
        smax_us = round(float(summary.group(3)) * 1000)
        # replies carry exact µs (3 decimals under 1 ms, whole 10 µs above) except the
        # maximum, which iputils rounds to 2 decimals: its µs is the summary's max
        us = [round(float(t) * 1000) for t in times]
        at_max = [i for i, t in enumerate(times) if t == iputils_time(smax_us)]
        assert len(at_max) == 1
        us[at_max[0]] = smax_us
        got = iputils_stats(us)
        mean = sum(us) / len(us)
        mdev_float = math.sqrt(sum(x * x for x in us) / len(us) - mean * mean) / 1000
        want = "/".join(f"{v / 1000:.3f}" for v in (tmin, tavg, tmax, tmdev))
        shown = "/".join(summary.groups())
        row(f"ping {link} (replies -> summary)", "/".join(f"{v / 1000:.3f}" for v in got)
            + f" (float mdev {mdev_float:.4f})", want, shown == want and got == (tmin, tavg, tmax, tmdev)
            and len(us) == 20)

    import gguf
    r = gguf.GGUFReader(str(out / "gguf/qwen38-27b.metadata.gguf"))
    kv = {f.name: f.contents() for f in r.fields.values()}
    fa = kv["qwen35.block_count"] - 1
    kv_tok = kv["qwen35.attention.head_count_kv"] * kv["qwen35.attention.key_length"]
    row("GGUF FA layers (64 / interval 4)", fa // kv["qwen35.full_attention_interval"], 16,
        fa // kv["qwen35.full_attention_interval"] == 16 and len(r.tensors) == 0)
    kv_b = kv_tok // 32 * 34 + kv_tok * 2
    row("KV B/token/FA layer (q8_0 K + f16 V)", kv_b, 3136, kv_b == 3136)
    env = dict(line.split("=", 1) for line in (out / "env/frank-dragoon.env").read_text().splitlines()
               if line and not line.startswith("#"))
    split = [float(x) for x in env["TENSOR_SPLIT"].split(",")]
    # llama.cpp (llama-model.cpp load_tensors): block il goes to the first device whose
    # cumulative split fraction exceeds il / (n_layer + 1); the +1 is the output layer
    n_block = kv["qwen35.block_count"]
    on_claw = sum(1 for il in range(n_block) if il / (n_block + 1) < split[0] / sum(split))
    row("blocks on claw (upper_bound il/66 < 0.68)", on_claw, 45, on_claw == 45)
    for name in ("server-eno1", "claw-eno1", "claw-enx00e04cc2e1e5"):
        sp = re.search(r"Speed: (\d+)Mb/s", (out / f"ethtool/{name}.txt").read_text()).group(1)
        row(f"ethtool {name}", f"{sp}Mb/s", "1000Mb/s" if "enx" in name else "2500Mb/s",
            sp == ("1000" if "enx" in name else "2500"))

    size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    row("campaign size MB", f"{size / 1e6:.2f}", "< 15", size < 15e6)

    w = max(len(r[0]) for r in rows)
    v = max(len(str(r[1])) for r in rows)
    print(f"{'check':<{w}}  {'value':<{v}}  target")
    for name, value, target, status in rows:
        print(f"{name:<{w}}  {str(value):<{v}}  {target}  [{status}]")
    failed = [r[0] for r in rows if r[3] != "ok"]
    assert not failed, f"self-check failed: {failed}"
