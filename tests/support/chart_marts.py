"""Hand-made marts for every chart at once: a small database holding each table a chart reads,
with values chosen so that every element kind is drawn (a missing cell, a diagonal, a fit
line, a close-up, a measured mark, several series). Used by the layout tests, which draw
every chart found by ``discover_charts`` on it; ``table`` makes one hand-made table (the value
tests of charts and marts use it too)."""
from __future__ import annotations

import duckdb

MIB = 2**20


def table(con, name: str, columns: str, rows: list[tuple]) -> None:
    con.execute(f"create table {name} ({columns})")
    con.executemany(f"insert into {name} values ({', '.join('?' * len(rows[0]))})", rows)


def region_matrix(con, regions=("Frankfurt", "Virginia", "Singapore")) -> None:
    """Receiver row x sender column; the first region's row to the last is unmeasured."""
    rows = []
    n = len(regions)
    for i, r in enumerate(regions, 1):
        for j, s in enumerate(regions, 1):
            diag = i == j
            missing = (i, j) == (1, n)
            delay = None if diag or missing else 0.010 * (i + 2 * j)
            bw = None if diag or missing else 1e9 / (i + j)
            rows.append((r, i, s, j, diag, delay, bw))
    table(con, "fct_p2p_region_matrix", "receiver_name varchar, receiver_order int, "
          "sender_name varchar, sender_order int, is_diagonal boolean, rtt_avg_s double, "
          "nccl_bits_per_s double", rows)


# (backend, size, delay s, rate cap bit/s, median time s): delay rows and rate-cap rows
TC_TIMES = [
    ("nccl", MIB, 0.0, None, 0.012), ("nccl", MIB, 0.010, None, 0.035),
    ("nccl", MIB, 0.050, None, 0.130),
    ("gloo", MIB, 0.0, None, 0.020), ("gloo", MIB, 0.010, None, 0.061),
    ("gloo", MIB, 0.050, None, 0.222),
    ("nccl", 4 * MIB, 0.0, 1e9, 0.036), ("nccl", 4 * MIB, 0.0, 2.5e9, 0.016),
    ("nccl", 4 * MIB, 0.0, 5e9, 0.010),
    ("gloo", 4 * MIB, 0.0, 1e9, 0.041), ("gloo", 4 * MIB, 0.0, 2.5e9, 0.022),
    ("gloo", 4 * MIB, 0.0, 5e9, 0.017),
    # a capped row with a delay too: on neither chart
    ("gloo", 4 * MIB, 0.010, 1e9, 0.090),
]
# (backend, size, base s, round trips): the fit lines of the delay chart
NETWORK_COST = [("nccl", MIB, 0.012, 2.4), ("gloo", MIB, 0.020, 4.0)]


def tc_times(con, rows=TC_TIMES, fits=NETWORK_COST) -> None:
    table(con, "fct_p2p_tc_times", "backend varchar, size_bytes bigint, tc_delay_s double, "
          "tc_rate_bits_per_s double, median_time_s double", rows)
    table(con, "fct_p2p_network_cost", "backend varchar, size_bytes bigint, base_time_s double, "
          "round_trips double", fits)


