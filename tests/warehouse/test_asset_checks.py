"""sql/tests/assert_*.sql on tiny hand-made inputs: each check fails where it should and passes
where it should (its own SQL, run with pipeline.warehouse.models.run_test on in-memory DuckDB).

Where a check reads a model whose inputs are small, that model's own SQL is built from raw
tables (run_model, the step build_all repeats); deep marts are given as the columns the check
reads.
"""

import duckdb
import pandas as pd
import pytest

from pipeline.ingest import reference
from pipeline.ingest.formats import gguf, ping
from pipeline.ingest.formats.netdev import FORMAT as NETDEV
from pipeline.ingest.runner import ensure_table
from pipeline.warehouse import models

from paths import FIXTURES, REPO

SQL = REPO / "sql"
FIX = FIXTURES


def model(rel: str) -> models.Model:
    return models.Model(SQL / rel, (SQL / rel).read_text())


def check(name: str) -> models.Model:
    return model(f"tests/{name}.sql")


def table(con, name: str, rows: list[dict]) -> None:
    con.register("_rows", pd.DataFrame(rows))
    con.execute(f"create or replace table {name} as select * from _rows")
    con.unregister("_rows")


NEW = ["assert_kv_snapshot_matches_model", "assert_prefill_prediction_matches_journal",
       "assert_iperf3_below_line_rate", "assert_ping_rtt_ordered",
       "assert_windows_inside_netdev_captures", "assert_gguf_has_required_keys",
       "assert_iperf3_rate_plausible"]
BLOCKING = {"assert_kv_snapshot_matches_model", "assert_prefill_prediction_matches_journal",
            "assert_windows_inside_netdev_captures", "assert_gguf_has_required_keys",
            "assert_iperf3_rate_plausible"}


@pytest.mark.parametrize("name", NEW)
def test_check_header_and_blocking_flag(name):
    lines = (SQL / "tests" / f"{name}.sql").read_text().splitlines()
    assert lines[0].startswith("-- check: ") and len(lines[0]) > len("-- check: ") + 10
    assert ("-- blocking: true" in lines) == (name in BLOCKING)
    # a check that withholds a campaign says what would make it pass
    if name in BLOCKING:
        assert check(name).fix_sentence and len(check(name).fix_sentence) > 30


# --- KV snapshot within 5 % of the model --------------------------------------------------

def kv_rows(copied):
    # model bytes = 1000 tokens x 10 FA layers x 100 bytes/token = 1,000,000
    return [{"campaign": f"c{i}", "netdev_file": "n", "journal_file": "j", "copied_bytes": b,
             "model_bytes": 1_000_000.0, "measured_vs_model_fraction": b / 1_000_000 - 1}
            for i, b in enumerate(copied)]


def test_kv_snapshot_within_5_percent_passes():
    con = duckdb.connect()
    # +4.9 % and -4.9 % of the model
    table(con, "fct_kv_snapshot", kv_rows([1_049_000, 951_000]))
    assert models.run_test(con, check("assert_kv_snapshot_matches_model")) == []


def test_kv_snapshot_off_by_more_than_5_percent_fails():
    con = duckdb.connect()
    # +5.1 % and -5.1 % are flagged; +1 % is not; a NULL (no GGUF: no model bytes; or no
    # capture: no copied bytes) is absent data, not wrong data: not flagged
    rows = kv_rows([1_051_000, 949_000, 1_010_000])
    rows.append({**rows[0], "campaign": "c3", "model_bytes": None, "measured_vs_model_fraction": None})
    rows.append({**rows[0], "campaign": "c4", "copied_bytes": None, "measured_vs_model_fraction": None})
    table(con, "fct_kv_snapshot", rows)
    found = models.run_test(con, check("assert_kv_snapshot_matches_model"))
    assert sorted(r[0] for r in found) == ["c0", "c1"]


# --- predicted prefill on the measured link within 2 % of the journal ---------------------

