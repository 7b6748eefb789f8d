"""Wire bytes of the lab series on hand-made captures (int_lab__series_traffic,
fct_lab_series_traffic, fct_lab_wire_bytes): which sampling intervals a request's window takes,
per-unit bytes each way, and the formula fitted across shapes with its residuals. Every
expected number is worked by hand next to its assertion."""
from __future__ import annotations

import duckdb
import pytest

from model_runs import dict_rows, run_sql_model

MARGIN = 0.5


_run, _rows = run_sql_model, dict_rows


@pytest.fixture(scope="module")
def traffic():
    """One series 's', one run: prefill task 10 (100 positions), decode task 11 (8 steps),
    snapshot task 12 (108 tokens); the head's veth end sampled every 0.25 s from t = 0 to 20."""
    con = duckdb.connect()
    con.execute("create table ref_measurement_params (parameter varchar, value varchar)")
    con.execute("insert into ref_measurement_params values ('lab_window_margin_s', ?)", [str(MARGIN)])
    con.execute("create table stg_raw__campaigns as select 's' as campaign, 'lab_series' as kind")
    con.execute("create table int_deployment__host_roles as select * from (values "
                "('s', 'head', 'head'), ('s', 'worker', 'worker')) as t(campaign, host, role)")
    con.execute("create table int_deployment__link_interfaces as select * from (values "
                "('s', 'veth', 'head', 'va'), ('s', 'veth_tbf50', 'head', 'va'), "
                "('s', 'veth', 'worker', 'vb')) as t(campaign, link_id, host, interface)")
    con.execute("create table int_lab__series_runs as select 's' as campaign, 's' as series, "
                "1::bigint as run, 50::bigint as rate_mbit, 'veth_tbf50' as link_id, 'j.log' as journal_file, "
                "10 as prefill_task, 100::bigint as prefill_tokens, 11 as decode_task, "
                "8::bigint as decode_tokens, 12 as snapshot_task, 108::bigint as snapshot_tokens, "
                "40::bigint as snapshot_update_line")
    # timing lines: prefill task 10 printed at t = 5.0 after 2.0 s prompt eval + 0.5 s eval
    # (window 2.5 .. 5.0); decode task 11 at 9.0 after 0.1 + 2.9 s (6.0 .. 9.0); the cache
    # update at 11.2 lasting 0.2 s (11.0 ..) and snapshot task 12 timed at 11.5 (.. 11.5)
    con.execute("create table stg_deployment__journal as select * from (values "
                "('s', 'j.log', 10, 10, 'prompt_eval', 5.0, 2.0), ('s', 'j.log', 11, 10, 'eval', 5.0, 0.5), "
                "('s', 'j.log', 20, 11, 'prompt_eval', 9.0, 0.1), ('s', 'j.log', 21, 11, 'eval', 9.0, 2.9), "
                "('s', 'j.log', 40, null, 'cache_update_done', 11.2, 0.2), "
                "('s', 'j.log', 50, 12, 'prompt_eval', 11.5, 0.01), ('s', 'j.log', 51, 12, 'eval', 11.5, 0.01)"
                ") as t(campaign, source_file, source_line, task_id, event, unix_s, duration_s)")
    # every 0.25 s interval carries 1 byte each way (the background), plus: 1,000 B tx at
    # 3.0-3.25 (prefill), 800 B rx at 8.75-9.0 (decode), 5,000 B rx at 11.0-11.25 (snapshot);
    # the worker's end (vb) is ignored: the head's end carries both directions
    con.execute("""create table int_netdev__intervals as
        select 's' as campaign, 'n.netdev' as source_file, 'head' as host, 'veth' as link_id,
               iface as interface, i * 0.25 as start_unix_s, (i + 1) * 0.25 as end_unix_s,
               1 + case when iface = 'va' and i = 12 then 1000 else 0 end as tx_bytes,
               1 + case when iface = 'va' and i = 35 then 800 when iface = 'va' and i = 44 then 5000 else 0 end
                   as rx_bytes,
               'ok' as tx_status, 'ok' as rx_status
        from range(0, 80) as r(i), (values ('va'), ('vb')) as f(iface)""")
    for rel in ("intermediate/int_lab__hop_traffic.sql", "intermediate/int_lab__series_traffic.sql",
                "marts/fct_lab_series_traffic.sql"):
        _run(con, rel)
    yield con
    con.close()


