"""Values exactly on a threshold or a boundary, each model's own SQL file run on a tiny table:
feasibility shares exactly at the declared bounds, a layer exactly on a TENSOR_SPLIT boundary,
netdev intervals exactly at a measured window's edges and at the idle guard, and a window of zero
length. Each case would pass with ``<`` and ``<=`` swapped if it sat off the boundary; on it,
the swap changes the answer."""
from __future__ import annotations

import duckdb
import pytest

from pipeline.warehouse import models

from paths import REPO

ROOT = REPO


def _run(con, rel: str) -> None:
    path = ROOT / "sql" / rel
    models.run_model(con, models.Model(path, path.read_text()))


def _table(con, name: str, columns: str, rows: list[tuple]) -> None:
    con.execute(f"create table {name} ({columns})")
    if rows:
        marks = ", ".join("?" * len(rows[0]))
        con.executemany(f"insert into {name} values ({marks})", rows)


# --- §2.3 feasibility classes -----------------------------------------------------------------

def _classes(shares: list[tuple[int, int]]) -> list[str]:
    """(required bit/s, usable bit/s) per cell -> the class the model gives each."""
    con = duckdb.connect()
    con.execute("create table ref_feasibility_thresholds as select * from read_csv(?)",
                [str(ROOT / "raw_data/reference/feasibility_thresholds.csv")])
    _table(con, "fct_bandwidth_requirements", "model_sort_order int, model varchar, scheme varchar, "
           "batch_size int, tokens_per_s double, required_bits_per_s double",
           [(1, "m", "pp", i, 1.0, required) for i, (required, _) in enumerate(shares)])
    _table(con, "dim_link_classes", "link_class varchar, label varchar, sort_order int, usable_bits_per_s double",
           sorted({(f"l{usable}", f"l{usable}", usable, usable) for _, usable in shares}))
    _run(con, "marts/fct_link_feasibility.sql")
    got = dict(((b, lc), c) for b, lc, c in con.execute(
        "select batch_size, link_class, feasibility_class from fct_link_feasibility").fetchall())
    return [got[(i, f"l{usable}")] for i, (_, usable) in enumerate(shares)]


def test_a_share_exactly_on_each_bound_takes_the_declared_side():
    # the CSV: green below 0.50 (exclusive), yellow up to and including 0.90, red above.
    # 499/1000 = 0.499, 500/1000 = 0.50 exactly, 900/1000 = 0.90 exactly (the same double as the
    # CSV's 0.90), 901/1000 = 0.901
    assert _classes([(499, 1000), (500, 1000), (900, 1000), (901, 1000)]) == \
        ["green", "yellow", "yellow", "red"]


# --- llama.cpp's layer split ------------------------------------------------------------------

def _placement(block_count: int, split: str, ngl: int | None) -> list[str]:
    con = duckdb.connect()
    hosts = ",".join(f"h{i + 1}" for i in range(split.count(",") + 1))
    _table(con, "int_deployment__service_config", "campaign varchar, tensor_split varchar, "
           "split_hosts varchar, n_gpu_layers int", [("c", split, hosts, ngl)])
    _table(con, "int_deployment__layers", "campaign varchar, layer int, is_full_attention boolean, "
           "is_nextn boolean, attention_kind varchar",
           [("c", i, True, False, "full") for i in range(block_count)])
    _table(con, "int_deployment__host_roles", "campaign varchar, host varchar, role varchar",
           [("c", "head", "head")])
    _run(con, "intermediate/int_deployment__layer_placement.sql")
    return [h for (h,) in con.execute("select host from int_deployment__layer_placement order by layer").fetchall()]


def test_a_layer_exactly_on_a_split_boundary_goes_to_the_next_device():
    # 8 blocks, -ngl 8: act = min(8, 8 + 1) = 8 offloaded, starting at i_gpu_start = 8 + 1 - 8 = 1,
    # so block 0 stays on the head's CPU; block il goes to the first device whose cumulative
    # share exceeds (il - 1) / 8 (std::upper_bound). TENSOR_SPLIT 1,1,2 -> cumulative 0.25, 0.5, 1:
    # il 1, 2 -> 0, 0.125 -> h1; il 3 -> 0.25 exactly, not > 0.25 -> h2; il 4 -> 0.375 -> h2;
    # il 5 -> 0.5 exactly -> h3; il 6, 7 -> h3
    assert _placement(8, "1,1,2", 8) == ["head", "h1", "h1", "h2", "h2", "h3", "h3", "h3"]