@pytest.mark.parametrize("predicted, flagged", [
    (509.0, False),   # 509 / 500 - 1 = +1.8 %
    (491.0, False),   # -1.8 %
    (511.0, True),    # +2.2 %
    (489.0, True),    # -2.2 %
])
def test_prefill_prediction_against_journal(predicted, flagged):
    con = duckdb.connect()
    # journal: 5000 tokens in 10 s = 500 tokens/s
    table(con, "int_deployment__journal_runs",
          [{"campaign": "c", "journal_file": "j", "prefill_tokens_per_s": 5000 / 10}])
    # the unmeasured 10 GbE row predicts far more; only the measured row is checked
    table(con, "fct_prefill_what_if", [
        {"campaign": "c", "link_class": "2.5gbe", "is_measured": True, "predicted_tokens_per_s": predicted},
        {"campaign": "c", "link_class": "10gbe", "is_measured": False, "predicted_tokens_per_s": 900.0}])
    found = models.run_test(con, check("assert_prefill_prediction_matches_journal"))
    assert [r[1] for r in found] == (["2.5gbe"] if flagged else [])


# --- iperf3 at most the negotiated line rate -----------------------------------------------

def test_iperf3_above_line_rate_fails_and_below_passes():
    con = duckdb.connect()
    table(con, "fct_deployment_links", [
        # 294e6 B/s x 8 = 2.352 Gbit/s <= 2.5 Gbit/s
        {"campaign": "c", "link_id": "ok", "negotiated_bits_per_s": 2_500_000_000,
         "iperf3_head_to_worker_bytes_per_s": 294e6, "iperf3_worker_to_head_bytes_per_s": 281e6,
         "iperf3_files": "a"},
        # 126e6 B/s x 8 = 1.008 Gbit/s > 1 Gbit/s in one direction
        {"campaign": "c", "link_id": "fast", "negotiated_bits_per_s": 1_000_000_000,
         "iperf3_head_to_worker_bytes_per_s": 110e6, "iperf3_worker_to_head_bytes_per_s": 126e6,
         "iperf3_files": "b"},
        # no iperf3 run on this link: nothing to check
        {"campaign": "c", "link_id": "none", "negotiated_bits_per_s": 1_000_000_000,
         "iperf3_head_to_worker_bytes_per_s": None, "iperf3_worker_to_head_bytes_per_s": None,
         "iperf3_files": None},
        # a veth pair marked nominal_speed in the manifest: 14 Gbit/s over ethtool's nominal
        # 10 Gbit/s is not flagged
        {"campaign": "c", "link_id": "veth", "negotiated_bits_per_s": 10_000_000_000,
         "iperf3_head_to_worker_bytes_per_s": 1.75e9, "iperf3_worker_to_head_bytes_per_s": 1.75e9,
         "iperf3_files": "d"},
        # the same rate on a link not marked: flagged
        {"campaign": "c", "link_id": "unmarked", "negotiated_bits_per_s": 10_000_000_000,
         "iperf3_head_to_worker_bytes_per_s": 1.75e9, "iperf3_worker_to_head_bytes_per_s": 1.0e9,
         "iperf3_files": "e"}])
    con.execute("""create table raw_campaigns as select 'c' as campaign,
                   '{"veth": {"nominal_speed": true}, "unmarked": {}}'::json as links""")
    found = models.run_test(con, check("assert_iperf3_below_line_rate"))
    assert sorted(r[1] for r in found) == ["fast", "unmarked"]


# --- iperf3 rates within ten times the fastest known class --------------------------------

def test_iperf3_rate_above_ten_times_the_fastest_class_is_flagged():
    con = duckdb.connect()
    # fastest class 10 Gbit/s: the limit is 10 * 10e9 = 100e9 bits/s
    table(con, "ref_ethernet_classes", [{"line_rate_bits_per_s": 1_000_000_000},
                                        {"line_rate_bits_per_s": 10_000_000_000}])
    table(con, "stg_raw__iperf3_runs", [
        {"campaign": "c", "source_file": "veth.json", "sent_bits_per_s": 13.9e9,
         "received_bits_per_s": 13.9e9},                      # a fast veth: 13.9e9 < 100e9
        {"campaign": "c", "source_file": "edge.json", "sent_bits_per_s": 100e9,
         "received_bits_per_s": None},                         # exactly the limit: passes
        {"campaign": "c", "source_file": "huge.json", "sent_bits_per_s": 1e308,
         "received_bits_per_s": 1e308},                        # no link carries it
        {"campaign": "c", "source_file": "one_way.json", "sent_bits_per_s": 1e9,
         "received_bits_per_s": 100.1e9}])                     # either direction counts
    found = models.run_test(con, check("assert_iperf3_rate_plausible"))
    assert sorted(r[1] for r in found) == ["huge.json", "one_way.json"]
    assert {r[4] for r in found} == {100e9}