def test_each_request_takes_the_intervals_its_window_and_margin_touch(traffic):
    rows = {r["request"]: r for r in _rows(traffic, "select * from int_lab__series_traffic")}
    assert set(rows) == {"prefill", "decode", "kv_snapshot"}
    pre = rows["prefill"]
    # window 2.5 .. 5.0, widened to 2.0 .. 5.5: the intervals 8 .. 21 (2.0-2.25 .. 5.25-5.5) = 14
    assert (pre["start_unix_s"], pre["end_unix_s"], pre["intervals"]) == (2.5, 5.0, 14)
    # 14 background bytes + the 1,000 B burst sent; 14 received; per position / 100
    assert (pre["head_to_worker_bytes"], pre["worker_to_head_bytes"]) == (1014, 14)
    assert pre["head_to_worker_per_unit"] == pytest.approx(10.14)
    dec = rows["decode"]
    # 6.0 .. 9.0 widened to 5.5 .. 9.5: intervals 22 .. 37 = 16; 816 B received over 8 steps
    assert (dec["intervals"], dec["worker_to_head_bytes"]) == (16, 816)
    assert dec["worker_to_head_per_unit"] == pytest.approx(102.0)
    snap = rows["kv_snapshot"]
    # from the update's start 11.2 - 0.2 = 11.0 to 11.5, widened to 10.5 .. 12.0: 42 .. 47 = 6
    assert (snap["start_unix_s"], snap["end_unix_s"], snap["intervals"]) == (11.0, 11.5, 6)
    assert snap["worker_to_head_bytes"] == 5006 and snap["units"] == 108
    # the quiet lead: intervals ending by the first window's start 2.5 (0 .. 9, 10 of them):
    # 20 B in 2.5 s
    assert (pre["idle_bytes"], pre["idle_s"]) == (20, 2.5)


def test_the_series_summary_gives_each_direction_per_unit(traffic):
    rows = {(r["request"], r["direction"]): r for r in _rows(traffic, "select * from fct_lab_series_traffic")}
    assert len(rows) == 6
    assert rows[("prefill", "head_to_worker")]["median_bytes"] == pytest.approx(10.14)
    assert rows[("kv_snapshot", "worker_to_head")]["median_bytes"] == pytest.approx(5006 / 108)
    assert rows[("decode", "worker_to_head")]["unit"] == "step"
    assert rows[("prefill", "head_to_worker")]["idle_bytes_per_s"] == pytest.approx(20 / 2.5)


def test_a_window_outside_the_capture_counts_nothing(traffic):
    traffic.execute("create temp table kept as select * from int_netdev__intervals")
    try:
        # the capture now ends at 9.0: the decode window (.. 9.5 with its margin) and the
        # snapshot lie outside it, so they are not measured (no row), never part-counted
        traffic.execute("delete from int_netdev__intervals where end_unix_s > 9.0")
        _run(traffic, "intermediate/int_lab__hop_traffic.sql")
        _run(traffic, "intermediate/int_lab__series_traffic.sql")
        got = [r["request"] for r in _rows(traffic, "select request from int_lab__series_traffic")]
        assert got == ["prefill"]
    finally:
        traffic.execute("delete from int_netdev__intervals")
        traffic.execute("insert into int_netdev__intervals select * from kept")
        _run(traffic, "intermediate/int_lab__hop_traffic.sql")
        _run(traffic, "intermediate/int_lab__series_traffic.sql")


CAMPAIGNS = [
    # campaign, hidden, vocab, output on, worker KV bytes/token
    ("h256", 256, 1000, "worker", 4096.0),
    ("h512", 512, 1000, "worker", 8192.0),
    ("h1024", 1024, 1000, "worker", 16384.0),
    ("h512o", 512, 1000, "head", 8192.0),
]


@pytest.fixture(scope="module")
def wire():
    """Measured bytes made from a known formula: forward per position = 100 + 1.05 x payload,
    except h1024's, 5 % above it; decode return = 2,000 + 1.1 x payload; KV snapshot = 1.02 x
    payload."""
    con = duckdb.connect()
    con.execute("create table ref_measurement_params (parameter varchar, value varchar)")
    con.execute("insert into ref_measurement_params values ('lab_wire_min_shapes', '3')")
    con.execute("create table fct_lab_series_campaigns (campaign varchar, hidden_size bigint, "
                "vocab_size bigint, output_layer_on varchar, worker_kv_bytes_per_token double, "
                "workers bigint)")
    con.executemany("insert into fct_lab_series_campaigns values (?, ?, ?, ?, ?, 1)", CAMPAIGNS)
    # a split over two workers: its head counts two hops' bytes, which the one-hop formula
    # does not describe; it stays out of the fit (fct_lab_hop_bytes takes it)
    con.execute("insert into fct_lab_series_campaigns values ('x2', 512, 1000, 'worker', 8192.0, 2)")
    con.execute("create table x2_traffic as select 'x2' as campaign, * from (values "
                "('prefill', 'head_to_worker', 'position', 99999.0), "
                "('kv_snapshot', 'worker_to_head', 'token', 99999.0)) as t(request, direction, unit, v)")
    con.execute("create table fct_lab_series_traffic (campaign varchar, series varchar, request varchar, "
                "direction varchar, unit varchar, median_bytes double, q1_bytes double, "
                "q3_bytes double, runs bigint)")
    for name, hidden, vocab, out, kv in CAMPAIGNS:
        fwd = (100 + 1.05 * 4 * hidden) * (1.05 if name == "h1024" else 1)
        ret = 2000 + 1.1 * 4 * (vocab if out == "worker" else hidden)
        for request, direction, unit, value in (("prefill", "head_to_worker", "position", fwd),
                                                ("decode", "worker_to_head", "step", ret),
                                                ("kv_snapshot", "worker_to_head", "token", 1.02 * kv)):
            if name == "h512o" and request == "kv_snapshot":
                continue            # its snapshot was not measured
            con.execute("insert into fct_lab_series_traffic values (?, ?, ?, ?, ?, ?, ?, ?, 5)",
                        [name, name, request, direction, unit, value, value, value])
    con.execute("insert into fct_lab_series_traffic select campaign, campaign, request, direction, "
                "unit, v, v, v, 5 from x2_traffic")
    _run(con, "marts/fct_lab_wire_bytes.sql")
    yield con
    con.close()


