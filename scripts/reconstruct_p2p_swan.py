#!/usr/bin/env python3
"""Write the *reconstructed* point-to-point campaigns under raw_data/p2p/.

The seed page "p2p.md" (shared/seeds/003_…) reports only rounded results. This
script writes raw files in each tool's real output format whose parsed values,
put through the pipeline's SQL, give back those results:

* ``aws-p3-tc/``: two p3.2xlarge hosts, tc on the receiver; per network setting one
  nccl-tests ``sendrecv_perf -N 5`` log (64 MiB and 128 MiB) and one p2p_bench
  JSON-lines file (Gloo, receiver side, 10 timed transfers per size). The median of
  each cell's transfers is the seed's figure.
* ``swan-10-regions/``: per ordered pair (receiver, sender) of 10 AWS regions joined
  by a WireGuard VPN: ``ping -c 3`` (avg = seed delay), an nccl-tests 64 MiB log
  (bandwidth = bytes x 8 / median time = seed NCCL-B), and for the Oregon receiver
  a second "dumped" NCCL log and ``iperf3 -J -P 32 -t 8`` over the public IP and the VPN.

Deterministic: a fixed random seed, no clock; running it twice gives identical
bytes. Values the seed does not give (host names, PIDs, IPs from documentation
ranges, dates, per-iteration jitter) are placeholders, as the READMEs say.

    .venv/bin/python scripts/reconstruct_p2p_swan.py [--out raw_data/p2p]
"""
from __future__ import annotations

import argparse
import json
import math
import random
from pathlib import Path

import yaml

MIB = 1024 * 1024
SIZES = (64 * MIB, 128 * MIB)          # GPT-3 XL macro-batch: 8 x 2048 tokens x 2048 x fp16
CYCLES = 5                             # nccl-tests -N 5
GLOO_ITERS = 10

# --- the seed's TC table: setting -> (delay ms, rate Gbit/s, Gloo-64, NCCL-64, Gloo-128, NCCL-128 ms)
TC = [
    ("aws-default", None, None, 107, 55, 216, 112),
    ("delay-1ms", 1, None, 110, 59, 222, 115),
    ("delay-5ms", 5, None, 274, 80, 512, 134),
    ("delay-10ms", 10, None, 532, 113, 972, 171),
    ("rate-5gbit", None, 5, 110, 109, 218, 217),
    ("rate-2gbit", None, 2, 271, 270, 542, 541),
    ("rate-1gbit", None, 1, 541, 541, 1082, 1082),
    ("delay-1ms-rate-5gbit", 1, 5, 115, 110, 224, 220),
    ("delay-5ms-rate-2gbit", 5, 2, 311, 275, 581, 542),
    ("delay-10ms-rate-1gbit", 10, 1, 620, 543, 1160, 1083),
]

REGIONS = ["us-west-2", "us-east-1", "us-east-2", "ap-northeast-1", "ap-northeast-2",
           "ap-southeast-1", "ap-southeast-2", "eu-west-2", "eu-central-1", "eu-west-1"]
NAMES = ["Oregon", "Virginia", "Ohio", "Tokyo", "Seoul", "Singapore", "Sydney", "London",
         "Frankfurt", "Ireland"]
CODE = dict(zip(NAMES, REGIONS))