def utilisation(con) -> None:
    """Head and worker lanes of a 2 s prefill (ubatch 0.25 s, so a 1 s close-up) and a 0.5 s
    KV snapshot."""
    table(con, "fct_netdev_utilisation", "campaign varchar, window_kind varchar, host varchar, "
          "link_id varchar, interface varchar, start_s double, end_s double, "
          "tx_line_rate_fraction double, rx_line_rate_fraction double, window_s double",
          [("c", "prefill", "h", "l", "eth0", -0.2, 0.1, 0.0, 0.0, 2.0),
           ("c", "prefill", "h", "l", "eth0", 0.1, 0.3, 0.8, 0.0, 2.0),
           ("c", "prefill", "h", "l", "eth0", 0.3, 2.2, 0.0, 0.0, 2.0),
           ("c", "prefill", "w", "l", "eth0", 0.0, 1.0, 0.0, 0.0, 2.0),
           ("c", "prefill", "w", "l", "eth0", 1.0, 1.5, 0.4, 0.0, 2.0),
           ("c", "kv_snapshot", "h", "l", "eth0", 0.0, 0.5, 0.9, 0.0, 0.5),
           ("c", "kv_snapshot", "w", "l", "eth0", 0.0, 0.5, 0.3, 0.0, 0.5)])
    table(con, "fct_deployment_constants", "campaign varchar, head_host varchar, "
          "worker_host varchar, model_name varchar, ubatch_tokens double, "
          "prefill_tokens_per_s double", [("c", "h", "w", "Qwen 8B", 512.0, 2048.0)])
    table(con, "fct_deployment_links", "campaign varchar, link_id varchar, label varchar",
          [("c", "l", "LAN")])


# (campaign, link, line rate, measured here, predicted tok/s, measured tok/s, order)
WHAT_IF = [
    ("c1", "1 GbE", 1e9, False, 100.0, 380.5, 1), ("c1", "10 GbE", 1e10, True, 400.0, 380.5, 2),
    ("c1", "25 GbE", 2.5e10, False, 450.0, 380.5, 3),
    ("c2", "1 GbE", 1e9, True, 50.0, 48.0, 1), ("c2", "10 GbE", 1e10, False, 60.0, 48.0, 2),
    ("c2", "25 GbE", 2.5e10, False, 61.0, 48.0, 3),
    # a third and a fourth campaign, so each of the four campaign colours is drawn
    ("c3", "1 GbE", 1e9, False, 20.0, None, 1), ("c3", "10 GbE", 1e10, False, 30.0, None, 2),
    # c4's 350 at 25 GbE would sit on c1's "measured 380.5" note: it moves under its point
    ("c4", "1 GbE", 1e9, False, 300.0, None, 1), ("c4", "25 GbE", 2.5e10, False, 350.0, None, 3),
]


def what_if(con, rows=WHAT_IF) -> None:
    table(con, "fct_prefill_what_if", "campaign varchar, link_label varchar, "
          "line_rate_bits_per_s double, is_measured boolean, predicted_tokens_per_s double, "
          "measured_tokens_per_s double, sort_order int", rows)


# (model label, order, tok/s, link label, link order, share, class order)
FEASIBILITY = [
    ("Model one", 1, 10.0, "1 GbE", 1, 0.5, 1), ("Model one", 1, 10.0, "10 GbE", 2, 0.05, 1),
    ("Model one", 1, 20.0, "1 GbE", 1, 1.25, 3), ("Model one", 1, 20.0, "10 GbE", 2, None, None),
    ("Model two", 2, 10.0, "1 GbE", 1, 0.9, 2), ("Model two", 2, 10.0, "10 GbE", 2, 0.09, 1),
    ("Model two", 2, 20.0, "1 GbE", 1, 3.0, 3), ("Model two", 2, 20.0, "10 GbE", 2, 0.18, 1),
]


def feasibility(con, rows=FEASIBILITY) -> None:
    table(con, "fct_link_feasibility", "model varchar, model_label varchar, "
          "model_sort_order int, scheme varchar, scheme_label varchar, batch_size int, "
          "tokens_per_s double, link_class varchar, link_label varchar, link_sort_order int, "
          "usable_share_fraction double, feasibility_label varchar, feasibility_sort_order int",
          [(m.lower(), m, mo, "tp", "TP", 1, t, l.lower(), l, lo, s,
            None if k is None else f"class {k}", k) for m, mo, t, l, lo, s, k in rows])
    table(con, "dim_feasibility_thresholds", "label varchar, sort_order int",
          [("fits", 1), ("tight", 2), ("too much", 3)])