def test_every_layer_offloaded_when_ngl_covers_the_output_layer():
    # -ngl 9 = n + 1: i_gpu_start = 0, act = 9; (il) / 9 for il 0..7 with split 1,1 (0.5, 1):
    # 0, .11, .22, .33, .44 -> h1; 5/9 = .56 -> h2 … ; none on the CPU
    assert _placement(8, "1,1", 9) == ["h1"] * 5 + ["h2"] * 3
    # unset -ngl means all: the same
    assert _placement(8, "1,1", None) == ["h1"] * 5 + ["h2"] * 3


# --- a measured window's bytes and its idle baseline ------------------------------------------

def _window_traffic(windows: dict[str, tuple[float, float]], tx_by_end: dict[float, int], guard: float,
                    status: dict[float, tuple[str, str]] | None = None, more: dict | None = None):
    """The model's figures per window kind; ``status`` gives an interval (by its end) a tx and rx
    counter status other than ok; ``more`` receives each window's (counter_anomalies,
    tx_idle_bytes_per_s, rx_idle_bytes_per_s)."""
    status = status or {}
    con = duckdb.connect()
    prefill = windows.get("prefill")
    decode = windows.get("decode")
    runs = [("c", *(prefill or (None, None)), *(decode or (None, None)))] if prefill or decode else []
    _table(con, "int_deployment__journal_runs", "campaign varchar, prefill_start_unix_s double, "
           "prefill_end_unix_s double, decode_start_unix_s double, decode_end_unix_s double", runs)
    snap = windows.get("kv_snapshot")
    _table(con, "int_deployment__kv_snapshots", "campaign varchar, start_unix_s double, end_unix_s double, "
           "saved_tokens int", [("c", *snap, 10)] if snap else [])
    _table(con, "int_netdev__intervals", "source_file varchar, campaign varchar, host varchar, link_id varchar, "
           "interface varchar, start_unix_s double, end_unix_s double, interval_s double, tx_bytes bigint, "
           "rx_bytes bigint, tx_status varchar, rx_status varchar",
           # received bytes: twice the sent ones, so tx and rx cannot be mistaken for each other
           [("f", "c", "h", "l", "eth0", end - 1.0, end, 1.0, tx, 2 * tx, *status.get(end, ("ok", "ok")))
            for end, tx in sorted(tx_by_end.items())])
    _table(con, "int_deployment__link_interfaces", "campaign varchar, link_id varchar, host varchar, "
           "interface varchar", [("c", "l", "h", "eth0")])
    _table(con, "ref_measurement_params", "parameter varchar, value varchar", [("idle_guard_s", str(guard))])
    _run(con, "intermediate/int_deployment__window_traffic.sql")
    cols = "window_kind, tx_window_bytes, tx_idle_bytes, idle_s, tx_bytes, window_s"
    got = {r[0]: r[1:] for r in con.execute(f"select {cols} from int_deployment__window_traffic").fetchall()}
    rx = "window_kind, rx_window_bytes, rx_idle_bytes, idle_s, rx_bytes, window_s"
    for kind, *values in con.execute(f"select {rx} from int_deployment__window_traffic").fetchall():
        twice = tuple(None if v is None else 2 * v for v in got[kind][:2]) + (got[kind][2],) + \
            (None if got[kind][3] is None else 2 * got[kind][3], got[kind][4])
        assert tuple(values) == twice, kind            # every rx figure is twice the tx one
    if more is not None:
        more.update((r[0], r[1:]) for r in con.execute(
            "select window_kind, counter_anomalies, tx_idle_bytes_per_s, rx_idle_bytes_per_s "
            "from int_deployment__window_traffic").fetchall())
    return got


def test_intervals_on_the_window_edges_and_the_idle_guard():
    # 1-s intervals ending at 1..10 s; the window is [5, 8], the guard 1 s.
    tx = {1.0: 100, 2.0: 100, 3.0: 100, 4.0: 100,     # idle: ends <= 5 - 1 = 4 (4 exactly is in)
          5.0: 1_000_000,                             # ends exactly at the start: neither idle nor in
          6.0: 1_100, 7.0: 2_100, 8.0: 3_100,          # in the window: end > 5 and end <= 8 (8 is in)
          9.0: 1_000_000, 10.0: 1_000_000}            # after it
    got = _window_traffic({"prefill": (5.0, 8.0)}, tx, guard=1.0)
    # window 1100 + 2100 + 3100 = 6300 B; idle 4 x 100 B over 4 s = 100 B/s, times the 3-s window
    # = 300 B; corrected 6300 - 300 = 6000 B
    assert got["prefill"] == (6300, 400, 4.0, 6000.0, 3.0)


