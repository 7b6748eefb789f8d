"""50 Hz ``/proc/net/dev`` captures: sample grid, background traffic, counters, text."""
from __future__ import annotations

import random

import numpy as np

from .session import Session
from .targets import ACK_BYTES, fmt_ts, rel

NETDEV_HEAD = ("Inter-|   Receive                                                |  Transmit\n"
               " face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets "
               "errs drop fifo colls carrier compressed\n")
IFACES = {"server": ["lo", "eno1"], "claw": ["lo", "eno1", "wlan0", "enx00e04cc2e1e5"]}
# counters at T0 - 120 s: rx_bytes, rx_packets, tx_bytes, tx_packets, multicast, and the
# static error columns (rx errs, rx drop, rx fifo, rx frame, tx errs, tx drop, tx fifo, colls, carrier)
BASE = {
    ("server", "lo"): (18_734_552_913, 21_604_771, 18_734_552_913, 21_604_771, 0, (0,) * 9),
    ("server", "eno1"): (4_871_336_220_187, 3_418_872_903, 3_906_114_370_558, 2_955_108_644, 1_284_917,
                         (0, 11_482, 0, 0, 0, 0, 0, 0, 0)),
    ("claw", "lo"): (2_210_874_001, 3_917_220, 2_210_874_001, 3_917_220, 0, (0,) * 9),
    ("claw", "eno1"): (412_904_117_625, 301_554_802, 447_113_790_340, 317_006_655, 96_113,
                       (0, 2_091, 0, 0, 0, 0, 0, 0, 0)),
    ("claw", "wlan0"): (88_214_553, 412_660, 9_117_204, 61_937, 203_871, (0, 17, 0, 0, 0, 0, 0, 0, 0)),
    ("claw", "enx00e04cc2e1e5"): (2_934_511_870_046, 2_049_336_518, 2_987_016_443_902, 2_102_447_190,
                                  51_227, (0, 318, 0, 0, 0, 0, 0, 0, 0)),
}
BG = {  # background events per second (rx, tx): ARP, mDNS, ssh keepalives, NTP, exporters
    ("server", "eno1"): (7.0, 7.0), ("claw", "eno1"): (6.0, 7.0),
    ("claw", "wlan0"): (0.8, 0.05), ("server", "lo"): (2.0, 0.0), ("claw", "lo"): (0.6, 0.0),
}


def sample_grid(rng: random.Random, start_us: int, end_us: int) -> list[int]:
    """A drift-free 50 Hz schedule read a little late (scheduler wake-up), rarely very late."""
    out, k = [], 0
    while True:
        ideal = start_us + k * 20_000
        if ideal > end_us:
            return out
        late = min(900, max(25, int(rng.gauss(170, 80))))
        if rng.random() < 1 / 700:
            late += rng.randint(4_000, 11_200)
        out.append(ideal + late)
        k += 1


def add_background(s: Session, rng: random.Random, host: str, start_us: int, end_us: int) -> None:
    a, b = rel(start_us) - 1.0, rel(end_us) + 1.0
    for (h, iface), (lam_rx, lam_tx) in BG.items():
        if h != host:
            continue
        for direction, lam in (("rx", lam_rx), ("tx", lam_tx)):
            if lam == 0:
                continue
            t = a + rng.expovariate(lam)
            while t < b:
                u = rng.random()
                size = (ACK_BYTES if u < 0.45 else rng.randint(90, 400) if u < 0.85 else rng.randint(400, 1514))
                if iface == "lo":   # loopback: what is sent is received, same instant
                    size = rng.randint(120, 3200)
                    for d in ("rx", "tx"):
                        s.flow(host, iface, d, t, t, size, 1)
                else:
                    s.flow(host, iface, direction, t, t, size, 1)
                    if direction == "rx" and rng.random() < 0.12:
                        s.flows.setdefault((host, iface, "multicast"), []).append((t, t, 1))
                t += rng.expovariate(lam)


def add_gap_background(s: Session, host: str, a_us: int, b_us: int) -> None:
    """Unsampled background between captures, as one linear flow per counter."""
    for (h, iface), (lam_rx, lam_tx) in BG.items():
        if h != host:
            continue
        secs = (b_us - a_us) / 1e6
        for direction, lam in (("rx", lam_rx), ("tx", lam_tx)):
            if iface == "lo":
                lam = lam_rx
            if lam:
                n = int(lam * secs)
                s.flow(host, iface, direction, rel(a_us), rel(b_us), n * 420, n)


def counter_values(s: Session, key: tuple[str, str, str], t_rel: np.ndarray) -> np.ndarray:
    segs = s.flows.get(key, [])
    if not segs:
        return np.zeros(len(t_rel), dtype=np.int64)
    arr = np.array(segs, dtype=float)
    out = np.zeros(len(t_rel))
    for chunk in range(0, len(arr), 2000):
        a, b, v = arr[chunk:chunk + 2000].T
        span = np.where(b > a, b - a, 1.0)
        frac = np.clip((t_rel[:, None] - a) / span, 0.0, 1.0)
        frac = np.where(b > a, frac, (t_rel[:, None] >= a).astype(float))
        out += frac @ v
    return np.rint(out).astype(np.int64)


def netdev_text(s: Session, host: str, grid: list[int], started_us: int) -> str:
    t_rel = np.array([rel(g) for g in grid])
    cols = {}
    for iface in IFACES[host]:
        cols[iface] = [counter_values(s, (host, iface, f), t_rel) for f in
                       ("rx_bytes", "rx_packets", "tx_bytes", "tx_packets", "multicast")]
    gaps = np.diff(np.array(grid)) / 1000
    achieved = (len(grid) - 1) / ((grid[-1] - grid[0]) / 1e6)
    out = ["# procnetdev-capture v1\n",
           f"# host={host} rate_hz=50 achieved_hz={achieved:.2f} worst_gap_ms={gaps.max():.1f} "
           f"started={fmt_ts(started_us)}\n"]
    for k, g in enumerate(grid):
        out.append(f"@ {fmt_ts(g)}\n")
        out.append(NETDEV_HEAD)
        for iface in IFACES[host]:
            rb, rp, tb, tp, mc, (re_, rd, rf, rfr, te, td, tf, co, ca) = BASE[(host, iface)]
            c = cols[iface]
            out.append(f"{iface:>6}: {rb + int(c[0][k]):7d} {rp + int(c[1][k]):7d} {re_:4d} {rd:4d} "
                       f"{rf:4d} {rfr:5d} {0:10d} {mc + int(c[4][k]):9d} {tb + int(c[2][k]):8d} "
                       f"{tp + int(c[3][k]):7d} {te:4d} {td:4d} {tf:4d} {co:5d} {ca:7d} {0:10d}\n")
    return "".join(out)