# --- ping min <= avg <= max, built from parsed ping files ----------------------------------

def ping_warehouse(files):
    con = duckdb.connect()
    ensure_table(con, ping.FORMAT)
    con.execute("create table raw_files (source_file varchar, campaign varchar, format varchar, context json)")
    con.execute("create table raw_campaigns (campaign varchar, kind varchar)")
    con.execute("insert into raw_campaigns values ('c', 'deployment')")
    for path in files:
        frame = pd.DataFrame(ping.parse(path))
        frame.insert(0, "campaign", "c")
        frame.insert(0, "source_file", path.name)
        con.register("_f", frame)
        con.execute(f"insert into {ping.FORMAT.table} by name select * from _f")
        con.unregister("_f")
        con.execute("""insert into raw_files (source_file, context) values (?, '{"link": "l", "sender": "a", "receiver": "b"}')""",
                    [path.name])
    models.run_model(con, model("staging/stg_raw__file_context.sql"))
    models.run_model(con, model("staging/stg_deployment__ping.sql"))
    return con


def test_ping_in_order_passes_including_all_lost():
    # 0.250 / 0.370 / 0.520 ms is ordered; macOS with every reply lost has NULL rtts
    con = ping_warehouse([FIX / "ping/good/iputils-linux.txt", FIX / "ping/good/macos-all-lost.txt",
                          FIX / "ping/good/busybox.txt"])
    assert models.run_test(con, check("assert_ping_rtt_ordered")) == []


def test_ping_min_above_avg_fails():
    # the summary line reads min 0.520 > avg 0.370 > max 0.250 (parses: the check catches it)
    con = ping_warehouse([FIX / "ping/good/iputils-linux.txt", FIX / "ping/quality/min-above-avg.txt"])
    found = models.run_test(con, check("assert_ping_rtt_ordered"))
    assert [(r[1], r[2], r[3], r[4]) for r in found] == [
        ("min-above-avg.txt", pytest.approx(0.00052), pytest.approx(0.00037), pytest.approx(0.00025))]


# --- journal windows inside both hosts' netdev captures (built through the real SQL) -------

def window_warehouse(worker_last_s: float | None):
    """Head 'server' sampled 100..110 s, worker 'claw' sampled 100..worker_last_s, 1 s apart
    (worker_last_s None: the worker was not captured at all).

    Prefill window 102..104 s; KV snapshot window 103..108 s (journal times).
    """
    con = duckdb.connect()
    ensure_table(con, NETDEV)
    con.execute("create table raw_files (source_file varchar, campaign varchar, format varchar, context json)")
    for host, last in (("server", 110), ("claw", worker_last_s)):
        if last is None:
            continue
        f = f"{host}.netdev"
        con.execute("insert into raw_files (source_file, context) values (?, ?)", [f, f'{{"host": "{host}", "link": "l"}}'])
        for i, t in enumerate(range(100, int(last) + 1)):
            con.execute(f"insert into {NETDEV.table} (source_file, campaign, source_line, sample_unix_s, "
                        "interface, rx_bytes, tx_bytes) values (?, 'c', ?, ?, 'eth0', ?, ?)",
                        [f, i + 1, float(t), 1000 * i, 2000 * i])
    # no decode window: its start and end are NULL (a log whose decode was not timed)
    table(con, "int_deployment__journal_runs", [{"campaign": "c", "journal_file": "j.json",
          "prefill_start_unix_s": 102.0, "prefill_end_unix_s": 104.0,
          "decode_start_unix_s": None, "decode_end_unix_s": None}])
    table(con, "int_deployment__kv_snapshots", [{"campaign": "c", "source_file": "j.json",
          "start_unix_s": 103.0, "end_unix_s": 108.0, "saved_tokens": 10}])
    table(con, "int_deployment__link_interfaces", [
        {"campaign": "c", "link_id": "l", "host": h, "interface": "eth0"} for h in ("server", "claw")])
    table(con, "int_deployment__host_roles", [{"campaign": "c", "host": "server", "role": "head"},
                                              {"campaign": "c", "host": "claw", "role": "worker"}])
    table(con, "ref_measurement_params", [{"parameter": "idle_guard_s", "value": "1.0"}])
    models.run_model(con, model("staging/stg_raw__file_context.sql"))
    models.run_model(con, model("intermediate/int_netdev__intervals.sql"))
    models.run_model(con, model("intermediate/int_deployment__window_traffic.sql"))
    return con


