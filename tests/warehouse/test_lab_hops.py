"""A lab series split over two workers, on hand-made captures: the bytes of each hop
(int_lab__hop_traffic), the series' total over its hops (int_lab__series_traffic), each hop set
against the one-worker formula (fct_lab_hop_bytes) and whether the hops' wire times add
(fct_lab_hop_additivity). Every expected number is worked by hand next to its assertion."""
from __future__ import annotations

import duckdb
import pytest

from model_runs import dict_rows, run_sql_model


_run, _rows = run_sql_model, dict_rows


# extra bytes on each head end, by sampling interval (every interval also carries 1 B each way):
# interface -> {interval: (tx, rx)}
BURSTS = {"va": {12: (1000, 0), 35: (0, 800), 44: (0, 5000)},     # hop 1, to worker w1
          "vc": {12: (3000, 0), 35: (0, 1600), 44: (0, 7000)}}    # hop 2, to worker w2


def _intervals(con) -> None:
    values = ", ".join(f"('{iface}', {i}, {tx}, {rx})" for iface, by in BURSTS.items()
                       for i, (tx, rx) in by.items())
    con.execute(f"""create or replace table int_netdev__intervals as
        select 'h' as campaign, 'n.netdev' as source_file, 'head' as host, iface as interface,
               i * 0.25 as start_unix_s, (i + 1) * 0.25 as end_unix_s,
               1 + coalesce(b.tx, 0) as tx_bytes, 1 + coalesce(b.rx, 0) as rx_bytes,
               'ok' as tx_status, 'ok' as rx_status
        from range(0, 80) as r(i)
        cross join (values ('va'), ('vb'), ('vc'), ('vd')) as f(iface)
        left join (values {values}) as b(biface, bi, tx, rx) on b.biface = iface and b.bi = i""")


@pytest.fixture(scope="module")
def hops():
    """Campaign 'h': head with two links, hop1 (va <-> w1's vb) and hop2 (vc <-> w2's vd); one
    run: prefill task 10 (100 positions, window 2.5 .. 5.0), decode task 11 (8 steps, 6.0 ..
    9.0), snapshot (108 tokens, 11.0 .. 11.5), as in test_lab_wire_bytes; the margin 0.5 s."""
    con = duckdb.connect()
    con.execute("create table ref_measurement_params (parameter varchar, value varchar)")
    con.execute("insert into ref_measurement_params values ('lab_window_margin_s', '0.5')")
    con.execute("create table stg_raw__campaigns as select 'h' as campaign, 'lab_series' as kind")
    con.execute("create table int_deployment__host_roles as select * from (values "
                "('h', 'head', 'head'), ('h', 'w1', 'worker'), ('h', 'w2', 'worker')) "
                "as t(campaign, host, role)")
    con.execute("create table int_deployment__link_interfaces as select * from (values "
                "('h', 'hop1_veth', 'head', 'va'), ('h', 'hop1_veth', 'w1', 'vb'), "
                "('h', 'hop2_veth', 'head', 'vc'), ('h', 'hop2_veth', 'w2', 'vd')) "
                "as t(campaign, link_id, host, interface)")
    con.execute("create table int_lab__series_runs as select 'h' as campaign, 'h' as series, "
                "1::bigint as run, null::bigint as rate_mbit, 'hop1_veth' as link_id, "
                "'j.log' as journal_file, 10 as prefill_task, 100::bigint as prefill_tokens, "
                "11 as decode_task, 8::bigint as decode_tokens, 12 as snapshot_task, "
                "108::bigint as snapshot_tokens, 40::bigint as snapshot_update_line")
    con.execute("create table stg_deployment__journal as select * from (values "
                "('h', 'j.log', 10, 10, 'prompt_eval', 5.0, 2.0), ('h', 'j.log', 11, 10, 'eval', 5.0, 0.5), "
                "('h', 'j.log', 20, 11, 'prompt_eval', 9.0, 0.1), ('h', 'j.log', 21, 11, 'eval', 9.0, 2.9), "
                "('h', 'j.log', 40, null, 'cache_update_done', 11.2, 0.2), "
                "('h', 'j.log', 50, 12, 'prompt_eval', 11.5, 0.01), ('h', 'j.log', 51, 12, 'eval', 11.5, 0.01)"
                ") as t(campaign, source_file, source_line, task_id, event, unix_s, duration_s)")
    _intervals(con)
    _run(con, "intermediate/int_lab__hop_traffic.sql")
    _run(con, "intermediate/int_lab__series_traffic.sql")
    yield con
    con.close()


