"""iperf3 -J parser: end.sum_sent / end.sum_received, tool errors quoted, bad JSON located."""
import json

import duckdb
import pandas as pd
import pytest

from pipeline.ingest.formats.iperf3 import FORMAT, parse
from pipeline.ingest.runner import ensure_table

from parser_cases import assert_rejects
from paths import FIXTURES

FIX = FIXTURES / "iperf3"
GOOD = sorted((FIX / "good").glob("*.json"))
BAD = sorted((FIX / "bad").glob("*.json"))

BAD_REASONS = {
    "empty.json": (1, "an empty file"),
    # json's own report for the file cut inside the third interval
    "truncated.json": (105, "Expecting property name enclosed in double quotes at line 105 column 4"),
    "refused-old-wording.json": (10, "'error - unable to connect to server: Connection refused'"),
    "refused-3.16-wording.json": (12, "'unable to connect to server - server may have stopped "
                                      "running or use a different port, firewall issue, etc.: "
                                      "Connection refused'"),
    "speedtest-cli.json": (1, "end.sum_sent and end.sum_received"),
    # --json-stream: start, one interval, then the error event on line 3 (iperf_api.c writes
    # JSONStream_Output(test, "error", error) before the "end" event)
    "stream-error.json": (3, "'error - control socket has closed unexpectedly'"),
}
UDP_COLUMNS = {"jitter_ms", "lost_packets", "packets", "lost_percent"}


def test_fixture_sets_are_complete():
    assert [p.name for p in GOOD] == ["claw-to-server.json", "parallel-4.json",
                                      "server-to-claw-reverse.json", "stream-3.18.json",
                                      "udp-3.16.json", "udp-3.9.json"]
    assert {p.name for p in BAD} == set(BAD_REASONS)


@pytest.mark.parametrize("path", GOOD, ids=lambda p: p.name)
def test_good_fixtures_have_every_column(path):
    (row,) = parse(path)
    assert set(row) == set(FORMAT.columns) | {"source_line"}
    # a TCP run has no loss or jitter; a UDP run has no retransmits, and before 3.11 iperf3
    # wrote only the sender's "sum", so nothing was received as bytes on its own
    if row["protocol"] == "TCP":
        absent = UDP_COLUMNS
    elif row["version"] == "iperf 3.9":
        absent = {"retransmits", "received_bytes", "received_bits_per_s"}
    else:
        absent = {"retransmits"}
    assert {k for k, v in row.items() if v is None} == absent


def test_single_stream_values():
    (row,) = parse(FIX / "good" / "claw-to-server.json")
    assert (row["version"], row["protocol"], row["num_streams"], row["reverse"]) == \
        ("iperf 3.16", "TCP", 1, False)
    assert row["start_unix_s"] == 1755456000
    assert (row["local_host"], row["remote_host"]) == ("192.168.0.21", "192.168.0.20")
    # three 1 s intervals: 281018368 + 282066944 + 281542656 = 844627968 bytes sent
    assert row["sent_bytes"] == 844627968
    assert row["received_bytes"] == 844577288
    assert row["duration_s"] == pytest.approx(3.000046)
    # bits/s = bytes * 8 / seconds, for each side over its own duration
    assert row["sent_bits_per_s"] == pytest.approx(844627968 * 8 / 3.000046)
    assert row["received_bits_per_s"] == pytest.approx(844577288 * 8 / 3.000524)
    assert row["retransmits"] == 3  # 0 + 3 + 0 over the intervals
    assert (row["cpu_host_pct"], row["cpu_remote_pct"]) == (4.2, 13.6)
    assert row["source_line"] == 125  # the line of the top-level "end": {


def test_multi_stream_uses_sums():
    (row,) = parse(FIX / "good" / "parallel-4.json")
    assert row["num_streams"] == 4
    # per stream: 211156992 + 210763776 + 211156992 + 210370560 = 843448320
    assert row["sent_bytes"] == 843448320
    assert row["retransmits"] == 8  # 1 + 2 + 0 + 5
    assert row["sent_bits_per_s"] == pytest.approx(843448320 * 8 / 3.000058)
    assert row["source_line"] == 278


def test_reverse_run():
    (row,) = parse(FIX / "good" / "server-to-claw-reverse.json")
    assert row["reverse"] is True
    # 293601280 + 294125568 + 293863424 = 881590272 sent by the server
    assert row["sent_bytes"] == 881590272 and row["retransmits"] == 16  # 12 + 0 + 4


@pytest.mark.parametrize("path", BAD, ids=lambda p: p.name)
def test_bad_fixtures_name_file_line_and_reason(path):
    line, words = BAD_REASONS[path.name]
    assert_rejects(parse, path, line, words)


