"""Hand-made p2p campaigns built into an in-memory warehouse: the fixture of the p2p model tests
and of the Point to Point page tests (expected values worked next to each row)."""
from __future__ import annotations

import json

import duckdb

from pipeline.ingest.formats import gloo_bench, iperf3, journal, nccl_debug, nccl_tests, ping
from pipeline.ingest.runner import ensure_table
from pipeline.ingest.store import CAMPAIGN_COLUMNS, FILE_COLUMNS
from pipeline.warehouse import models

from paths import REPO

ROOT = REPO


SIZE = 1_250_000            # bytes: 10e6 bits, so a 1 Gbit/s cap means 10 ms on the wire


MIB_PAIR = 1_000_000        # bytes per cross-region NCCL transfer: 8e6 bits


# Only this page's models and the staging models they read, ordered once.
_ALL = {m.name: m for m in models.discover(ROOT / "sql")}


def with_upstreams(names):
    seen, stack = set(), list(names)
    while stack:
        name = stack.pop()
        if name in _ALL and name not in seen:
            seen.add(name)
            stack.extend(_ALL[name].upstreams)
    return seen


# the raw layer's staging models every campaign model reads through
_SHARED = {n for n in _ALL if n.startswith("stg_raw__")}


ORDER = models.topological([_ALL[n] for n in sorted(with_upstreams(
    [n for n in _ALL if "p2p" in n and n != "fct_p2p_pp_verdict"]  # a comparison of p2p and deployments
    + ["fct_campaign_file_notes", "fct_udp_runs", "fct_nccl_transport", "fct_campaign_stamp"]))])


def build(con, only: set[str] | None = None) -> None:
    for model in ORDER:
        if only is None or model.name in only or model.name in _SHARED:
            models.run_model(con, model)


def insert(con, table: str, row: dict) -> None:
    cols = ", ".join(f'"{k}"' for k in row)
    con.execute(f'insert into "{table}" ({cols}) values ({", ".join("?" * len(row))})',
                list(row.values()))


def file_row(con, campaign, source_file, fmt, context):
    insert(con, "raw_files", {"source_file": source_file, "campaign": campaign, "format": fmt,
                               "manifest_status": "listed", "context": json.dumps(context)})
    insert(con, "ingest_registry", {"source_file": source_file, "format": fmt, "status": "ok"})


def tc_runs(con, setting, delay_ms, rate_gbit, gloo_ms, nccl_ms):
    """One setting: three Gloo transfers and three NCCL results (median = the middle one)."""
    ctx = {"setting": setting, "tc_delay_ms": delay_ms}
    if rate_gbit:
        ctx["tc_rate_gbit"] = rate_gbit
    file_row(con, "tc", f"p2p/tc/gloo/{setting}.jsonl", "gloo_bench", {**ctx, "backend": "gloo"})
    file_row(con, "tc", f"p2p/tc/nccl/{setting}.log", "nccl_tests", {**ctx, "backend": "nccl"})
    for i, ms in enumerate(gloo_ms):
        insert(con, "raw_gloo_bench", {
            "source_file": f"p2p/tc/gloo/{setting}.jsonl", "campaign": "tc", "source_line": i + 1,
            "backend": "gloo", "world_size": 2, "rank": 1, "peer": 0, "op": "recv",
            "size_bytes": SIZE, "dtype": "float32", "iteration": i, "time_s": ms / 1e3})
    # the sender's line of the same transfer must not count (results are from the recv side)
    insert(con, "raw_gloo_bench", {
        "source_file": f"p2p/tc/gloo/{setting}.jsonl", "campaign": "tc", "source_line": 99,
        "backend": "gloo", "world_size": 2, "rank": 0, "peer": 1, "op": "send",
        "size_bytes": SIZE, "dtype": "float32", "iteration": 0, "time_s": 9.0})
    for i, ms in enumerate(nccl_ms):
        insert(con, "raw_nccl_tests", {
            "source_file": f"p2p/tc/nccl/{setting}.log", "campaign": "tc", "source_line": i + 10,
            "size_bytes": SIZE, "count": SIZE // 4, "type": "float", "redop": "sum", "root": -1,
            "placement": "out-of-place", "cycle": i + 1, "time_s": ms / 1e3, "layout": "current"})


