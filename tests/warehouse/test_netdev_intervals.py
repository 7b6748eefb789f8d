"""int_netdev__intervals on hand-made /proc/net/dev samples: wraps, resets, order, repeats, gaps.

Each case is a tiny raw_netdev table (the parser's own columns) plus the raw_files row that
gives the capture its host and link; the model's own SQL file is run on it (models.run_model,
the step build_all repeats per model; running one file keeps each case in milliseconds).
"""

import duckdb
import pytest

from pipeline.ingest.formats.netdev import FORMAT
from pipeline.ingest.runner import ensure_table
from pipeline.warehouse import models

from paths import REPO

MODEL_PATH = REPO / "sql/intermediate/int_netdev__intervals.sql"
MODEL = models.Model(MODEL_PATH, MODEL_PATH.read_text())
CONTEXT_PATH = MODEL_PATH.parents[1] / "staging" / "stg_raw__file_context.sql"
CONTEXT = models.Model(CONTEXT_PATH, CONTEXT_PATH.read_text())   # host/link from the manifest
FILE = "deployments/c/netdev/h.netdev"
WRAP = 2 ** 32


def intervals(samples):
    """samples: (source_line, unix_s, interface, rx_bytes, tx_bytes) -> the model's rows."""
    con = duckdb.connect()
    ensure_table(con, FORMAT)
    con.execute("create table raw_files (source_file varchar, campaign varchar, format varchar, context json)")
    con.execute("""insert into raw_files (source_file, context) values (?, '{"host": "h", "link": "l"}')""", [FILE])
    for line, t, iface, rx, tx in samples:
        con.execute(f"insert into {FORMAT.table} (source_file, campaign, source_line, sample_unix_s, "
                    "interface, rx_bytes, tx_bytes, rx_packets, tx_packets, rx_errs, tx_errs, "
                    "rx_drop, tx_drop) values (?, 'c', ?, ?, ?, ?, ?, 0, 0, 0, 0, 0, 0)",
                    [FILE, line, t, iface, rx, tx])
    models.run_model(con, CONTEXT)
    models.run_model(con, MODEL)
    return con.execute("select interface, start_unix_s, end_unix_s, interval_s, rx_bytes, tx_bytes, "
                       "rx_status, tx_status, host, link_id from int_netdev__intervals "
                       "order by interface, start_unix_s").fetchall()


def test_plain_deltas_carry_host_and_link():
    rows = intervals([(1, 1.0, "eth0", 100, 10), (2, 1.02, "eth0", 350, 60)])
    # 350 - 100 = 250 received, 60 - 10 = 50 sent over 0.02 s
    assert rows == [("eth0", 1.0, 1.02, pytest.approx(0.02), 250, 50, "ok", "ok", "h", "l")]


def test_32_bit_wrap_is_a_small_delta():
    rows = intervals([(1, 1.0, "eth0", WRAP - 300, 5), (2, 2.0, "eth0", 200, 7)])
    # rx wrapped: 200 + 2^32 - (2^32 - 300) = 500 bytes; tx simply grew 7 - 5 = 2
    assert [(r[4], r[5], r[6], r[7]) for r in rows] == [(500, 2, "wrap", "ok")]


def test_counter_reset_counts_bytes_since_the_reset():
    rows = intervals([
        (1, 1.0, "eth0", 1_000_000, 2_200_000_000),
        # interface bounced: both counters restarted from zero and are now 300 and 40
        (2, 2.0, "eth0", 300, 40),
        (3, 3.0, "eth0", 900, 100),
    ])
    # rx was in the bottom half of 2^32, so it cannot be a wrap: reset, delta = 300.
    # tx was in the top half, but a wrap would imply 40 + 2^32 - 2.2e9 = 2,094,967,336 bytes
    # (> 2^30 in one interval): a reset too, delta = 40. Then 900 - 300 and 100 - 40.
    assert [(r[4], r[5], r[6], r[7]) for r in rows] == [
        (300, 40, "reset", "reset"), (600, 60, "ok", "ok")]


