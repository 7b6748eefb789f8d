"""The prefill what-if (fct_prefill_what_if) and the measured link rates
(fct_link_measured_throughput) on hand-made tables, every expected number worked by hand.

Two link classes: A (usable 1e8 B/s) and B (1e9 B/s). Campaign "d" prefilled on its link L of
class A: 512-token ubatches at 256 tok/s (2 s each) of 1e8 bytes, 2e7 head -> worker and 8e7
worker -> head (the worker's direction is the busier here). Campaign "e" reuses the link id L,
of class B, with its head's direction the busier: never pooled with "d".
"""
from __future__ import annotations

import duckdb
import pytest

from pipeline.warehouse import models

from chart_marts import table as _table
from paths import REPO

ROOT = REPO


def _run(con, rel: str) -> list[dict]:
    path = ROOT / "sql" / rel
    models.run_model(con, models.Model(path, path.read_text()))
    cur = con.execute(f"select * from {path.stem}")
    names = [d[0] for d in cur.description]
    return [dict(zip(names, r)) for r in cur.fetchall()]


@pytest.fixture()
def con():
    con = duckdb.connect()
    _table(con, "dim_link_classes", "link_class varchar, label varchar, sort_order int, "
           "line_rate_bits_per_s double, usable_bytes_per_s double, usable_bits_per_s double",
           [("a", "A", 1, 1e9, 1e8, 8e8), ("b", "B", 2, 1e10, 1e9, 8e9)])
    _table(con, "fct_deployment_constants", "campaign varchar, prefill_link_id varchar, "
           "ubatch_tokens double, prefill_tokens_per_s double, ubatch_bytes double, "
           "ubatch_bytes_head_to_worker double, ubatch_bytes_worker_to_head double, "
           "parallel_slots bigint, prefill_tokens bigint, provenance varchar",
           [("d", "L", 512.0, 256.0, 1e8, 2e7, 8e7, 1, 4096, "captured"),
            ("e", "L", 512.0, 1024.0, 1e8, 6e7, 4e7, 4, 2048, "reconstructed")])
    _table(con, "fct_deployment_links", "campaign varchar, link_id varchar, label varchar, "
           "link_class varchar, iperf3_head_to_worker_bytes_per_s double, "
           "iperf3_worker_to_head_bytes_per_s double",
           [("d", "L", "lab LAN", "a", 9e7, None), ("d", "M", "spare", "b", None, 5e8),
            ("d", "N", "unmeasured", "b", None, None), ("e", "L", "other LAN", "b", 8e8, 9e8)])
    yield con
    con.close()


def test_the_what_if_takes_the_busier_direction_of_each_campaign(con):
    rows = {(r["campaign"], r["link_class"]): r for r in _run(con, "marts/fct_prefill_what_if.sql")}
    d_a, d_b = rows[("d", "a")], rows[("d", "b")]
    # d on A (measured): wire 1e8 / 1e8 = 1 s, residual 2 - 1 = 1 s
    assert d_a["is_measured"] and not d_b["is_measured"]
    # the workload each row holds for comes along from the campaign's constants, every class
    assert {(r["campaign"], r["parallel_slots"], r["prefill_tokens"], r["provenance"]) for r in rows.values()} \
        == {("d", 1, 4096, "captured"), ("e", 4, 2048, "reconstructed")}
    assert (d_a["residual_s"], d_a["wire_s"], d_a["ubatch_total_s"]) == pytest.approx((1.0, 1.0, 2.0))
    # the busier direction is worker -> head: 8e7 bytes; over A's 1e8 B/s x 2 s = 0.4
    assert d_a["busier_direction_bytes"] == 8e7
    assert d_a["avg_link_use_fraction"] == pytest.approx(0.4)
    assert d_a["burst_duty_fraction"] == pytest.approx(0.5)
    # d on B: wire 0.1 s, total 1.1 s, 512 / 1.1 tok/s; 8e7 / (1e9 x 1.1); 2 / 1.1 - 1 over A
    assert d_b["predicted_tokens_per_s"] == pytest.approx(512 / 1.1)
    assert d_b["avg_link_use_fraction"] == pytest.approx(8e7 / 1.1e9)
    assert d_b["gain_vs_previous_class_fraction"] == pytest.approx(2 / 1.1 - 1)
    assert d_b["previous_class_label"] == "A" and d_a["previous_class_label"] is None
    # e on B (measured): ubatch 0.5 s, wire 0.1 s, residual 0.4 s; head -> worker busier: 6e7
    e_a, e_b = rows[("e", "a")], rows[("e", "b")]
    assert e_b["is_measured"] and e_b["residual_s"] == pytest.approx(0.4)
    assert e_a["busier_direction_bytes"] == e_b["busier_direction_bytes"] == 6e7
    # e on A: wire 1 s, total 1.4 s: 512 / 1.4 tok/s against the measured 512 / 0.5 = 1024
    assert e_a["gain_vs_measured_fraction"] == pytest.approx((512 / 1.4) / 1024 - 1)


def test_a_link_measured_in_either_direction_alone_is_listed(con):
    got = [(r["campaign"], r["link_id"], r["iperf3_head_to_worker_bits_per_s"],
            r["iperf3_worker_to_head_bits_per_s"], r["head_to_worker_usable_fraction"],
            r["worker_to_head_usable_fraction"])
           for r in _run(con, "marts/fct_link_measured_throughput.sql")]
    # L head -> worker only: 9e7 B/s = 7.2e8 bit/s over A's 8e8 = 0.9; M worker -> head only:
    # 5e8 B/s = 4e9 bit/s over B's 8e9 = 0.5; N has neither: not listed; e's L its own
    assert got == [
        ("d", "L", pytest.approx(7.2e8), None, pytest.approx(0.9), None),
        ("d", "M", None, pytest.approx(4e9), None, pytest.approx(0.5)),
        ("e", "L", pytest.approx(6.4e9), pytest.approx(7.2e9), pytest.approx(0.8), pytest.approx(0.9)),
    ]
