"""Point-to-point SQL models on a tiny hand-made warehouse, values worked by hand."""
from __future__ import annotations

import pytest

from pipeline.publish.charts import point_to_point

from p2p_warehouse import build, file_row, insert, warehouse


@pytest.fixture(scope="module")
def con():
    return warehouse()



















def rows(con, sql):
    cur = con.execute(sql)
    cols = [d[0] for d in cur.description]
    return [dict(zip(cols, r)) for r in cur.fetchall()]




def test_round_trips_and_cap_share(con):
    cost = {r["backend"]: r for r in rows(con, "select * from fct_p2p_network_cost")}
    # Gloo medians 10, 50, 90 ms at delay 0, 10, 20 ms: slope (90-10)/(20-0) = 4 round trips.
    assert cost["gloo"]["round_trips"] == pytest.approx(4.0)
    assert cost["gloo"]["base_time_s"] == pytest.approx(0.010)
    # NCCL medians 5, 15, 25 ms: slope 1; Gloo pays 4 / 1 = 4 times as many round trips.
    assert cost["nccl"]["round_trips"] == pytest.approx(1.0)
    assert cost["gloo"]["round_trips_vs_nccl"] == pytest.approx(4.0)
    assert cost["gloo"]["n_delay_settings"] == 3          # none, d10, d20 (not d10c1)
    # Gloo 14.5 ms at 10 ms wire, 8.25 ms at 5 ms wire: s = 6.25/5 = 1.25 -> share 1/1.25 = 0.8.
    assert cost["gloo"]["wire_time_slope"] == pytest.approx(1.25)
    assert cost["gloo"]["effective_fraction_of_cap"] == pytest.approx(0.8)
    assert cost["gloo"]["cap_intercept_s"] == pytest.approx(0.002)
    # NCCL 11 and 6 ms: s = 5/5 = 1 -> fills the cap.
    assert cost["nccl"]["effective_fraction_of_cap"] == pytest.approx(1.0)


def test_tc_cells_median_spread_and_share(con):
    cell = rows(con, "select * from fct_p2p_tc_times where setting_id = 'c1' and backend = 'gloo'")[0]
    assert cell["n_transfers"] == 3                         # the sender's line is not counted
    assert cell["median_time_s"] == pytest.approx(0.0145)
    assert (cell["min_time_s"], cell["max_time_s"]) == (pytest.approx(0.014), pytest.approx(0.015))
    # effective = 10e6 bits / 0.0145 s = 689.655 Mbit/s; share of 1 Gbit/s = 0.689655
    assert cell["fraction_of_cap"] == pytest.approx(10e6 / 0.0145 / 1e9)
    assert cell["effective_bits_per_s"] == pytest.approx(10e6 / 0.0145)
    # the wire time at the 1 Gbit/s cap: 10e6 bits / 1e9 bit/s = 0.01 s
    assert cell["wire_time_at_cap_s"] == pytest.approx(0.01)
    order = [r["setting_id"] for r in rows(con, "select * from dim_p2p_tc_settings order by setting_order")]
    assert order == ["none", "d10", "d20", "c2", "c1", "d10c1"]   # default, delays, loosest cap first
    cols = rows(con, "select backend from dim_p2p_tc_columns order by column_order")
    assert [c["backend"] for c in cols] == ["gloo", "nccl"]


def test_region_pairs_bandwidth_asymmetry_window(con):
    pairs = {(r["receiver"], r["sender"]): r for r in rows(con, "select * from fct_p2p_region_pairs")}
    ab = pairs[("us-west-2", "us-east-1")]
    # median of 0.08, 0.1, 0.12 s = 0.1 s -> 8e6 bits / 0.1 s = 80 Mbit/s
    assert ab["nccl_bits_per_s"] == pytest.approx(80e6)
    # reverse: 8e6 / 0.16 = 50 Mbit/s -> asymmetry 80/50 - 1 = 0.6
    assert ab["nccl_asymmetry_fraction"] == pytest.approx(0.6)
    # window = 80e6 bit/s x 0.050 s / 8 = 500,000 bytes
    assert ab["window_bytes"] == pytest.approx(500_000)
    assert ab["rtt_avg_s"] == pytest.approx(0.050)
    assert (ab["iperf3_public_bits_per_s"], ab["iperf3_vpn_bits_per_s"]) == (1e9, 2e8)
    assert pairs[("us-east-1", "us-west-2")]["iperf3_public_bits_per_s"] is None
    assert len(rows(con, "select * from fct_p2p_region_matrix")) == 9   # 3 x 3 with the diagonal


def test_total_loss_gives_empty_delay_and_a_note(con):
    lost = rows(con, "select * from fct_p2p_region_pairs where receiver = 'us-west-2' "
                     "and sender = 'eu-west-1'")[0]
    assert lost["rtt_avg_s"] is None and lost["window_bytes"] is None   # unknown, not zero
    assert lost["nccl_bits_per_s"] == pytest.approx(8e6 / 0.2)          # 40 Mbit/s still shown
    notes = rows(con, "select * from fct_campaign_file_notes")
    assert [(n["campaign"], n["source_file"]) for n in notes] == [
        ("sw", "p2p/sw/us-west-2_from_eu-west-1.txt")]
    assert "no reply to 3 packet(s)" in notes[0]["detail"]


