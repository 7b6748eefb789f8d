"""The lab series' network (pipeline/collect/llama_lab/topology.py): one worker is the namespace
lab exactly as the earlier series ran it; two workers get a namespace, a veth pair and a /30 each,
and links named by hop. Building it needs root and runs in the capture tests; the names,
addresses and llama-server's RPC settings are checked here."""
from __future__ import annotations

import pytest

from pipeline.collect.campaign import CollectError
from pipeline.collect.llama_lab.series import split_settings
from pipeline.collect.llama_lab.topology import Star
from pipeline.collect.netns_lab import CLIENT_ADDR, SERVER_ADDR, Lab


def test_one_worker_is_the_namespace_lab_unchanged():
    star, lab = Star("lsr1", 1), Lab("lsr1", None)
    (hop,) = star.hops
    assert (star.ns_head, hop.ns, hop.if_head, hop.if_worker) == (lab.ns_a, lab.ns_b, lab.if_a, lab.if_b)
    assert (hop.head_addr, hop.worker_addr, hop.worker) == (SERVER_ADDR, CLIENT_ADDR, "lab-worker")
    star.rate_mbit = 50
    assert star.link(hop, 50) == "veth_tbf50" and star.link(hop, None) == "veth"
    entry = star.link_entry(hop)
    assert entry["label"] == "veth, tbf 50 Mbit/s (namespace lab)"
    assert entry["interfaces"] == {"lab-head": "lsr1va", "lab-worker": "lsr1vb"}
    assert entry["shaped_rate_bits_per_s"] == 50_000_000
    assert split_settings(star, None) == {"LLAMA_ARG_RPC": "10.203.0.2:50052", "LLAMA_ARG_TENSOR_SPLIT": "1"}
    assert "both ends re-shaped" in star.setup_text()


def test_two_workers_each_get_a_pair_a_subnet_and_a_hop_link():
    star = Star("lsr1", 2)
    one, two = star.hops
    assert (one.ns, one.if_head, one.if_worker, one.worker) == ("lsr1b", "lsr1va", "lsr1vb", "lab-worker-1")
    assert (two.ns, two.if_head, two.if_worker, two.worker) == ("lsr1c", "lsr1vc", "lsr1vd", "lab-worker-2")
    # two /30s: .1/.2 and .5/.6, no address shared
    assert [(h.head_addr, h.worker_addr) for h in star.hops] == [("10.203.0.1", "10.203.0.2"),
                                                               ("10.203.0.5", "10.203.0.6")]
    star.rate_mbit = None
    assert [star.link(h, 25) for h in star.hops] == ["hop1_veth_tbf25", "hop2_veth_tbf25"]
    entry = star.link_entry(two)
    assert entry["label"] == "hop 2 (head - lab-worker-2), veth, unshaped (namespace lab)"
    assert entry["interfaces"] == {"lab-head": "lsr1vc", "lab-worker-2": "lsr1vd"}
    assert "shaped_rate_bits_per_s" not in entry
    # the RPC devices in hop order; by default 3:4, which with -ngl 7 of 8 blocks gives each
    # worker 3 blocks and the second the output layer
    assert split_settings(star, None) == {"LLAMA_ARG_RPC": "10.203.0.2:50052,10.203.0.6:50052",
                                          "LLAMA_ARG_TENSOR_SPLIT": "3,4"}


@pytest.mark.parametrize("workers", [0, 3])
def test_the_lab_builds_one_or_two_workers(workers):
    with pytest.raises(CollectError, match="1 or 2"):
        Star("lsr1", workers)


def test_a_split_needs_one_share_per_worker():
    with pytest.raises(CollectError, match="one share per worker"):
        split_settings(Star("lsr1", 2), "1")
    with pytest.raises(CollectError, match="prefix"):
        Star("Bad-Prefix", 2)


def test_the_tbf_bucket_is_a_choice_recorded_with_each_link():
    # the earlier series' 64 KiB bucket stays the default; a series may ask for a few frames
    assert Lab("lsr1", 25).qdisc == ["tbf", "rate", "25mbit", "burst", "64kb", "latency", "50ms"]
    star = Star("lsr1", 1, burst_kb=4)
    star.rate_mbit = 25
    assert star.qdisc == ["tbf", "rate", "25mbit", "burst", "4kb", "latency", "50ms"]
    entry = star.link_entry(star.hops[0])
    # 4 KiB = 4,096 B, and the tc command as it ran
    assert entry["shaped_burst_bytes"] == 4096 and "burst 4kb" in entry["qdisc"]
    star.rate_mbit = None
    assert "shaped_burst_bytes" not in star.link_entry(star.hops[0])
    with pytest.raises(CollectError, match="tbf burst 1 KiB"):
        Lab("lsr1", 25, 1)