def test_an_interval_cut_by_the_window_end_counts_whole_and_the_baseline_ends_before_the_first():
    # 1-s intervals ending at 1..10 s; prefill [5, 6.5], decode [7.5, 8.5], guard 1 s.
    tx = {1.0: 100, 2.0: 100, 3.0: 100, 4.0: 100,     # idle: ends <= 5 - 1 = 4 (the first window)
          5.0: 7, 6.0: 1_000, 7.0: 2_000,              # (6, 7] is cut by the prefill's end 6.5: in
          8.0: 30_000, 9.0: 40_000, 10.0: 50}          # (7, 8] and (8, 9] overlap the decode
    got = _window_traffic({"prefill": (5.0, 6.5), "decode": (7.5, 8.5)}, tx, guard=1.0)
    # prefill: (5, 6] + (6, 7] = 3000 B; idle 400 B over 4 s = 100 B/s x 1.5 s = 150 -> 2850
    assert got["prefill"] == (3000, 400, 4.0, 2850.0, 1.5)
    # decode: (7, 8] + (8, 9] = 70000 B; its idle baseline is the capture's, before the prefill
    # (ends <= 4), not everything before 7.5 - 1: 100 B/s x 1 s = 100 -> 69900
    assert got["decode"] == (70000, 400, 4.0, 69900.0, 1.0)


def test_a_window_of_zero_length_has_no_bytes_not_a_neighbours():
    # a KV snapshot whose start and end were logged in the same instant (7 s): no interval ends
    # inside (7, 7], so its bytes are missing (NULL), not the interval ending at 7 s
    tx = {float(t): 100 * t for t in range(1, 11)}
    got = _window_traffic({"kv_snapshot": (7.0, 7.0)}, tx, guard=1.0)
    window_bytes, idle_bytes, idle_s, corrected, length = got["kv_snapshot"]
    # idle: ends <= 6 -> 100 + 200 + … + 600 = 2100 B over 6 s
    assert (window_bytes, idle_bytes, idle_s, length) == (None, 2100, 6.0, 0.0)
    assert corrected is None


def test_counter_anomalies_are_counted_in_the_intervals_the_window_counts():
    # window [5, 7.5], 1-s intervals ending 1..10; statuses other than ok on the intervals
    # ending 5 (touches the start only: not in), 6 (rx wrapped: in), 8 (tx reset, cut by the
    # window's end: in) and 10 (after it): 2 anomalies
    tx = {float(t): 100 for t in range(1, 11)}
    found: dict = {}
    _window_traffic({"prefill": (5.0, 7.5)}, tx, guard=1.0, more=found,
                    status={5.0: ("reset", "ok"), 6.0: ("ok", "wrapped"), 8.0: ("reset", "ok"),
                            10.0: ("reset", "reset")})
    # idle: the 4 intervals ending <= 5 - 1 s, 100 B sent and 200 B received each, over 4 s
    assert found == {"prefill": (2, 100.0, 200.0)}


def test_no_idle_before_the_window_leaves_the_correction_missing():
    # the capture starts 0.5 s before the window: no interval ends before start - guard, so the
    # idle rate is unknown and the corrected bytes are missing, never the uncorrected ones
    tx = {6.0: 1_000, 7.0: 1_000}
    got = _window_traffic({"prefill": (5.5, 7.0)}, tx, guard=1.0)
    assert got["prefill"][0] == 2_000 and got["prefill"][2] is None and got["prefill"][3] is None


# --- the decode table: rates, RTT basis and the prediction ------------------------------------

