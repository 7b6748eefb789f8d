"""The lab series' network: the head's namespace joined to each worker's by a veth pair of its
own (a star; llama.cpp's RPC client copies between two workers through the head, so a star is
the path that traffic takes anyway).

One worker is the namespace lab of ``pipeline/collect/netns_lab.py`` exactly (``<prefix>a`` and
``<prefix>b``, ``<prefix>va``/``<prefix>vb``, 10.203.0.1/30 and .2, host ``lab-worker``). A
second worker gets ``<prefix>c``, the pair ``<prefix>vc``/``<prefix>vd`` and 10.203.0.5/30 and
.6; with two, the workers are ``lab-worker-1`` and ``lab-worker-2`` and the links are named by
hop (``hop1_veth_tbf25``). Every pair is shaped alike (tbf on both ends)."""
from __future__ import annotations

import subprocess
from dataclasses import dataclass

from pipeline.collect.campaign import CollectError
from pipeline.collect.llama_lab.series_plan import label, link_class, link_id
from pipeline.collect.llama_lab.setup import HEAD, WORKER
from pipeline.collect.netns_lab import DEFAULT_BURST_KB, PREFIX_LEN, Lab, sh

MAX_WORKERS = 2


@dataclass(frozen=True)
class Hop:
    number: int          # 1, 2: the worker's place in LLAMA_ARG_RPC (its RPC device)
    worker: str          # the worker's host name
    ns: str              # the worker's namespace
    if_head: str         # the head's end of the pair
    if_worker: str       # the worker's end
    head_addr: str
    worker_addr: str


class Star:
    """The head and ``workers`` workers; ``rate_mbit`` is the tbf rate on every pair (None:
    unshaped)."""

    def __init__(self, prefix: str, workers: int, burst_kb: int = DEFAULT_BURST_KB):
        if not 1 <= workers <= MAX_WORKERS:
            raise CollectError(f"--workers: {workers}; the lab builds 1 or {MAX_WORKERS}")
        self.lab = Lab(prefix, None, burst_kb)   # checks the prefix, names the head's namespace
        self.prefix = prefix
        self.rate_mbit: int | None = None
        self.hops = [Hop(number=i + 1,
                         worker=WORKER if workers == 1 else f"{WORKER}-{i + 1}",
                         ns=f"{prefix}{chr(ord('b') + i)}",
                         if_head=f"{prefix}v{chr(ord('a') + 2 * i)}",
                         if_worker=f"{prefix}v{chr(ord('b') + 2 * i)}",
                         head_addr=f"10.203.0.{4 * i + 1}", worker_addr=f"10.203.0.{4 * i + 2}")
                     for i in range(workers)]

    @property
    def ns_head(self) -> str:
        return self.lab.ns_a

    @property
    def qdisc(self) -> list[str]:
        self.lab.rate_mbit = self.rate_mbit
        return self.lab.qdisc

    def link(self, hop: Hop, rate: int | None) -> str:
        """The manifest's link id of ``hop`` at ``rate``."""
        return link_id(rate) if len(self.hops) == 1 else f"hop{hop.number}_{link_id(rate)}"

    def link_entry(self, hop: Hop) -> dict:
        """The manifest's entry of ``hop``'s link at the current rate."""
        text = label(self.rate_mbit)
        entry = {"label": text if len(self.hops) == 1 else f"hop {hop.number} (head - {hop.worker}), {text}",
                 "class": link_class(self.rate_mbit),
                 "interfaces": {HEAD: hop.if_head, hop.worker: hop.if_worker},
                 "status": "current", "nominal_speed": True}
        if self.rate_mbit is not None:
            entry["shaped_rate_bits_per_s"] = self.rate_mbit * 1_000_000
            entry["shaped_burst_bytes"] = self.lab.burst_kb * 1024
            entry["qdisc"] = f"tc qdisc add dev <veth end> root {' '.join(self.qdisc)} (both ends)"
        return entry

    def setup_text(self) -> str:
        pairs = [f"veth pair {h.if_head} ({h.head_addr}/{PREFIX_LEN}, netns {self.ns_head}, {HEAD}) "
                 f"<-> {h.if_worker} ({h.worker_addr}/{PREFIX_LEN}, netns {h.ns}, {h.worker})"
                 for h in self.hops]
        ends = "both ends" if len(self.hops) == 1 else "every end"
        return "; ".join(pairs) + f"; {ends} re-shaped before each run"


def up(star: Star) -> None:
    sh("ip", "netns", "add", star.ns_head)
    for hop in star.hops:
        sh("ip", "netns", "add", hop.ns)
        sh("ip", "link", "add", hop.if_head, "netns", star.ns_head, "type", "veth",
            "peer", "name", hop.if_worker, "netns", hop.ns)
        for ns, iface, addr in ((star.ns_head, hop.if_head, hop.head_addr),
                                (hop.ns, hop.if_worker, hop.worker_addr)):
            sh("ip", "-n", ns, "addr", "add", f"{addr}/{PREFIX_LEN}", "dev", iface)
            sh("ip", "-n", ns, "link", "set", "lo", "up")
            sh("ip", "-n", ns, "link", "set", iface, "up")


def down(star: Star) -> None:
    # deleting a namespace deletes the veth ends inside it, and with them their peers
    for ns in [star.ns_head] + [hop.ns for hop in star.hops]:
        subprocess.run(["ip", "netns", "del", ns], capture_output=True, check=False)


def shape(star: Star, rate: int | None) -> None:
    """tbf at ``rate`` on both ends of every pair (or no qdisc)."""
    star.rate_mbit = rate
    for hop in star.hops:
        for ns, iface in ((star.ns_head, hop.if_head), (hop.ns, hop.if_worker)):
            subprocess.run(["ip", "netns", "exec", ns, "tc", "qdisc", "del", "dev", iface, "root"],
                           capture_output=True, check=False)
            if star.qdisc:
                r = subprocess.run(["ip", "netns", "exec", ns, "tc", "qdisc", "add", "dev", iface,
                                    "root", *star.qdisc], capture_output=True, text=True, check=False)
                if r.returncode != 0:
                    raise CollectError(f"tc qdisc add dev {iface} root {' '.join(star.qdisc)}: "
                                       f"{r.stderr.strip()}")