@pytest.mark.parametrize("data, line, words", [
    (b"", 1, "an empty file"),
    (b"   \n", 1, "an empty file"),
    (b"garbage\n", 1, "Expecting value at line 1 column 1"),
    (b'{\n\t"start":\t{\n', 3, "at line 3 column 1"),
    (b"[1, 2, 3]\n", 1, "end.sum_received"),
    (b'{"start": {}, "end": {"sum_sent": {"bytes": 1}}}', 1, "end.sum_received"),
    (b'{"end": {}, "error": "interrupt - the client has terminated"}', 1,
     "'interrupt - the client has terminated'"),
])
def test_inline_bad_bytes(tmp_path, data, line, words):
    path = tmp_path / "inline.json"
    path.write_bytes(data)
    assert_rejects(parse, path, line, words)


def test_rows_fit_the_declared_table():
    con = duckdb.connect()
    ensure_table(con, FORMAT)
    con.register("incoming", pd.DataFrame(parse(FIX / "good" / "parallel-4.json")))
    con.execute(f"insert into {FORMAT.table} by name select * from incoming")
    assert con.execute(f"select sent_bytes, reverse from {FORMAT.table}").fetchall() == \
        [(843448320, False)]


def test_udp_since_3_11_reads_the_receiver():
    (row,) = parse(FIX / "good" / "udp-3.16.json")
    assert row["protocol"] == "UDP" and row["version"] == "iperf 3.16"
    # 8633 + 8634 + 8633 = 25900 datagrams of 1448 bytes sent: 25900 * 1448 = 37503200 bytes
    assert row["sent_bytes"] == 37503200 and row["duration_s"] == pytest.approx(3.000041)
    # the receiver lost 12: (25900 - 12) * 1448 = 37485824 bytes in 3.000398 s
    assert row["received_bytes"] == 37485824
    assert row["received_bits_per_s"] == pytest.approx(37485824 * 8 / 3.000398)
    # loss and jitter are the receiver's (sum_received), not the sender's zeros
    assert (row["jitter_ms"], row["lost_packets"], row["packets"]) == (0.0213, 12, 25888)
    assert row["lost_percent"] == pytest.approx(12 / 25900 * 100)
    assert row["retransmits"] is None
    assert row["source_line"] == 115


def test_udp_before_3_11_has_only_sum():
    (row,) = parse(FIX / "good" / "udp-3.9.json")
    # end.sum: the sender's bytes over the receiver's time, with the receiver's loss
    assert row["sent_bytes"] == 37503200 and row["duration_s"] == pytest.approx(3.000398)
    assert row["sent_bits_per_s"] == pytest.approx(37503200 * 8 / 3.000398)
    assert (row["jitter_ms"], row["lost_packets"], row["packets"]) == (0.0213, 12, 25900)
    assert row["received_bytes"] is None and row["received_bits_per_s"] is None


def test_json_stream_reads_the_end_event():
    (row,) = parse(FIX / "good" / "stream-3.18.json")
    assert (row["version"], row["protocol"]) == ("iperf 3.18", "TCP")
    # the same three intervals as claw-to-server.json: 281018368 + 282066944 + 281542656
    assert row["sent_bytes"] == 844627968 and row["retransmits"] == 3
    assert row["received_bits_per_s"] == pytest.approx(844577288 * 8 / 3.000524)
    # line 1 start, lines 2-4 intervals, line 5 end
    assert row["source_line"] == 5


@pytest.mark.parametrize("data, line, words", [
    (b'{"event":"start","data":{}}\n{"event":"end","data":{"sum_sent"', 2,
     "one JSON event per line"),
    (b'{"event":"start","data":{}}\n{"event":"interval","data":{}}\n', 1,
     "end.sum_sent and end.sum_received"),
])
def test_json_stream_bad(tmp_path, data, line, words):
    path = tmp_path / "stream.json"
    path.write_bytes(data)
    assert_rejects(parse, path, line, words)


def test_json_stream_skips_blank_lines_between_events(tmp_path):
    # a stream whose events are separated by an empty line (a terminal's copy): every event is
    # read, the end event included (line 5)
    end = {"sum_sent": {"seconds": 1.0, "bytes": 10, "bits_per_second": 80.0},
           "sum_received": {"seconds": 1.0, "bytes": 9, "bits_per_second": 72.0}}
    lines = [json.dumps({"event": "start", "data": {"test_start": {"protocol": "TCP"}}}), "",
             json.dumps({"event": "interval", "data": {}}), "", json.dumps({"event": "end", "data": end})]
    path = tmp_path / "stream.json"
    path.write_text("\n".join(lines) + "\n")
    (row,) = parse(path)
    assert (row["sent_bytes"], row["received_bytes"], row["source_line"]) == (10, 9, 5)


def test_a_run_without_the_reverse_flag_says_nothing_about_direction(tmp_path):
    # test_start without "reverse" (a writer that omits it): NULL, not False
    doc = {"start": {"test_start": {"protocol": "TCP", "num_streams": 1}},
           "end": {"sum_sent": {"seconds": 1.0, "bytes": 1}, "sum_received": {"seconds": 1.0, "bytes": 1}}}
    path = tmp_path / "run.json"
    path.write_text(json.dumps(doc))
    (row,) = parse(path)
    assert row["reverse"] is None and row["num_streams"] == 1
    doc["start"]["test_start"]["reverse"] = 1
    path.write_text(json.dumps(doc))
    assert parse(path)[0]["reverse"] is True