def test_the_payload_follows_the_shape_and_where_the_output_layer_runs(wire):
    pay = {(r["campaign"], r["quantity"]): r["payload_bytes"]
           for r in _rows(wire, "select campaign, quantity, payload_bytes from fct_lab_wire_bytes")}
    assert pay[("h256", "prefill forward")] == 4 * 256
    # output on the worker: the logits come back (4 x 1,000); on the head: the hidden state (4 x 512)
    assert pay[("h512", "decode return")] == 4000 and pay[("h512o", "decode return")] == 2048
    assert pay[("h1024", "KV snapshot")] == 16384
    assert ("h512o", "KV snapshot") not in pay
    assert not [key for key in pay if key[0] == "x2"]


def test_the_fit_recovers_the_formula_and_shows_the_odd_one_out(wire):
    ret = _rows(wire, "select * from fct_lab_wire_bytes where quantity = 'decode return'")
    # exact data at two payloads (4,000 three times, 2,048 once): 2,000 + 1.1 p; two distinct
    # payloads are fewer than lab_wire_min_shapes = 3, so no fit is published
    assert {r["shapes"] for r in ret} == {2}
    assert all(r["ratio"] is None and r["residual_fraction"] is None for r in ret)
    fwd = {r["campaign"]: r for r in _rows(wire, "select * from fct_lab_wire_bytes "
                                           "where quantity = 'prefill forward'")}
    # payloads 1,024, 2,048 (twice), 4,096; measured 1,175.2, 2,250.4 (twice), 4,620.84
    # ((100 + 1.05 x 4,096) x 1.05). Least squares by hand: mean p = 2,304, mean y = 2,574.21;
    # Sxx = 1280^2 + 2 x 256^2 + 1792^2 = 4,980,736; Sxy = (-1280)(-1399.01) + 2 (-256)(-323.81)
    # + 1792 (2046.63) = 1,790,732.8 + 165,790.72 + 3,667,560.96 = 5,624,084.48
    slope = 5_624_084.48 / 4_980_736
    assert fwd["h256"]["ratio"] == pytest.approx(slope)                       # 1.12917
    assert fwd["h256"]["overhead_bytes"] == pytest.approx(2574.21 - slope * 2304)    # -27.39
    assert fwd["h256"]["shapes"] == 3
    # the residuals, measured / (overhead + ratio x payload) - 1: h1024's 5 % pulls the line up
    # at its end, so h256 sits 4.1 % above it (1,175.2 / 1,128.9), h512 1.5 % below (2,250.4 /
    # 2,285.3) and h1024 itself only 0.5 % above (4,620.84 / 4,597.7)
    intercept = 2574.21 - slope * 2304
    for name, payload, measured, about in (("h256", 1024, 1175.2, 0.041), ("h512", 2048, 2250.4, -0.015),
                                          ("h1024", 4096, 4620.84, 0.005)):
        expected = measured / (intercept + slope * payload) - 1
        assert fwd[name]["residual_fraction"] == pytest.approx(expected)
        assert expected == pytest.approx(about, abs=0.001)


def test_exact_data_fit_with_no_overhead_and_no_residual(wire):
    snap = _rows(wire, "select * from fct_lab_wire_bytes where quantity = 'KV snapshot'")
    # 1.02 x payload at 4,096, 8,192 and 16,384 B per token: slope 1.02, intercept 0
    assert len(snap) == 3 and {r["shapes"] for r in snap} == {3}
    for r in snap:
        assert r["ratio"] == pytest.approx(1.02)
        assert r["overhead_bytes"] == pytest.approx(0, abs=1e-6)
        assert r["residual_fraction"] == pytest.approx(0, abs=1e-9)