def test_decode_what_if_by_hand():
    con = duckdb.connect()
    # one decode step verifies 4 positions in 0.2 s (2 tokens per step); 1000 B per position
    # head -> worker, 250 B back; the measured link is 1 GbE (avg RTT 1 ms, min 0.5 ms), the
    # campaign has a 10 GbE link without ping and no 2.5 GbE link
    _table(con, "fct_deployment_constants", "campaign varchar, prefill_link_id varchar, verify_positions int, "
           "verify_step_s double, tokens_per_step double, decode_tokens_per_s double, "
           "wire_bytes_per_position_head_to_worker double, wire_bytes_per_position_worker_to_head double, "
           "parallel_slots int, provenance varchar, source_files varchar[]",
           [("c", "gbe", 4, 0.2, 2.0, 10.0, 1000.0, 250.0, 1, "captured", ["k"])])
    _table(con, "fct_deployment_links", "campaign varchar, link_id varchar, link_class varchar, status varchar, "
           "rtt_avg_s double, rtt_min_s double, source_files varchar[]",
           [("c", "gbe", "1gbe", "current", 0.001, 0.0005, ["p"]),
            ("c", "ten", "10gbe", "current", None, None, ["q"])])
    _table(con, "dim_link_classes", "link_class varchar, label varchar, sort_order int, usable_bytes_per_s double",
           [("1gbe", "1 GbE", 1, 1.0e8), ("2.5gbe", "2.5 GbE", 2, 2.5e8), ("10gbe", "10 GbE", 3, 1.0e9)])
    _run(con, "marts/fct_decode_what_if.sql")
    got = {r[0]: r[1:] for r in con.execute(
        "select link_class, rtt_s, rtt_basis, is_measured, step_wire_bytes, wire_s, net_s, "
        "avg_wire_bits_per_s_head_to_worker, avg_wire_bits_per_s_worker_to_head, compute_s, "
        "predicted_tokens_per_s from fct_decode_what_if").fetchall()}
    # step wire bytes = 4 x (1000 + 250) = 5000 B; average wire rates over the measured step:
    # 4 x 1000 / 0.2 x 8 = 160,000 bit/s out, 4 x 250 / 0.2 x 8 = 40,000 bit/s back
    # 1 GbE (measured): wire 5000 / 1e8 = 5e-5 s, net = 0.001 + 5e-5 = 1.05e-3 s,
    # compute = 0.2 - 1.05e-3 = 0.19895 s, predicted 2 / (0.19895 + 1.05e-3) = 10 tok/s
    assert got["1gbe"] == (0.001, "measured", True, 5000.0, pytest.approx(5e-5), pytest.approx(1.05e-3),
                           pytest.approx(160_000), pytest.approx(40_000), pytest.approx(0.19895),
                           pytest.approx(10.0))
    # 2.5 GbE: no link of that class, so the lowest measured average RTT (1 ms, the same
    # statistic as the measured row; not the 0.5 ms minimum) is assumed;
    # net = 0.001 + 5000 / 2.5e8 = 1.02e-3 s; predicted 2 / (0.19895 + 1.02e-3) = 10.0015 tok/s
    assert got["2.5gbe"][:2] == (0.001, "assumed")
    assert got["2.5gbe"][5] == pytest.approx(1.02e-3)
    assert got["2.5gbe"][9] == pytest.approx(2 / (0.19895 + 1.02e-3))
    # 10 GbE: the campaign has that link but no ping on it: not measured, NULL, not assumed
    assert got["10gbe"][:2] == (None, "not measured") and got["10gbe"][9] is None
    gain = dict(con.execute("select link_class, gain_vs_measured_fraction from fct_decode_what_if").fetchall())
    # the most a class can buy against the measured one's predicted rate (10 tok/s, the measured
    # rate): 2.5 GbE 2 / (0.19895 + 1.02e-3) / 10 - 1 = 1.5e-4 (the 30 us of wire it saves);
    # the measured class 0; 10 GbE not predicted, so no gain either
    assert gain["2.5gbe"] == pytest.approx(2 / (0.19895 + 1.02e-3) / 10 - 1, rel=1e-6)
    assert gain["1gbe"] == pytest.approx(0, abs=1e-12) and gain["10gbe"] is None


# --- a prompt-cache update and the save it includes -------------------------------------------

def test_a_save_logged_in_the_same_instant_as_the_update_end_belongs_to_it():
    # the save an update includes is the latest "saving prompt" line at or before the update's
    # end (asof >=): plain-text logs stamp to the second, so both lines often share one instant.
    # Saves at 5 s and exactly 10 s, the update ends at 10 s after 0.5 s, another save at 12 s:
    # the update gets the 10 s save (200 tokens, line 2), starting at 10 - 0.5 = 9.5 s
    con = duckdb.connect()
    _table(con, "stg_deployment__journal", "campaign varchar, source_file varchar, source_line int, "
           "unix_s double, duration_s double, event varchar, tokens bigint, state_mib double",
           [("c", "j", 1, 5.0, None, "prompt_save", 100, 1.0),
            ("c", "j", 2, 10.0, None, "prompt_save", 200, 2.0),
            ("c", "j", 3, 10.0, 0.5, "cache_update_done", None, None),
            ("c", "j", 4, 12.0, None, "prompt_save", 300, 3.0)])
    _run(con, "intermediate/int_deployment__kv_snapshots.sql")
    assert con.execute("select start_unix_s, end_unix_s, journal_s, saved_tokens, state_mib, save_line "
                       "from int_deployment__kv_snapshots").fetchall() == [(9.5, 10.0, 0.5, 200, 2.0, 2)]