def pair_runs(con, recv, send, rtt_ms=None, nccl_s=(), iperf=None, lost=False):
    base = f"p2p/sw/{recv}_from_{send}"
    ctx = {"receiver": recv, "sender": send, "path": "vpn"}
    if rtt_ms is not None or lost:
        file_row(con, "sw", base + ".txt", "ping", ctx)
        insert(con, "raw_ping", {
            "source_file": base + ".txt", "campaign": "sw", "source_line": 7, "destination": "10.8.0.9",
            "packets_transmitted": 3, "packets_received": 0 if lost else 3,
            "packet_loss_fraction": 1.0 if lost else 0.0,
            "rtt_avg_ms": None if lost else rtt_ms})
    if nccl_s:
        file_row(con, "sw", base + ".log", "nccl_tests", {**ctx, "backend": "nccl"})
        for i, t in enumerate(nccl_s):
            insert(con, "raw_nccl_tests", {
                "source_file": base + ".log", "campaign": "sw", "source_line": 10 + i,
                "size_bytes": MIB_PAIR, "count": MIB_PAIR // 4, "type": "float", "redop": "sum",
                "root": -1, "placement": "out-of-place", "cycle": i + 1, "time_s": t,
                "layout": "current"})
    for path, bps in (iperf or {}).items():
        file_row(con, "sw", f"{base}-{path}.json", "iperf3", {**ctx, "path": path})
        insert(con, "raw_iperf3", {"source_file": f"{base}-{path}.json", "campaign": "sw",
                                    "source_line": 1, "num_streams": 32, "received_bits_per_s": bps})


def warehouse(skip_pair: tuple[str, str] | None = None, extra=None) -> duckdb.DuckDBPyConnection:
    """The fixture campaigns built; ``extra(con)`` adds raw rows before the models run."""
    con = duckdb.connect()
    for name, columns in (("raw_campaigns", CAMPAIGN_COLUMNS), ("raw_files", FILE_COLUMNS)):
        con.execute(f"create table {name} ({', '.join(f'{c} {t}' for c, t in columns.items())})")
    for fmt in (nccl_tests.FORMAT, gloo_bench.FORMAT, ping.FORMAT, iperf3.FORMAT, journal.FORMAT,
                nccl_debug.FORMAT):
        ensure_table(con, fmt)
    con.execute("create table ref_aws_regions as select * from (values "
                "('us-west-2', 'Oregon', 1, 's'), ('us-east-1', 'Virginia', 2, 's'), "
                "('eu-west-1', 'Ireland', 3, 's')) t(region, name, sort_order, source)")
    for name, params in (("tc", {"instance_type": "p3.2xlarge", "commands": {"nccl": "x <y>"}}),
                         # its logs do not say their collective: the command does (sendrecv)
                         ("sw", {"env": {"NCCL_SOCKET_IFNAME": "wg0"},
                                 "commands": {"nccl": "mpirun -np 2 ./build/sendrecv_perf -b 1M -e 1M"}})):
        insert(con, "raw_campaigns", {"campaign": name, "area": "p2p", "kind": "p2p",
                                       "title": name, "provenance": "reconstructed",
                                       "params": json.dumps(params)})
    # Gloo: 10 ms + 4 x delay; NCCL: 5 ms + 1 x delay (medians are the middle values).
    tc_runs(con, "none", 0, None, (9, 10, 11), (4, 5, 6))
    tc_runs(con, "d10", 10, None, (50, 49, 51), (15, 14, 16))
    tc_runs(con, "d20", 20, None, (90, 91, 89), (25, 24, 26))
    # Caps: wire time = 10e6 bits / cap = 10 ms at 1 Gbit/s, 5 ms at 2 Gbit/s.
    # Gloo: 2 ms + 1.25 x wire -> 14.5, 8.25 ms; NCCL: 1 ms + 1.0 x wire -> 11, 6 ms.
    tc_runs(con, "c1", 0, 1, (14.5, 14, 15), (11, 10.5, 11.5))
    tc_runs(con, "c2", 0, 2, (8.25, 8, 8.5), (6, 5.5, 6.5))
    # A combined setting is in the tc table but in neither fit.
    tc_runs(con, "d10c1", 10, 1, (100, 100, 100), (100, 100, 100))
    pairs = [("us-west-2", "us-east-1", dict(rtt_ms=50.0, nccl_s=(0.08, 0.1, 0.12),
                                             iperf={"public": 1e9, "vpn": 2e8})),
             ("us-east-1", "us-west-2", dict(rtt_ms=52.0, nccl_s=(0.16,))),
             ("us-west-2", "eu-west-1", dict(lost=True, nccl_s=(0.2,))),
             ("eu-west-1", "us-west-2", dict(rtt_ms=120.0, nccl_s=(0.4,)))]
    for recv, send, kw in pairs:
        if (recv, send) != skip_pair:
            pair_runs(con, recv, send, **kw)
    if extra:
        extra(con)
    build(con)
    return con