def test_64_bit_counter_going_down_is_a_reset():
    rows = intervals([(1, 1.0, "eth0", 10_000_000_000, 0), (2, 2.0, "eth0", 5_000, 0)])
    # above 2^32 a counter is 64-bit and cannot wrap at 2^32: reset, delta = 5000
    assert [(r[4], r[6]) for r in rows] == [(5_000, "reset")]


def test_samples_out_of_time_order_are_sorted():
    # written 3 s, 1 s, 2 s (lines 1..3), e.g. two capture loops appending to one file
    rows = intervals([(1, 3.0, "eth0", 700, 0), (2, 1.0, "eth0", 100, 0), (3, 2.0, "eth0", 300, 0)])
    # by time: 100 -> 300 -> 700, deltas 200 and 400, never a negative or a false reset
    assert [(r[1], r[2], r[4], r[6]) for r in rows] == [(1.0, 2.0, 200, "ok"), (2.0, 3.0, 400, "ok")]


def test_same_instant_twice_counts_once():
    rows = intervals([(1, 1.0, "eth0", 100, 0), (2, 2.0, "eth0", 300, 0),
                      (3, 2.0, "eth0", 300, 0), (4, 3.0, "eth0", 600, 0)])
    # the repeated 2.0 s sample adds no zero-length interval: 200 then 300, total 500 = 600 - 100
    assert [(r[3], r[4]) for r in rows] == [(1.0, 200), (1.0, 300)]


def test_same_instant_twice_keeps_the_first_line():
    rows = intervals([(1, 1.0, "eth0", 100, 0), (2, 2.0, "eth0", 300, 0),
                      (3, 2.0, "eth0", 999, 0), (4, 3.0, "eth0", 600, 0)])
    # line 2 wins over line 3 for 2.0 s: 300 - 100 = 200, 600 - 300 = 300
    assert [r[4] for r in rows] == [200, 300]


def test_interface_missing_from_a_sample_spans_the_gap():
    rows = intervals([
        (1, 1.0, "eth0", 0, 0), (2, 1.0, "eth1", 1_000, 0),
        (3, 2.0, "eth0", 10, 0),                       # eth1 absent from this sample
        (4, 3.0, "eth0", 30, 0), (5, 3.0, "eth1", 1_500, 0),
    ])
    # eth0: 10 - 0, 30 - 10; eth1: one 2 s interval 1.0 -> 3.0 with 1500 - 1000 = 500 bytes
    assert [(r[0], r[1], r[2], r[4]) for r in rows] == [
        ("eth0", 1.0, 2.0, 10), ("eth0", 2.0, 3.0, 20), ("eth1", 1.0, 3.0, 500)]


def test_interfaces_do_not_mix():
    rows = intervals([(1, 1.0, "eth0", 5_000, 0), (2, 1.0, "lo", 10, 0),
                      (3, 2.0, "eth0", 6_000, 0), (4, 2.0, "lo", 20, 0)])
    # eth0 grows by 1000, lo by 10: each against its own previous value
    assert [(r[0], r[4]) for r in rows] == [("eth0", 1_000), ("lo", 10)]


@pytest.mark.parametrize("prev, now, delta, status", [
    # (the model's "top half of 2^32" test, prev >= 2^31, is implied by the delta bound below:
    # now + 2^32 - prev < 2^30 means prev > 3 * 2^30; no value can sit on that bound alone)
    # a wrap needs the previous value below 2^32 (2^32 or more is a 64-bit counter) ...
    (2**32 - 1, 0, 1, "wrap"),
    (2**32, 0, 0, "reset"),
    # ... and the implied delta under 2^30: 2^30 - 1 is a wrap, 2^30 exactly a reset
    (2**32 - 2**30 + 1, 0, 2**30 - 1, "wrap"),
    (2**32 - 2**30, 0, 0, "reset"),
    # the top of a 64-bit counter going to zero: a reset (the bytes since are 0)
    (2**64 - 1, 0, 0, "reset"),
    # equal is not a decrease
    (2**32, 2**32, 0, "ok"),
])
def test_wrap_bounds_exactly(prev, now, delta, status):
    rows = intervals([(1, 1.0, "eth0", prev, 0), (2, 2.0, "eth0", now, 0)])
    assert [(r[4], r[6]) for r in rows] == [(delta, status)]