def test_each_hop_counts_its_own_link(hops):
    rows = {(r["request"], r["worker_host"]): r for r in _rows(hops, "select * from int_lab__hop_traffic")}
    assert len(rows) == 6
    # prefill: intervals 8 .. 21 (14) on each head end, 1 B each way each, plus the burst
    assert (rows[("prefill", "w1")]["head_to_worker_bytes"], rows[("prefill", "w1")]["worker_to_head_bytes"]) == (1014, 14)
    assert rows[("prefill", "w2")]["head_to_worker_bytes"] == 3014
    assert rows[("prefill", "w2")]["interface"] == "vc"
    # decode: intervals 22 .. 37 (16): 816 and 1,616 received
    assert (rows[("decode", "w1")]["worker_to_head_bytes"], rows[("decode", "w2")]["worker_to_head_bytes"]) == (816, 1616)
    # the quiet lead of each end: intervals 0 .. 9, 10 x 2 B = 20 B in 2.5 s
    assert (rows[("kv_snapshot", "w2")]["idle_bytes"], rows[("kv_snapshot", "w2")]["idle_s"]) == (20, 2.5)


def test_the_series_total_adds_the_hops(hops):
    rows = {r["request"]: r for r in _rows(hops, "select * from int_lab__series_traffic")}
    pre = rows["prefill"]
    # 1,014 + 3,014 sent, 14 + 14 received; 14 intervals (the window's, not summed)
    assert (pre["hops"], pre["head_to_worker_bytes"], pre["worker_to_head_bytes"], pre["intervals"]) == (2, 4028, 28, 14)
    assert pre["bytes_per_unit"] == pytest.approx(4056 / 100)
    # snapshot: 5,006 + 7,006 received over 108 tokens; idle 20 + 20 B over the same 2.5 s
    assert rows["kv_snapshot"]["worker_to_head_per_unit"] == pytest.approx(12012 / 108)
    assert (rows["kv_snapshot"]["idle_bytes"], rows["kv_snapshot"]["idle_s"]) == (40, 2.5)


def test_a_request_missing_one_hop_has_no_total(hops):
    try:
        # hop 2's end stops being sampled at 9.0: its decode (.. 9.5 with the margin) and
        # snapshot windows lie outside its capture, so neither total is published from hop 1 alone
        hops.execute("delete from int_netdev__intervals where interface = 'vc' and end_unix_s > 9.0")
        _run(hops, "intermediate/int_lab__hop_traffic.sql")
        _run(hops, "intermediate/int_lab__series_traffic.sql")
        assert [r["request"] for r in _rows(hops, "select request from int_lab__series_traffic")] == ["prefill"]
        assert len(_rows(hops, "select * from int_lab__hop_traffic where worker_host = 'w1'")) == 3
    finally:
        _intervals(hops)
        _run(hops, "intermediate/int_lab__hop_traffic.sql")
        _run(hops, "intermediate/int_lab__series_traffic.sql")


@pytest.fixture(scope="module")
def judged(hops):
    """hops' campaign 'h' (hidden 512, vocab 1,000, 100-token prompt, output on the workers):
    blocks 0-1 on the head, 2-4 on w1, 5-7 on w2, 1,024 KV bytes per token per block; the
    one-worker fits: prefill forward 100 + 1.05 p, decode return 2,000 + 1.1 p, KV snapshot
    1.02 p (decode forward not fitted). Two one-worker series 'a', 'b' besides it."""
    con = hops
    con.execute("create table fct_lab_series_campaigns as select * from (values "
                "('h', 'h', 512, 1000, 100, 'worker', 2), ('a', 'a', 512, 1000, 100, 'worker', 1), "
                "('b', 'b', 512, 1000, 100, 'worker', 1)) as t(campaign, series, hidden_size, "
                "vocab_size, prompt_tokens, output_layer_on, workers)")
    con.execute("create table int_deployment__layer_placement as select 'h' as campaign, l as layer, "
                "case when l < 2 then 'head' when l < 5 then 'w1' else 'w2' end as host "
                "from range(0, 8) as r(l)")
    con.execute("create table int_deployment__layer_kv as select 'h' as campaign, l as layer, "
                "1024.0 as kv_bytes_per_token from range(0, 8) as r(l)")
    con.execute("create table fct_lab_wire_bytes (quantity varchar, overhead_bytes double, ratio double)")
    con.execute("insert into fct_lab_wire_bytes values ('prefill forward', 100, 1.05), "
                "('decode forward', null, null), ('decode return', 2000, 1.1), ('KV snapshot', 0, 1.02)")
    # corrected fits: 'h' prefill S + K = 3,853.2, decode S + K = 204; the one-worker series'
    # slow-side shares 0.9 and 1.0 (prefill), 1.0 and 1.0 (decode)
    con.execute("create table fct_lab_series_fit (campaign varchar, series varchar, quantity varchar, "
                "sort_order int, model varchar, slope_bytes double, knee_slope_bytes double, "
                "slow_side_share_of_wire double)")
    con.execute("insert into fct_lab_series_fit select * from (values "
                "('h', 'h', 'prefill', 1, 'corrected', 3000.0, 853.2, null), "
                "('h', 'h', 'decode step', 2, 'corrected', 200.0, 4.0, null), "
                "('h', 'h', 'prefill', 1, 'additive', 1.0, 0.0, null), "
                "('a', 'a', 'prefill', 1, 'corrected', 0.0, 0.0, 0.9), "
                "('b', 'b', 'prefill', 1, 'corrected', 0.0, 0.0, 1.0), "
                "('a', 'a', 'decode step', 2, 'corrected', 0.0, 0.0, 1.0), "
                "('b', 'b', 'decode step', 2, 'corrected', 0.0, 0.0, 1.0))")
    _run(con, "marts/fct_lab_hop_bytes.sql")
    _run(con, "marts/fct_lab_hop_additivity.sql")
    return con


