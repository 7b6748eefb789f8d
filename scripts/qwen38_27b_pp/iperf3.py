"""``iperf3 -J`` runs on claw against server, printed in cJSON's layout."""
from __future__ import annotations

import json
import math
import random
from datetime import datetime, timezone

import numpy as np

from .targets import CLAW_IP, SERVER_IP


def cjson_number(x) -> str:
    """cJSON print_number: integers as integers, else %1.15g unless it does not round-trip."""
    if isinstance(x, bool):
        return "true" if x else "false"
    if isinstance(x, int):
        return str(x)
    if float(x).is_integer() and abs(x) < 1e15:
        return str(int(x))
    s = f"{x:1.15g}"
    return s if float(s) == x else f"{x:1.17g}"


def cjson(value, depth: int = 0) -> str:
    """cJSON_Print formatting as iperf3 -J emits it (tabs, '"key":<TAB>value')."""
    if isinstance(value, dict):
        items = [("\t" * (depth + 1)) + json.dumps(k) + ":\t" + cjson(v, depth + 1)
                 for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + "\t" * depth + "}"
    if isinstance(value, list):
        return "[" + ", ".join(cjson(v, depth + 1) for v in value) + "]"
    if isinstance(value, str):
        return json.dumps(value)
    return cjson_number(value)


def iperf3_run(rng: random.Random, reverse: bool, recv_bps: float, start_us: int) -> str:
    """One 10 s single-stream TCP test run on claw (client) against server."""
    f32 = lambda x: float(np.float32(x))   # iperf3 computes interval seconds in float
    send_end = round(10.0 + rng.uniform(0.00004, 0.00016), 6)
    recv_end = round(send_end + rng.uniform(0.00025, 0.00060), 6)
    recv_bytes = round(recv_bps * recv_end / 8)
    sent_bytes = math.ceil((recv_bytes + rng.randint(180_000, 520_000)) / 131072) * 131072
    local_total, local_end = (recv_bytes, recv_end) if reverse else (sent_bytes, send_end)
    # per-second intervals on the local side; slow start costs a little in the first one
    weights = [0.982 + rng.gauss(0, 0.002)] + [1 + rng.gauss(0, 0.006) for _ in range(9)]
    ends = [round(k + 1 + rng.uniform(0.00002, 0.00009), 6) for k in range(9)] + [local_end]
    raw = [local_total * w / sum(weights) for w in weights]
    ibytes = [round(b) for b in raw[:-1]]
    ibytes.append(local_total - sum(ibytes))
    retr = [rng.choice([0, 0, 0, 2, 3, 5, 7]) for _ in range(10)]
    intervals, t_prev = [], 0.0
    for k in range(10):
        secs = f32(ends[k] - t_prev)
        bps = ibytes[k] * 8 / secs
        stream = {"socket": 5, "start": t_prev, "end": ends[k], "seconds": secs,
                  "bytes": ibytes[k], "bits_per_second": bps}
        summ = dict(stream)
        del summ["socket"]
        if not reverse:
            stream.update({"retransmits": retr[k],
                           "snd_cwnd": rng.randint(180, 260) * 1448 * 4,
                           "snd_wnd": 3_143_680 + rng.randint(-40, 40) * 1024,
                           "rtt": rng.randint(880, 1420), "rttvar": rng.randint(90, 320),
                           "pmtu": 1500})
            summ["retransmits"] = retr[k]
        stream.update({"omitted": False, "sender": not reverse})
        summ.update({"omitted": False, "sender": not reverse})
        intervals.append({"streams": [stream], "sum": summ})
        t_prev = ends[k]
    total_retr = sum(retr)
    send_bps, recv_bps_exact = sent_bytes * 8 / send_end, recv_bytes * 8 / recv_end
    snd_stats = ({"max_snd_cwnd": 1448 * 4 * 262, "max_snd_wnd": 3_186_688, "max_rtt": 1503,
                  "min_rtt": 212, "mean_rtt": 1107} if not reverse else
                 {"max_snd_cwnd": 0, "max_snd_wnd": 0, "max_rtt": 0, "min_rtt": 0, "mean_rtt": 0})
    sender = {"socket": 5, "start": 0, "end": send_end, "seconds": send_end, "bytes": sent_bytes,
              "bits_per_second": send_bps, "retransmits": total_retr, **snd_stats,
              "sender": not reverse}
    receiver = {"socket": 5, "start": 0, "end": recv_end, "seconds": send_end,
                "bytes": recv_bytes, "bits_per_second": recv_bytes * 8 / recv_end,
                "sender": not reverse}
    ts = datetime.fromtimestamp(start_us // 1_000_000, tz=timezone.utc)
    cpu_local = rng.uniform(17, 23) if reverse else rng.uniform(9, 13)
    cpu_remote = rng.uniform(8, 11) if reverse else rng.uniform(16, 21)
    doc = {
        "start": {
            "connected": [{"socket": 5, "local_host": CLAW_IP, "local_port": rng.randint(40000, 60000),
                           "remote_host": SERVER_IP, "remote_port": 5201}],
            "version": "iperf 3.16",
            "system_info": "Linux claw 6.14.0-27-generic #27~24.04.1-Ubuntu SMP PREEMPT_DYNAMIC "
                           "Tue Jul 22 17:38:49 UTC 2 x86_64",
            "timestamp": {"time": ts.strftime("%a, %d %b %Y %H:%M:%S GMT"),
                          "timesecs": start_us // 1_000_000},
            "connecting_to": {"host": SERVER_IP, "port": 5201},
            "cookie": "".join(rng.choice("abcdefghijklmnopqrstuvwxyz234567") for _ in range(36)),
            "tcp_mss_default": 1448,
            "target_bitrate": 0, "fq_rate": 0, "sock_bufsize": 0,
            "sndbuf_actual": 16384, "rcvbuf_actual": 131072,
            "test_start": {"protocol": "TCP", "num_streams": 1, "blksize": 131072, "omit": 0,
                           "duration": 10, "bytes": 0, "blocks": 0, "reverse": int(reverse),
                           "tos": 0, "target_bitrate": 0, "bidir": 0, "fqrate": 0},
        },
        "intervals": intervals,
        "end": {
            "streams": [{"sender": sender, "receiver": receiver}],
            "sum_sent": {"start": 0, "end": send_end, "seconds": send_end, "bytes": sent_bytes,
                         "bits_per_second": send_bps, "retransmits": total_retr,
                         "sender": not reverse},
            "sum_received": {"start": 0, "end": recv_end, "seconds": recv_end, "bytes": recv_bytes,
                             "bits_per_second": recv_bps_exact, "sender": not reverse},
            "cpu_utilization_percent": {
                "host_total": cpu_local, "host_user": cpu_local * 0.13,
                "host_system": cpu_local * 0.87, "remote_total": cpu_remote,
                "remote_user": cpu_remote * 0.06, "remote_system": cpu_remote * 0.94},
            "sender_tcp_congestion": "cubic",
            "receiver_tcp_congestion": "cubic",
        },
    }
    return cjson(doc) + "\n"