def test_removing_one_pair_removes_exactly_its_row_and_cells(con):
    without = warehouse(skip_pair=("us-west-2", "us-east-1"))
    key = lambda r: (r["receiver"], r["sender"])                          # noqa: E731
    before = {key(r): r for r in rows(con, "select * from fct_p2p_region_pairs")}
    after = {key(r): r for r in rows(without, "select * from fct_p2p_region_pairs")}
    assert set(before) - set(after) == {("us-west-2", "us-east-1")} and set(after) < set(before)
    measured = ("rtt_avg_s", "nccl_bits_per_s")
    cells_before = {key(r): r for r in rows(con, "select * from fct_p2p_region_matrix")}
    cells_after = {key(r): r for r in rows(without, "select * from fct_p2p_region_matrix")}
    assert set(cells_before) == set(cells_after)                          # no shifted cells
    for k in cells_before:
        for field in measured:
            if k == ("us-west-2", "us-east-1"):
                assert cells_after[k][field] is None
            else:
                assert cells_after[k][field] == cells_before[k][field]


def test_quarantined_file_becomes_a_note():
    con = warehouse()
    con.execute("update ingest_registry set status = 'quarantined', reason = 'x.log:3: expected a, "
                "found b' where source_file = 'p2p/sw/eu-west-1_from_us-west-2.log'")
    build(con, only={"fct_campaign_file_notes"})
    notes = rows(con, "select detail from fct_campaign_file_notes order by detail")
    assert "x.log:3: expected a, found b" in [n["detail"] for n in notes]


def test_method_flattens_env_and_commands(con):
    got = {(r["campaign"], r["section"], r["name"]): r["value"]
           for r in rows(con, "select * from fct_p2p_method")}
    assert got[("sw", "env", "NCCL_SOCKET_IFNAME")] == "wg0"
    assert got[("tc", "command", "nccl")] == "x <y>"
    assert got[("tc", "param", "instance_type")] == "p3.2xlarge"


def test_charts_are_byte_identical_across_builds(con):
    other = warehouse()
    for chart in point_to_point.CHARTS:
        first, second = chart.render(con), chart.render(other)
        assert first == second, chart.name
        assert first.startswith("<svg") and "NaN" not in first and "None" not in first
    heat = point_to_point.delay_matrix(con)
    # no data: the lost ping (us-west-2 <- eu-west-1) and both directions us-east-1 / eu-west-1
    assert heat.count(">—<") == 3
    assert heat.count(">·<") == 3      # the diagonal


def test_a_pair_with_two_ping_runs_sums_their_packets_and_averages_their_rtt():
    # us-west-2 <- us-east-1 already has one run (3 of 3 packets, 50 ms); a second file adds
    # 10 sent, 7 received at 70 ms: packets 3 + 10 = 13 sent, 3 + 7 = 10 received; RTT the mean
    # of the two runs' averages (50 + 70) / 2 = 60 ms
    def second_run(con):
        ctx = {"receiver": "us-west-2", "sender": "us-east-1", "path": "vpn"}
        file_row(con, "sw", "p2p/sw/us-west-2_from_us-east-1-b.txt", "ping", ctx)
        insert(con, "raw_ping", {
            "source_file": "p2p/sw/us-west-2_from_us-east-1-b.txt", "campaign": "sw", "source_line": 14,
            "destination": "10.8.0.9", "packets_transmitted": 10, "packets_received": 7,
            "packet_loss_fraction": 0.3, "rtt_avg_ms": 70.0})
    con = warehouse(extra=second_run)
    got = con.execute("select ping_packets_transmitted, ping_packets_received, rtt_avg_s, len(source_files) "
                      "from int_p2p__pair_measurements where receiver = 'us-west-2' "
                      "and sender = 'us-east-1'").fetchall()
    # files: the two ping runs, its NCCL log and two iperf3 runs (public, vpn)
    assert got == [(13, 10, pytest.approx(0.060), 5)]


def test_the_method_table_flattens_each_params_entry_once(con):
    # tc: {"instance_type": "p3.2xlarge", "commands": {"nccl": "x <y>"}}; sw: {"env":
    # {"NCCL_SOCKET_IFNAME": "wg0"}, "commands": {"nccl": "… sendrecv_perf …"}}: env and commands
    # are their own sections, never params
    rows = con.execute("select campaign, section, name, value from fct_p2p_method "
                       "order by campaign, section, name").fetchall()
    assert rows == [("sw", "command", "nccl", "mpirun -np 2 ./build/sendrecv_perf -b 1M -e 1M"),
                    ("sw", "env", "NCCL_SOCKET_IFNAME", "wg0"), ("tc", "command", "nccl", "x <y>"),
                    ("tc", "param", "instance_type", "p3.2xlarge")]