def test_each_hop_is_put_to_the_one_worker_formula(judged):
    rows = {(r["worker_host"], r["quantity"]): r for r in _rows(judged, "select * from fct_lab_hop_bytes")}
    assert len(rows) == 10
    w1, w2 = rows[("w1", "prefill forward")], rows[("w2", "prefill forward")]
    assert (w1["hop"], w1["first_block"], w1["last_block"], w1["holds_output"]) == (1, 2, 4, False)
    assert (w2["hop"], w2["holds_output"]) == (2, True)
    # prefill forward: payload 4 x 512 = 2,048; predicted 100 + 1.05 x 2,048 = 2,250.4;
    # measured on hop 1: 1,014 B / 100 positions = 10.14
    assert (w1["payload_bytes"], w1["measured_bytes"]) == (2048, pytest.approx(10.14))
    assert w1["predicted_bytes"] == pytest.approx(2250.4)
    assert w1["residual_fraction"] == pytest.approx(10.14 / 2250.4 - 1)
    # prefill return: w1 sends its last activation on (4 x 512); w2 only the last position's
    # logits, 4 x 1,000 / 100 = 40 per position; no one-worker fit predicts it
    assert rows[("w1", "prefill return")]["payload_bytes"] == 2048
    assert rows[("w2", "prefill return")]["payload_bytes"] == 40
    assert rows[("w2", "prefill return")]["predicted_bytes"] is None
    assert rows[("w2", "prefill return")]["wire_per_payload"] == pytest.approx(0.14 / 40)
    # decode return: w1 4 x 512 -> 2,000 + 1.1 x 2,048 = 4,252.8; w2 the logits, 4 x 1,000 ->
    # 6,400; measured 816 / 8 = 102 and 1,616 / 8 = 202
    assert rows[("w1", "decode return")]["predicted_bytes"] == pytest.approx(4252.8)
    assert rows[("w2", "decode return")]["predicted_bytes"] == pytest.approx(6400)
    assert rows[("w2", "decode return")]["measured_bytes"] == pytest.approx(202)
    # KV snapshot: 3 blocks x 1,024 = 3,072 per token each; predicted 1.02 x 3,072 = 3,133.44
    assert rows[("w2", "KV snapshot")]["payload_bytes"] == 3072
    assert rows[("w2", "KV snapshot")]["predicted_bytes"] == pytest.approx(3133.44)
    assert rows[("w1", "decode forward")]["predicted_bytes"] is None


def test_the_slope_is_set_against_the_sum_and_the_largest_hop(judged):
    rows = {r["quantity"]: r for r in _rows(judged, "select * from fct_lab_hop_additivity")}
    assert set(rows) == {"prefill", "decode step"}          # 'h' has no snapshot fit here
    pre = rows["prefill"]
    # per hop: w1 (10.14 + 0.14) x 100 = 1,028; w2 (30.14 + 0.14) x 100 = 3,028
    assert (pre["hops"], pre["summed_hop_bytes"], pre["largest_hop_bytes"]) == (2, pytest.approx(4056), pytest.approx(3028))
    # 3,853.2 / 4,056 = 0.95 and / 3,028 = 1.2725; the one-worker median (0.9, 1.0) is 0.95
    assert pre["share_of_sum"] == pytest.approx(0.95)
    assert pre["share_of_largest"] == pytest.approx(3853.2 / 3028)
    assert (pre["one_worker_share"], pre["one_worker_series"], pre["hops_add"]) == (pytest.approx(0.95), 2, True)
    dec = rows["decode step"]
    # per step: w1 16 / 8 + 816 / 8 = 104; w2 2 + 202 = 204; S + K = 204: all of the largest
    # hop (1.0, the one-worker share) and 204 / 308 = 0.662 of the sum: they did not add
    assert (dec["summed_hop_bytes"], dec["largest_hop_bytes"]) == (pytest.approx(308), pytest.approx(204))
    assert dec["share_of_largest"] == pytest.approx(1.0) and dec["hops_add"] is False