# (series, campaign, quantity, TCP bit/s, measured, predicted): seconds for the time quantities
LAB = [
    ("veth", "a", "prefill", 8e7, 200.0, 182.9), ("veth", "b", "prefill", 8e8, 512.0, 512.0),
    ("veth", "a", "decode step", 8e7, 0.07, 0.06), ("veth", "b", "decode step", 8e8, 0.05, 0.05),
    ("veth", "a", "KV snapshot", 8e7, 1.0, 1.1), ("veth", "b", "KV snapshot", 8e8, 0.2, 0.2),
    ("tc", "d", "prefill", 8e6, 64.0, 64.0), ("tc", "d", "decode step", 8e6, 0.5, 0.5),
    ("tc", "d", "KV snapshot", 8e6, 5.0, 5.0),
]


def lab_validation(con, rows=LAB) -> None:
    table(con, "fct_lab_rpc_validation", "series varchar, campaign varchar, quantity varchar, "
          "tcp_bits_per_s double, measured double, predicted double", rows)


# (link, TCP bit/s, role, median, q1, q3, min, max, predicted): tok/s for the prefill, the
# same numbers / 1000 as seconds for the decode step and the snapshot
SERIES = [
    ("r25", 24e6, "calibration", 470.0, 460.0, 475.0, 455.0, 480.0, 468.0),
    ("r50", 48e6, "validation", 845.0, 800.0, 860.0, 780.0, 870.0, 838.0),
    ("r100", 96e6, "calibration", 1420.0, 1400.0, 1430.0, 1280.0, 1432.0, 1394.0),
    ("veth", 19.8e9, "calibration", 1920.0, 1880.0, 1990.0, 1680.0, 2110.0, 1920.0),
]


def lab_series(con, rows=SERIES) -> None:
    val, rates = [], []
    for quantity, scale in (("prefill", 1.0), ("decode step", 1e-5), ("KV snapshot", 1e-3)):
        for link, tcp, role, med, q1, q3, lo, hi, pred in rows:
            val.append(("c", link, quantity, tcp, role, 5, med * scale, "corrected", pred * scale,
                        pred * scale * 0.92, pred * scale * 1.08))
            val.append(("c", link, quantity, tcp, role, 5, med * scale, "additive", pred * scale,
                        pred * scale * 0.8, pred * scale * 1.2))
            rates.append(("c", link, quantity, q1 * scale, q3 * scale, lo * scale, hi * scale))
    table(con, "fct_lab_series_validation", "campaign varchar, link_id varchar, quantity varchar, "
          "tcp_bits_per_s double, role varchar, runs bigint, measured double, model varchar, "
          "predicted double, predicted_low double, predicted_high double", val)
    table(con, "fct_lab_series_rates", "campaign varchar, link_id varchar, quantity varchar, "
          "q1 double, q3 double, min double, max double", rates)


# (campaigns, operation, runs, median s, min s, max s, what ran)
SCALING = [(5, "full build", 3, 20.0, 19.0, 21.0, "every table and page"),
           (20, "full build", 3, 55.0, 52.0, 59.0, "every table and page"),
           (50, "full build", 3, 130.0, 119.0, 132.0, "every table and page"),
           (5, "one campaign added", 3, 17.0, 15.0, 18.0, "campaign tables 77 built, 385 kept"),
           (20, "one campaign added", 3, 33.0, 32.0, 38.0, "campaign tables 77 built, 1540 kept"),
           (50, "one campaign added", 3, 65.0, 61.0, 66.0, "campaign tables 77 built, 3850 kept")]


def scaling(con, rows=SCALING) -> None:
    table(con, "dim_pipeline_scaling", "campaigns int, operation varchar, runs int, "
          "median_s double, min_s double, max_s double, what_ran varchar", rows)


def every_mart() -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    for make in (region_matrix, tc_times, utilisation, what_if, feasibility, lab_validation,
                 lab_series, scaling):
        make(con)
    return con
