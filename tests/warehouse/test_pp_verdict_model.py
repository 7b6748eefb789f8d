"""Which region pairs carry pipeline-parallel inference (fct_p2p_pp_verdict) on hand-made tables.

Every expected number is worked by hand next to its assertion. A workload is carried when
tokens_per_s x RTT <= 1 (one round trip per token) and its required rate is below the first
feasibility class's share (here 0.5, exclusive) of the pair's NCCL bandwidth; a pair is judged
by its worse direction, and a direction that lacks a measurement makes the pair not measured.
"""
from __future__ import annotations

import duckdb
import pytest

from pipeline.warehouse import models

from paths import REPO

ROOT = REPO


def _table(con, name: str, columns: str, rows: list[tuple]) -> None:
    con.execute(f"create table {name} ({columns})")
    con.executemany(f"insert into {name} values ({', '.join('?' * len(rows[0]))})", rows)


@pytest.fixture()
def con():
    con = duckdb.connect()
    # receiver, sender, rtt, nccl. Campaign "one": a <-> b measured both ways (worse: RTT
    # 0.015625 s = 2^-6, exact in binary; NCCL 4e8); b <-> c lacks NCCL one way; a <-> c has one
    # direction only. Campaign "two" reuses the ids a, b with other values: never pooled.
    _table(con, "fct_p2p_region_pairs",
           "campaign varchar, receiver varchar, sender varchar, rtt_avg_s double, nccl_bits_per_s double", [
               ("one", "a", "b", 0.010, 1e9), ("one", "b", "a", 0.015625, 4e8),
               ("one", "b", "c", 0.004, 2e9), ("one", "c", "b", 0.005, None),
               ("one", "a", "c", 0.030, 1e9),
               ("two", "a", "b", 0.1, 1e9), ("two", "b", "a", 0.1, 1e9),
           ])
    _table(con, "dim_p2p_regions", "campaign varchar, region varchar, region_name varchar, region_order bigint", [
        ("one", "a", "Alpha", 1), ("one", "b", "Beta", 2), ("one", "c", "Gamma", 3),
        ("two", "a", "Alpha-2", 1), ("two", "b", "Beta-2", 2)])
    # model m1: four workloads; m2: one light workload; a TP row that must be ignored
    _table(con, "fct_bandwidth_requirements",
           "model varchar, model_label varchar, model_sort_order int, basis varchar, campaign varchar, "
           "scheme varchar, batch_size int, tokens_per_s int, required_bits_per_s double", [
               ("m1", "M1", 1, "formula", None, "pp", 1, 10, 1e8),
               ("m1", "M1", 1, "formula", None, "pp", 1, 64, 1.5e8),
               ("m1", "M1", 1, "formula", None, "pp", 4, 100, 2.1e8),
               ("m1", "M1", 1, "formula", None, "pp", 8, 10, 2e8),
               ("m2", "M2", 2, "measured", "dep", "pp", 1, 10, 1e7),
               ("m2", "M2", 2, "measured", "dep", "tp", 1, 10, 9e9),
           ])
    _table(con, "dim_feasibility_thresholds",
           "feasibility_class varchar, label varchar, upper_fraction double, upper_inclusive boolean, sort_order int", [
               ("yellow", "marginal", 0.9, True, 2), ("green", "feasible", 0.5, False, 1),
               ("red", "saturated", None, False, 3)])
    path = ROOT / "sql" / "marts" / "fct_p2p_pp_verdict.sql"
    models.run_model(con, models.Model(path, path.read_text()))
    yield con
    con.close()


def _row(con, campaign, a, b, model):
    cur = con.execute("select * from fct_p2p_pp_verdict where campaign = ? and region_a = ? "
                      "and region_b = ? and model = ?", [campaign, a, b, model])
    cols = [d[0] for d in cur.description]
    rows = cur.fetchall()
    assert len(rows) == 1, rows
    return dict(zip(cols, rows[0]))


def test_a_pair_is_judged_by_its_worse_direction(con):
    r = _row(con, "one", "a", "b", "m1")
    assert (r["region_a_name"], r["region_b_name"]) == ("Alpha", "Beta")
    assert r["rtt_worst_s"] == 0.015625                     # max(0.010, 0.015625)
    assert r["nccl_worst_bits_per_s"] == 4e8                # min(1e9, 4e8)
    assert r["latency_bound_tokens_per_s"] == 64.0          # 1 / 0.015625


def test_latency_and_bandwidth_each_bound_workloads_exactly_at_their_limits(con):
    r = _row(con, "one", "a", "b", "m1")
    # 10 tok/s: 10 x 0.015625 = 0.156 <= 1, 1e8 < 0.5 x 4e8 = 2e8: carried
    # 64 tok/s: 64 x 0.015625 = 1 exactly <= 1, 1.5e8 < 2e8: carried (one RTT per token fits)
    # 100 tok/s: 1.5625 > 1: latency-bound
    # batch 8 at 10 tok/s: 2e8 is not below 2e8 (the feasible class is exclusive): bandwidth-bound
    assert (r["workloads"], r["workloads_carried"], r["workloads_latency_bound"],
            r["workloads_bandwidth_bound"], r["workloads_unknown"]) == (4, 2, 1, 1, 0)
    # the heaviest carried workload is the one with the larger required rate: 1.5e8 at 64 tok/s
    assert (r["heaviest_carried_batch_size"], r["heaviest_carried_tokens_per_s"]) == (1, 64)
    assert r["verdict"] == "some"


def test_every_workload_and_the_tp_rows_left_out(con):
    r = _row(con, "one", "a", "b", "m2")
    # m2's one PP workload: 10 x 0.015625 <= 1 and 1e7 < 2e8; its TP row (9e9) is not a workload
    assert (r["workloads"], r["workloads_carried"], r["verdict"]) == (1, 1, "every workload")


def test_a_direction_without_a_measurement_makes_the_pair_not_measured(con):
    bc = _row(con, "one", "b", "c", "m1")
    # c <- b has no NCCL run: the worse bandwidth is unknown, never b <- c's 2e9
    assert bc["nccl_worst_bits_per_s"] is None and bc["rtt_worst_s"] == 0.005
    assert (bc["workloads_carried"], bc["workloads_unknown"], bc["verdict"]) == (0, 4, "not measured")
    ac = _row(con, "one", "a", "c", "m1")
    # only a <- c was measured: no worse direction to judge by
    assert ac["rtt_worst_s"] is None and ac["verdict"] == "not measured"


def test_pairs_rank_by_rtt_and_campaigns_never_pool(con):
    ranks = con.execute("select region_a, region_b, pair_rank from fct_p2p_pp_verdict "
                        "where campaign = 'one' and model = 'm1' order by pair_rank").fetchall()
    # b<->c 0.005 s, a<->b 0.015625 s, a<->c unmeasured last
    assert ranks == [("b", "c", 1), ("a", "b", 2), ("a", "c", 3)]
    two = _row(con, "two", "a", "b", "m1")
    # campaign two's own a <-> b: RTT 0.1 (bound 10 tok/s), NCCL 1e9 (feasible below 5e8):
    # 10 tok/s at batch 1 (1e8) and batch 8 (2e8) carried, 64 and 100 tok/s latency-bound
    assert (two["rtt_worst_s"], two["region_a_name"]) == (0.1, "Alpha-2")
    assert (two["workloads_carried"], two["workloads_latency_bound"]) == (2, 2)
    assert con.execute("select count(*) from fct_p2p_pp_verdict where campaign = 'two'").fetchone()[0] == 2