# --- the seed's region tables: receiver -> rows (sender, delay ms, NCCL-B[, dumped, iperf3 pub, iperf3 swan])
SWAN = {
    "Oregon": [("Virginia", 67, "790M", "761M", "4.56G", "1.16G"),
               ("Ohio", 49, "1.10G", "650M", "4.52G", "1.34G"),
               ("Tokyo", 96, "523M", "284M", "3.71G", "641M"),
               ("Seoul", 124, "460M", "238M", "2.82G", "488M"),
               ("Singapore", 163, "341M", "171M", "2.05G", "384M"),
               ("Sydney", 139, "360M", "218M", "2.50G", "430M"),
               ("London", 136, "420M", "228M", "2.64G", "475M"),
               ("Frankfurt", 143, "404M", "177M", "2.40G", "458M"),
               ("Ireland", 124, "482M", "300M", "2.85G", "424M")],
    "Virginia": [("Oregon", 67, "1.15G"), ("Ohio", 11, "1.12G"), ("Tokyo", 143, "524M"),
                 ("Seoul", 172, "500M"), ("Singapore", 230, "364M"), ("Sydney", 197, "383M"),
                 ("London", 76, "1.16G"), ("Frankfurt", 90, "1.02G"), ("Ireland", 67, "1.05G")],
    "Ohio": [("Oregon", 48, "1.07G"), ("Virginia", 11, "1.13G"), ("Tokyo", 130, "694M"),
             ("Seoul", 159, "529M"), ("Singapore", 197, "452M"), ("Sydney", 185, "484M"),
             ("London", 86, "1.05G"), ("Frankfurt", 99, "799M"), ("Ireland", 77, "1.14G")],
    "Tokyo": [("Oregon", 97, "861M"), ("Virginia", 143, "535M"), ("Ohio", 130, "696M"),
              ("Seoul", 34, "1.10G"), ("Singapore", 73, "1.01G"), ("Sydney", 100, "761M"),
              ("London", 210, "366M"), ("Frankfurt", 223, "360M"), ("Ireland", 199, "465M")],
    "Seoul": [("Oregon", 124, "719M"), ("Virginia", 172, "511M"), ("Ohio", 159, "518M"),
              ("Tokyo", 33, "1.11G"), ("Singapore", 74, "1.14G"), ("Sydney", 148, "580M"),
              ("London", 238, "342M"), ("Frankfurt", 235, "358M"), ("Ireland", 228, "335M")],
    "Singapore": [("Oregon", 163, "510M"), ("Virginia", 230, "358M"), ("Ohio", 197, "447M"),
                  ("Tokyo", 73, "1.05G"), ("Seoul", 74, "1.11G"), ("Sydney", 92, "816M"),
                  ("London", 169, "500M"), ("Frankfurt", 155, "535M"), ("Ireland", 179, "492M")],
    "Sydney": [("Oregon", 139, "537M"), ("Virginia", 197, "463M"), ("Ohio", 186, "490M"),
               ("Tokyo", 114, "807M"), ("Seoul", 140, "567M"), ("Singapore", 94, "990M"),
               ("London", 262, "326M"), ("Frankfurt", 265, "328M"), ("Ireland", 254, "344M")],
    "London": [("Oregon", 134, "698M"), ("Virginia", 76, "761M"), ("Ohio", 86, "1.02G"),
               ("Tokyo", 210, "441M"), ("Seoul", 238, "339M"), ("Singapore", 169, "506M"),
               ("Sydney", 263, "343M"), ("Frankfurt", 14, "1.14G"), ("Ireland", 12, "1.09G")],
    "Frankfurt": [("Oregon", 147, "339M"), ("Virginia", 89, "521M"), ("Ohio", 99, "474M"),
                  ("Tokyo", 223, "212M"), ("Seoul", 235, "226M"), ("Singapore", 155, "333M"),
                  ("Sydney", 265, "204M"), ("London", 14, "1.06G"), ("Ireland", 24, "1.08G")],
    "Ireland": [("Oregon", 122, "726M"), ("Virginia", 66, "794M"), ("Ohio", 77, "447M"),
                ("Tokyo", 199, "460M"), ("Seoul", 228, "353M"), ("Singapore", 179, "482M"),
                ("Sydney", 255, "339M"), ("London", 11, "1.08G"), ("Frankfurt", 25, "1.10G")],
}

NCCL_ENV = {"NCCL_SOCKET_IFNAME": "wg0", "GLOO_SOCKET_IFNAME": "wg0",
            "NCCL_SOCKET_NTHREADS": 4, "NCCL_NSOCKS_PERTHREAD": 4}


def rate(text: str) -> tuple[float, float]:
    """'790M' -> (790e6, half a display unit): the seed's 3 significant figures."""
    value = float(text[:-1]) * (1e9 if text.endswith("G") else 1e6)
    decimals = len(text[:-1].split(".")[1]) if "." in text else 0
    unit = 1e9 if text.endswith("G") else 1e6
    return value, 0.5 * unit / 10 ** decimals