def test_windows_inside_both_captures_pass():
    con = window_warehouse(worker_last_s=110)
    # 2 windows x 2 hosts made it into the traffic model, so nothing is flagged
    assert con.execute("select count(*) from int_deployment__window_traffic").fetchall() == [(4,)]
    assert models.run_test(con, check("assert_windows_inside_netdev_captures")) == []


def test_window_past_the_worker_capture_fails():
    # the worker's capture stops at 105 s, inside the 103..108 s snapshot window
    con = window_warehouse(worker_last_s=105)
    found = models.run_test(con, check("assert_windows_inside_netdev_captures"))
    assert [(r[1], r[2], r[3]) for r in found] == [("kv_snapshot", "worker", "claw")]


def test_a_host_without_any_capture_is_absent_data_not_a_failure():
    # no capture of the worker: its bytes are not measured (the traffic model has the head's 2
    # windows only), and nothing is wrong with the captures there are
    con = window_warehouse(worker_last_s=None)
    assert con.execute("select count(*) from int_deployment__window_traffic").fetchall() == [(2,)]
    assert models.run_test(con, check("assert_windows_inside_netdev_captures")) == []


# --- GGUF carries the keys the models need (built from parsed GGUF files) ------------------

def gguf_warehouse(files):
    con = duckdb.connect()
    ensure_table(con, gguf.FORMAT)
    for campaign, path in files:
        frame = pd.DataFrame(gguf.parse(path))
        frame.insert(0, "campaign", campaign)
        frame.insert(0, "source_file", path.name)
        con.register("_f", frame)
        con.execute(f"insert into {gguf.FORMAT.table} by name select * from _f")
        con.unregister("_f")
    reference.load(con, SQL.parent / "raw_data/reference/llama_cpp_architectures.csv")
    for rel in ("staging/stg_deployment__gguf_metadata.sql", "intermediate/int_deployment__gguf_keys.sql",
                "intermediate/int_deployment__layers.sql", "intermediate/int_deployment__model_shape.sql"):
        models.run_model(con, model(rel))
    return con


def test_gguf_with_every_shape_key_passes():
    con = gguf_warehouse([("ok", FIX / "gguf/quality/complete.gguf")])
    assert con.execute("select hidden_size, block_count, head_count_kv from int_deployment__model_shape") \
        .fetchall() == [(5120, 64, 4)]
    assert models.run_test(con, check("assert_gguf_has_required_keys")) == []


def test_gguf_missing_a_key_is_a_finding_not_a_parse_error():
    con = gguf_warehouse([("ok", FIX / "gguf/quality/complete.gguf"),
                          ("nb", FIX / "gguf/quality/no-block-count.gguf"),
                          # good/header-only.gguf states no head_count, head_count_kv, key or value length: llama.cpp
    # has nothing to derive the KV heads from
                          ("ho", FIX / "gguf/good/header-only.gguf")])
    found = models.run_test(con, check("assert_gguf_has_required_keys"))
    assert [(r[0], r[1]) for r in found] == [("ho", "header-only.gguf"), ("nb", "no-block-count.gguf")]
    nb = next(r for r in found if r[0] == "nb")
    assert nb[3] == 5120 and nb[4] is None   # hidden_size present, block_count missing


def test_every_blocking_check_says_how_to_fix_it():
    blocking = [p.stem for p in sorted((SQL / "tests").glob("*.sql")) if check(p.stem).blocking]
    assert len(blocking) >= 6
    assert [n for n in blocking if not check(n).fix_sentence] == []
    # raw_data/README.md's table of blocking checks names each of them
    readme = (REPO / "raw_data" / "README.md").read_text()
    assert [n for n in blocking if f"| `{n}` |" not in readme] == []
