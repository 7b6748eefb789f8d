"""Write every file of the campaign, in the order that fixes the random draws."""
from __future__ import annotations

import random
from pathlib import Path

import numpy as np

from .env_file import ENV_TEXT
from .ethtool import ethtool_text
from .gguf_header import write_gguf
from .iperf3 import iperf3_run
from .journal import journal_text
from .manifest import manifest_text
from .netdev import add_background, add_gap_background, counter_values, netdev_text, sample_grid
from .ping import find_rtts, ping_text
from .snapshot import snapshot_transfer
from .targets import (
    CLAW_IP,
    CLAW_USB_IP,
    IPERF_C2S_BPS,
    IPERF_S2C_BPS,
    PING,
    SEED,
    T0_US,
    rel,
    write,
)
from .timeline import build_session


def build(out: Path) -> dict:
    out.mkdir(parents=True, exist_ok=True)
    files: list[tuple[str, str, dict]] = []

    write_gguf(out / "gguf/qwen38-27b.metadata.gguf")
    files.append(("gguf/qwen38-27b.metadata.gguf", "gguf", {"host": "server"}))
    write(out / "env/frank-dragoon.env", ENV_TEXT)
    files.append(("env/frank-dragoon.env", "env", {"host": "server", "split_hosts": "claw,server"}))

    for host, iface, nic in (("server", "eno1", "igc"), ("claw", "eno1", "igc"),
                             ("claw", "enx00e04cc2e1e5", "r8152")):
        name = f"ethtool/{host}-{iface}.txt"
        write(out / name, ethtool_text(iface, nic))
        files.append((name, "ethtool", {"host": host, "interface": iface}))

    rng = random.Random(SEED + "/iperf3")
    write(out / "iperf3/claw-to-server.json", iperf3_run(rng, False, IPERF_C2S_BPS, 1786993032_000000))
    write(out / "iperf3/server-to-claw.json", iperf3_run(rng, True, IPERF_S2C_BPS, 1786993061_000000))
    files.append(("iperf3/claw-to-server.json", "iperf3", {"link": "gbe25", "sender": "claw", "receiver": "server"}))
    files.append(("iperf3/server-to-claw.json", "iperf3", {"link": "gbe25", "sender": "server", "receiver": "claw"}))

    for link, dest, bimodal in (("gbe1_usb", CLAW_USB_IP, True), ("gbe25", CLAW_IP, False)):
        rng = random.Random(SEED + "/ping/" + link)
        rtts = find_rtts(rng, PING[link], bimodal)
        write(out / f"ping/server-to-claw-{link}.txt", ping_text(dest, rtts, 19000 + rng.randint(18, 64)))
        files.append((f"ping/server-to-claw-{link}.txt", "ping",
                      {"link": link, "sender": "server", "receiver": "claw"}))

    # ---- the session, the captures around it, and the snapshot transfer on claw's grid
    session, info = build_session()
    grng = random.Random(SEED + "/netdev")
    cap = {
        ("server", "prefill"): (T0_US - 9_612_004, info["prefill_release_us"] + 3_604_118),
        ("claw", "prefill"): (T0_US - 9_303_551, info["prefill_release_us"] + 3_881_202),
        ("server", "snapshot"): (info["w_snap_start_us"] - 10_402_337, info["t1_us"] + 4_206_417),
        ("claw", "snapshot"): (info["w_snap_start_us"] - 10_118_880, info["t1_us"] + 4_402_913),
    }
    grids = {k: sample_grid(grng, a, b) for k, (a, b) in sorted(cap.items())}
    for host in ("server", "claw"):
        add_background(session, grng, host, *cap[(host, "prefill")])
        add_background(session, grng, host, *cap[(host, "snapshot")])
        add_gap_background(session, host, cap[(host, "prefill")][1] + 1_000_000,
                           cap[(host, "snapshot")][0] - 1_000_000)
    # background on claw eno1 tx alone, to size the snapshot so its baseline-corrected bytes hit 3.454e9
    g = grids[("claw", "snapshot")]
    bg = counter_values(session, ("claw", "eno1", "tx_bytes"), np.array([rel(x) for x in g]))
    w0, t1 = info["w_snap_start_us"], info["t1_us"]
    ia = max(i for i, x in enumerate(g) if x <= w0)
    ib = max(i for i, x in enumerate(g) if x <= t1)
    ibase = max(i for i, x in enumerate(g) if x <= w0 - 1_000_000)
    baseline = (bg[ibase] - bg[0]) / ((g[ibase] - g[0]) / 1e6)
    info["snapshot"] = snapshot_transfer(session, g, info, (float(bg[ib] - bg[ia]), float(baseline)))

    for (host, phase), grid in sorted(grids.items()):
        name = f"netdev/{host}-{phase}.netdev"
        start_us = cap[(host, phase)][0]
        write(out / name, netdev_text(session, host, grid, start_us))
        files.append((name, "netdev", {"host": host, "link": "gbe25"}))

    write(out / "journal/frank-dragoon.json", journal_text(session.log))
    files.append(("journal/frank-dragoon.json", "journal",
                  {"host": "server", "service": "frank-dragoon"}))

    files.sort(key=lambda f: f[0])
    write(out / "manifest.yaml", manifest_text(files))
    return info