# ----------------------------------------------------------------------------------- nccl-tests
def symmetric_times(rnd: random.Random, centre_us: int, n_pairs: int, spread: float) -> list[int]:
    """2*n_pairs integer times whose median is exactly centre_us (pairs centre ± d)."""
    out = []
    for _ in range(n_pairs):
        d = max(1, int(centre_us * rnd.uniform(spread / 5, spread)))
        sign = rnd.choice((1, -1))
        out += [centre_us + sign * d, centre_us - sign * d]
    return out


def nccl_log(hosts: list[str], gpu: str, results: list[tuple[int, int, int]], pids: list[int]) -> str:
    """nccl-tests 2.13 sendrecv_perf stdout; results = (size, t_out_us, t_in_us) in print order."""
    sizes = sorted({r[0] for r in results})
    lines = [f"# nThread 1 nGpus 1 minBytes {sizes[0]} maxBytes {sizes[-1]} step: 2(factor) "
             f"warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0", "#", "# Using devices"]
    for rank, (host, pid) in enumerate(zip(hosts, pids)):
        lines.append(f"#  Rank {rank:2d} Group {0:2d} Pid {pid:6d} on {host:>10s} device {0:2d} "
                     f"[0x{0x00:02x}] {gpu}")
    lines.append("#")
    lines.append("# %10s  %12s  %8s  %6s  %6s           out-of-place                       in-place"
                 "          " % ("", "", "", "", ""))
    lines.append("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s %6s  %7s  %6s  %6s %6s" % (
        "size", "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong",
        "time", "algbw", "busbw", "#wrong"))
    lines.append("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %5s  %7s  %6s  %6s  %5s" % (
        "(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)",
        "(GB/s)", ""))
    busbw = []
    for size, t_out, t_in in results:
        row = "%12li  %12li  %8s  %6s  %6s" % (size, size // 4, "float", "sum", "-1")
        for t_us, wrong in ((t_out, "0"), (t_in, "N/A")):
            bw = size / 1e9 / (t_us / 1e6)     # sendrecv: busbw = algbw
            busbw.append(bw)
            row += "  %7s  %6.2f  %6.2f  %5s" % ("%7.0f" % t_us, bw, bw, wrong)
        lines.append(row)
    lines += ["# Out of bounds values : 0 OK",
              "# Avg bus bandwidth    : %g " % (sum(busbw) / len(busbw)), "#", ""]
    return "\n".join(lines)


def nccl_cycles(per_size: dict[int, list[int]]) -> list[tuple[int, int, int]]:
    """-N cycles print the whole size loop again: cycle-major order."""
    out = []
    for c in range(CYCLES):
        for size in sorted(per_size):
            times = per_size[size]
            out.append((size, times[2 * c], times[2 * c + 1]))
    return out


# ------------------------------------------------------------------------------------------ ping
def ping_text(rnd: random.Random, ip: str, avg_us: int) -> str:
    """iputils ``ping -c 3``: three replies whose mean is exactly avg_us."""
    d1, d2 = (max(1, int(avg_us * rnd.uniform(0.001, 0.008))) for _ in range(2))
    t = [avg_us - d1, avg_us + d2]
    t.append(3 * avg_us - sum(t))

    def shown(us: int) -> str:        # iputils ping_common.c precision rules
        if us >= 100000 - 50:
            return f"{(us + 500) // 1000}"
        if us >= 10000 - 5:
            return f"{(us + 50) // 1000}.{((us + 50) % 1000) // 100}"
        return f"{us // 1000}.{(us % 1000) // 10:02d}"

    mdev = int(math.sqrt(sum(x * x for x in t) / 3 - (sum(t) / 3) ** 2))
    ms3 = lambda us: f"{us // 1000}.{us % 1000:03d}"  # noqa: E731
    lines = [f"PING {ip} ({ip}) 56(84) bytes of data."]
    lines += [f"64 bytes from {ip}: icmp_seq={i} ttl=64 time={shown(x)} ms" for i, x in enumerate(t, 1)]
    lines += ["", f"--- {ip} ping statistics ---",
              f"3 packets transmitted, 3 received, 0% packet loss, time {2000 + rnd.randint(1, 4)}ms",
              f"rtt min/avg/max/mdev = {ms3(min(t))}/{ms3(avg_us)}/{ms3(max(t))}/{ms3(mdev)} ms", ""]
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------- iperf3
def iperf3_json(rnd: random.Random, client_ip: str, server_ip: str, bps: float, rtt_ms: float,
                mtu: int, timesecs: int, host: str) -> str:
    """``iperf3 -c SERVER -t 8 -P 32 -J`` as run on the sender (client)."""
    n, duration = 32, 8
    weights = [rnd.uniform(0.6, 1.4) for _ in range(n)]
    share = [w / sum(weights) for w in weights]
    recv_seconds = round(duration + rtt_ms / 1000 + rnd.uniform(0.001, 0.01), 6)
    recv_bytes = round(bps * recv_seconds / 8)
    sent_bytes = recv_bytes + rnd.randint(1, 4) * 131072 * n
    connected = [{"socket": 5 + i, "local_host": client_ip, "local_port": 40000 + 2 * i,
                  "remote_host": server_ip, "remote_port": 5201} for i in range(n)]
    intervals, sums = [], [0] * n
    for k in range(duration):
        streams, total = [], 0
        for i in range(n):
            b = round(sent_bytes * share[i] / duration * rnd.uniform(0.9, 1.1)) if k < duration - 1 \
                else round(sent_bytes * share[i]) - sums[i]
            sums[i] += b
            total += b
            streams.append({"socket": 5 + i, "start": float(k), "end": float(k + 1), "seconds": 1.0,
                            "bytes": b, "bits_per_second": b * 8.0, "retransmits": rnd.randint(0, 40),
                            "snd_cwnd": rnd.randint(200, 900) * 1000, "rtt": int(rtt_ms * 1000 + rnd.randint(0, 4000)),
                            "rttvar": rnd.randint(200, 3000), "pmtu": mtu, "omitted": False, "sender": True})
        intervals.append({"streams": streams, "sum": {
            "start": float(k), "end": float(k + 1), "seconds": 1.0, "bytes": total,
            "bits_per_second": total * 8.0, "retransmits": sum(s["retransmits"] for s in streams),
            "omitted": False, "sender": True}})
    end_streams, recv_left = [], recv_bytes
    for i in range(n):
        rb = round(recv_bytes * share[i]) if i < n - 1 else recv_left
        recv_left -= rb
        end_streams.append({
            "sender": {"socket": 5 + i, "start": 0, "end": float(duration), "seconds": float(duration),
                       "bytes": sums[i], "bits_per_second": sums[i] * 8 / duration,
                       "retransmits": sum(iv["streams"][i]["retransmits"] for iv in intervals),
                       "max_snd_cwnd": max(iv["streams"][i]["snd_cwnd"] for iv in intervals),
                       "max_rtt": max(iv["streams"][i]["rtt"] for iv in intervals),
                       "min_rtt": min(iv["streams"][i]["rtt"] for iv in intervals),
                       "mean_rtt": sum(iv["streams"][i]["rtt"] for iv in intervals) // duration,
                       "sender": True},
            "receiver": {"socket": 5 + i, "start": 0, "end": recv_seconds, "seconds": float(duration),
                         "bytes": rb, "bits_per_second": rb * 8 / recv_seconds, "sender": True}})
    doc = {
        "start": {
            "connected": connected, "version": "iperf 3.9",
            "system_info": f"Linux {host} 5.15.0-1019-aws #23~20.04.1-Ubuntu SMP x86_64",
            "timestamp": {"time": "", "timesecs": timesecs},
            "connecting_to": {"host": server_ip, "port": 5201},
            "cookie": "".join(rnd.choice("abcdefghijklmnopqrstuvwxyz234567") for _ in range(36)),
            "tcp_mss_default": mtu - 52, "sock_bufsize": 0, "sndbuf_actual": 16384,
            "rcvbuf_actual": 131072,
            "test_start": {"protocol": "TCP", "num_streams": n, "blksize": 131072, "omit": 0,
                           "duration": duration, "bytes": 0, "blocks": 0, "reverse": 0, "tos": 0}},
        "intervals": intervals,
        "end": {
            "streams": end_streams,
            "sum_sent": {"start": 0, "end": float(duration), "seconds": float(duration),
                         "bytes": sum(sums), "bits_per_second": sum(sums) * 8 / duration,
                         "retransmits": sum(s["sender"]["retransmits"] for s in end_streams),
                         "sender": True},
            "sum_received": {"start": 0, "end": recv_seconds, "seconds": recv_seconds,
                             "bytes": recv_bytes, "bits_per_second": recv_bytes * 8 / recv_seconds,
                             "sender": True},
            "cpu_utilization_percent": {
                "host_total": round(rnd.uniform(20, 60), 6), "host_user": round(rnd.uniform(0.5, 3), 6),
                "host_system": round(rnd.uniform(18, 55), 6), "remote_total": round(rnd.uniform(10, 40), 6),
                "remote_user": round(rnd.uniform(0.2, 2), 6), "remote_system": round(rnd.uniform(9, 38), 6)},
            "sender_tcp_congestion": "cubic", "receiver_tcp_congestion": "cubic"}}
    import email.utils
    doc["start"]["timestamp"]["time"] = email.utils.formatdate(timesecs, usegmt=True)
    return json.dumps(doc, indent="\t") + "\n"


# ------------------------------------------------------------------------------------ campaigns
def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def dump_manifest(path: Path, doc: dict) -> None:
    write(path, "# Generated by scripts/reconstruct_p2p_swan.py; see README.md.\n"
          + yaml.safe_dump(doc, sort_keys=False, width=100, allow_unicode=True))


def tc_campaign(out: Path) -> None:
    rnd = random.Random(20220601)
    root = out / "aws-p3-tc"
    hosts = ["ip-172-31-10-11", "ip-172-31-10-12"]   # sender, receiver (rank 0, rank 1)
    files = []
    for setting, delay, cap, g64, n64, g128, n128 in TC:
        if delay and cap:
            tc = f"tc qdisc add dev ens3 root netem delay {delay}ms rate {cap}gbit"
        elif delay:
            tc = f"tc qdisc add dev ens3 root netem delay {delay}ms"
        elif cap:
            tc = f"tc qdisc add dev ens3 root tbf rate {cap}gbit burst 1mbit latency 50ms"
        else:
            tc = None
        context = {"setting": setting, "tc_delay_ms": delay or 0}
        if cap:
            context["tc_rate_gbit"] = cap
        if tc:
            context["tc_command"] = tc
        # NCCL: medians (integer us) within the seed's rounding of the ms figure.
        per_size = {}
        for size, ms in zip(SIZES, (n64, n128)):
            centre = int(round((ms + rnd.uniform(-0.3, 0.3)) * 1000))
            per_size[size] = symmetric_times(rnd, centre, CYCLES, 0.02)
        name = f"nccl/{setting}.log"
        write(root / name, nccl_log(hosts, "Tesla V100-SXM2-16GB", nccl_cycles(per_size),
                                    [rnd.randint(2000, 60000) for _ in hosts]))
        files.append({"path": name, "format": "nccl_tests", "context": {**context, "backend": "nccl"}})
        # Gloo: the receiver's p2p_bench lines.
        lines = []
        for size, ms in zip(SIZES, (g64, g128)):
            centre = int(round((ms + rnd.uniform(-0.3, 0.3)) * 1000))
            times = symmetric_times(rnd, centre, GLOO_ITERS // 2, 0.03)
            lines += [json.dumps({"bench": "p2p_bench", "schema": 1, "backend": "gloo",
                                  "world_size": 2, "rank": 1, "peer": 0, "op": "recv",
                                  "size_bytes": size, "dtype": "float32", "iteration": i,
                                  "time_s": t / 1e6}) for i, t in enumerate(times)]
        name = f"gloo/{setting}.jsonl"
        write(root / name, "\n".join(lines) + "\n")
        files.append({"path": name, "format": "gloo_bench", "context": {**context, "backend": "gloo"}})
    dump_manifest(root / "manifest.yaml", {
        "campaign": "aws-p3-tc", "kind": "p2p",
        "title": "Gloo and NCCL send/recv between two AWS p3.2xlarge under tc",
        "date": "2022-06-01", "provenance": "reconstructed",
        "hosts": {hosts[0]: {"role": "sender", "instance_type": "p3.2xlarge", "rank": 0},
                  hosts[1]: {"role": "receiver", "instance_type": "p3.2xlarge", "rank": 1}},
        "links": {"aws-vpc": {"label": "AWS VPC, same availability zone"}},
        "params": {
            "instance_type": "p3.2xlarge", "hosts": 2, "gpu": "Tesla V100-SXM2-16GB",
            "tc_side": "receiver",
            "transfer": "one GPT-3 XL macro-batch of activations (8 x 2048 tokens x 2048 x fp16)",
            "sizes_bytes": list(SIZES),
            "commands": {
                "nccl": "mpirun -np 2 -H ip-172-31-10-11,ip-172-31-10-12 ./build/sendrecv_perf "
                        "-b 64M -e 128M -f 2 -g 1 -N 5",
                "gloo": "python -m pipeline.collect.p2p_bench --backend gloo --sizes 67108864,134217728 "
                        "--iters 10 --warmup 2 --output recv.jsonl",
                "tc_clear": "tc qdisc del dev ens3 root"}},
        "files": files})
    write(root / "README.md", TC_README)


def swan_campaign(out: Path) -> None:
    rnd = random.Random(20220615)
    root = out / "swan-10-regions"
    vpn = {code: f"10.8.0.{i + 1}" for i, code in enumerate(REGIONS)}
    public = {code: f"203.0.113.{10 + i}" for i, code in enumerate(REGIONS)}
    host = {code: f"swan-{code}" for code in REGIONS}
    files = []
    t0 = 1655280000       # 2022-06-15T08:00:00Z, placeholder
    for receiver_name in NAMES:
        recv = CODE[receiver_name]
        for row in SWAN[receiver_name]:
            send = CODE[row[0]]
            pair = f"{recv}_from_{send}"
            base = {"receiver": recv, "sender": send}
            # ping from the receiver to the sender's VPN address; avg within rounding of the seed.
            avg_us = int(round((row[1] + rnd.uniform(-0.3, 0.3)) * 1000))
            name = f"ping/{pair}.txt"
            write(root / name, ping_text(rnd, vpn[send], avg_us))
            files.append({"path": name, "format": "ping", "context": {**base, "path": "vpn"}})
            series = [("main", row[2])] + ([("dumped", row[3])] if len(row) > 3 else [])
            for label, text in series:
                bps, half = rate(text)
                bps += rnd.uniform(-0.3, 0.3) * half
                centre = int(round(SIZES[0] * 8 / bps * 1e6))
                times = symmetric_times(rnd, centre, CYCLES, 0.03)
                name = f"nccl/{pair}.log" if label == "main" else f"nccl-dumped/{pair}.log"
                write(root / name, nccl_log([host[send], host[recv]], "Tesla T4",
                                            nccl_cycles({SIZES[0]: times}),
                                            [rnd.randint(2000, 60000) for _ in range(2)]))
                files.append({"path": name, "format": "nccl_tests",
                              "context": {**base, "path": "vpn", "backend": "nccl",
                                          "series": label}})
            if len(row) > 3:
                for path_kind, text, ips, mtu in (("public", row[4], public, 9001),
                                                  ("vpn", row[5], vpn, 1420)):
                    bps, half = rate(text)
                    bps += rnd.uniform(-0.3, 0.3) * half
                    t0 += 60
                    name = f"iperf3/{pair}-{path_kind}.json"
                    write(root / name, iperf3_json(rnd, ips[send], ips[recv], bps, row[1],
                                                   mtu, t0, host[send]))
                    files.append({"path": name, "format": "iperf3",
                                  "context": {**base, "path": path_kind}})
    dump_manifest(root / "manifest.yaml", {
        "campaign": "swan-10-regions", "kind": "p2p",
        "title": "Cross-region transfers over the WireGuard VPN (swan) between 10 AWS regions",
        "date": "2022-06-15", "provenance": "reconstructed",
        "hosts": {host[c]: {"region": c, "vpn_ip": vpn[c], "public_ip": public[c]} for c in REGIONS},
        "links": {"vpn": {"label": "WireGuard VPN (wg0, swan)", "interface": "wg0"},
                  "public": {"label": "public IP"}},
        "params": {
            "nccl_receiver": "Region 1 receives, Region 2 sends; the iperf3 server runs on Region 1",
            "sizes_bytes": [SIZES[0]],
            "env": NCCL_ENV,
            "commands": {
                "ping": "ping -c 3 <receiver-side private (wg0) IP of the sender>",
                "nccl": "mpirun -np 2 -H <sender>,<receiver> -x NCCL_SOCKET_IFNAME -x "
                        "NCCL_SOCKET_NTHREADS -x NCCL_NSOCKS_PERTHREAD ./build/sendrecv_perf "
                        "-b 64M -e 64M -g 1 -N 5",
                "iperf3_server": "iperf3 -s",
                "iperf3_client": "iperf3 -c <server-IP> -t 8 -P 32 -J"}},
        "files": files})
    write(root / "README.md", SWAN_README)


TC_README = """# aws-p3-tc — *reconstructed*

Gloo and NCCL point-to-point transfers between two AWS p3.2xlarge instances, with `tc`
shaping the receiving host (delay, rate cap, both), for one GPT-3 XL macro-batch of
activations (64 MiB and 128 MiB).

These files are **reconstructed**: written by `scripts/reconstruct_p2p_swan.py`
(deterministic) in the tools' real output formats so that the pipeline reproduces the
rounded transfer times of the hand-written page this site replaces. They are not
captured output. Per-iteration jitter, host names, PIDs and the date are placeholders;
only the medians carry the original measurements.

| path | tool / format | what |
| --- | --- | --- |
| `nccl/<setting>.log` | nccl-tests `sendrecv_perf -b 64M -e 128M -f 2 -N 5` stdout (`nccl_tests`) | 5 cycles x 2 sizes x out-of-place/in-place |
| `gloo/<setting>.jsonl` | `python -m pipeline.collect.p2p_bench --backend gloo` on the receiver (`gloo_bench`) | 10 timed transfers per size |

The manifest gives each file its setting (`tc_delay_ms`, `tc_rate_gbit`, the `tc` command)
and backend. Regenerate: `.venv/bin/python scripts/reconstruct_p2p_swan.py`.
"""

SWAN_README = """# swan-10-regions — *reconstructed*

Transfers between 10 AWS regions joined by a WireGuard VPN (`wg0`, "swan"): for every
ordered pair (receiver, sender), `ping -c 3` to the sender's VPN address and an
nccl-tests 64 MiB `sendrecv_perf` run; for the Oregon (us-west-2) receiver also a second
NCCL run (the hand-written page's "NCCL-B(swan)-dumped" column, whose meaning that page
does not explain) and `iperf3 -J -P 32 -t 8` over the public IP and over the VPN, with
the iperf3 server on the receiver.

These files are **reconstructed**: written by `scripts/reconstruct_p2p_swan.py`
(deterministic) in the tools' real output formats so that the pipeline reproduces the
rounded delays and bandwidths of the hand-written page. They are not captured output.
Host names, IP addresses (10.8.0.0/24 on the VPN, 203.0.113.0/24 documentation range for
public IPs), GPU model, PIDs, per-iteration jitter and the date are placeholders.

| path | tool / format | what |
| --- | --- | --- |
| `ping/<receiver>_from_<sender>.txt` | iputils `ping -c 3` (`ping`) | delay = rtt avg |
| `nccl/<receiver>_from_<sender>.log` | nccl-tests `sendrecv_perf -b 64M -e 64M -N 5` (`nccl_tests`) | bandwidth = bytes x 8 / median time |
| `nccl-dumped/us-west-2_from_<sender>.log` | same (`nccl_tests`, context `series: dumped`) | Oregon only |
| `iperf3/us-west-2_from_<sender>-{public,vpn}.json` | `iperf3 -c <server> -t 8 -P 32 -J` on the sender (`iperf3`) | Oregon only |

The NCCL/Gloo environment and the commands are recorded once in `manifest.yaml` (`params`).
A pair with no measurement has no file, so the page shows "—" for it.
Regenerate: `.venv/bin/python scripts/reconstruct_p2p_swan.py`.
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path,
                        default=Path(__file__).resolve().parent.parent / "raw_data" / "p2p")
    args = parser.parse_args()
    tc_campaign(args.out)
    swan_campaign(args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
