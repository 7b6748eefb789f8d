"""ping parser (jc 'ping'): iputils, busybox and macOS summaries; 100 % loss is data."""

import duckdb
import pandas as pd
import pytest

from pipeline.ingest.base import ParseError
from pipeline.ingest.formats.ping import FORMAT, parse
from pipeline.ingest.runner import ensure_table

from parser_cases import assert_rejects
from paths import FIXTURES

FIX = FIXTURES / "ping"
GOOD = sorted((FIX / "good").glob("*.txt"))
BAD = sorted((FIX / "bad").glob("*.txt"))

SUMMARY = "an 'N packets transmitted' summary"
BAD_REASONS = {
    "empty.txt": (1, "an empty file"),
    "garbage.txt": (1, SUMMARY + ", found '<!DOCTYPE html>'"),
    "interrupted.txt": (1, SUMMARY),
    "unknown-host.txt": (1, "Name or service not known"),
}

# (file, destination, sent, received, loss, min, avg, max, deviation, summary line), each
# rtt as printed by the tool; the fixtures' rtts were checked against their replies,
# e.g. iputils-linux: mean(0.310, 0.250, 0.400, 0.520) = 0.370,
# mdev = sqrt(mean(t^2) - mean(t)^2) = sqrt(0.147250 - 0.136900) = 0.102
EXPECTED = [
    ("busybox.txt", "192.168.0.20", 3, 3, 0.0, 0.298, 0.353, 0.412, None, 7),
    # +2 errors (two "Destination Host Unreachable"), 2 of 4 replied; ", pipe 2" kept
    ("iputils-errors-pipe.txt", "10.0.0.1", 4, 2, 0.5, 0.101, 0.110, 0.120, 0.009, 8),
    ("iputils-hostname-loss.txt", "server", 4, 3, 0.25, 0.224, 0.585, 0.883, 0.273, 7),
    ("iputils-linux.txt", "192.168.0.20", 4, 4, 0.0, 0.250, 0.370, 0.520, 0.102, 8),
    ("iputils-unreachable.txt", "192.168.0.99", 3, 0, 1.0, None, None, None, None, 7),
    ("macos-all-lost.txt", "10.8.0.7", 3, 0, 1.0, None, None, None, None, 6),
    ("macos.txt", "192.168.0.20", 4, 3, 0.25, 0.433, 0.515, 0.601, 0.069, 8),
    # Windows: Sent 3, "Received" 3 of which 2 are a router's unreachable replies: 1 echo,
    # loss (3 - 1) / 3; its times are whole milliseconds
    ("windows-unreachable.txt", "gateway.lan", 3, 1, 2 / 3, 3.0, 3.0, 3.0, None, 8),
    # Windows: Sent 4, Received 3, loss 1/4; Minimum 0 (a "<1ms" reply), Average 1, Maximum 2
    ("windows.txt", "10.0.0.1", 4, 3, 0.25, 0.0, 1.0, 2.0, None, 9),
]
EXTRA = {  # columns beyond the summary that some tools print
    "iputils-errors-pipe.txt": {"errors": 2, "pipe": 2},
    "iputils-hostname-loss.txt": {"errors": 0},
    "iputils-linux.txt": {"errors": 0},
    "iputils-unreachable.txt": {"errors": 3},      # "+3 errors"
    "windows-unreachable.txt": {"unreachable_replies": 2},
    "windows.txt": {"unreachable_replies": 0},
}
STDDEV = {"macos.txt", "macos-all-lost.txt"}   # BSD prints stddev, iputils mdev


def test_fixture_sets_are_complete():
    assert [p.name for p in GOOD] == [e[0] for e in EXPECTED]
    assert {p.name for p in BAD} == set(BAD_REASONS)


@pytest.mark.parametrize("name, dest, sent, received, loss, lo, avg, hi, dev, line", EXPECTED)
def test_good_fixture_values(name, dest, sent, received, loss, lo, avg, hi, dev, line):
    (row,) = parse(FIX / "good" / name)
    assert set(row) == set(FORMAT.columns) | {"source_line"}
    # loss = (sent - received) / sent, e.g. (4 - 3) / 4 = 0.25
    expected = {**dict.fromkeys(FORMAT.columns), "destination": dest, "packets_transmitted": sent,
                "packets_received": received, "packet_loss_fraction": pytest.approx(loss),
                "rtt_min_ms": lo, "rtt_avg_ms": avg, "rtt_max_ms": hi, "source_line": line,
                ("rtt_stddev_ms" if name in STDDEV else "rtt_mdev_ms"): dev, **EXTRA.get(name, {})}
    assert row == expected


@pytest.mark.parametrize("path", BAD, ids=lambda p: p.name)
def test_bad_fixtures_name_file_line_and_reason(path):
    line, words = BAD_REASONS[path.name]
    assert_rejects(parse, path, line, words)


TWO_RUNS = (FIX / "good" / "busybox.txt").read_text() * 2


@pytest.mark.parametrize("data, line, words", [
    (b"", 1, "an empty file"),
    (b"\n \n", 1, "an empty file"),
    (b"garbage\x01 text\n", 1, "found 'garbage\\x01 text'"),
    (b"3 packets transmitted, 3 received, 0% packet loss\n", 1, "a 'PING <host>' header"),
    (b"\r\nPinging 10.0.0.1 with 32 bytes of data:\r\nRequest timed out.\r\n", 2,
     "the 'Packets: Sent = …' summary of ping.exe"),
    # busybox.txt has 8 lines, its summary on line 7: the second copy's is line 8 + 7
    (TWO_RUNS.encode(), 15, "one ping run per file, found 2 summaries"),
])
def test_inline_bad_bytes(tmp_path, data, line, words):
    path = tmp_path / "inline.txt"
    path.write_bytes(data)
    assert_rejects(parse, path, line, words)


def test_rows_fit_the_declared_table():
    con = duckdb.connect()
    ensure_table(con, FORMAT)
    frame = pd.concat([pd.DataFrame(parse(p)) for p in GOOD])
    con.register("incoming", frame)
    con.execute(f"insert into {FORMAT.table} by name select * from incoming")
    # two files with every reply lost keep NULL rtts
    assert con.execute(f"select count(*) from {FORMAT.table} where rtt_avg_ms is null").fetchall() \
        == [(2,)]


HDR = "PING 10.0.0.2 (10.0.0.2) 56(84) bytes of data.\n"
STATS = "\n--- 10.0.0.2 ping statistics ---\n"
WIN = "\r\nPinging 10.0.0.2 with 32 bytes of data:\r\nReply from 10.0.0.2: bytes=32 time=1ms TTL=64\r\n"
WIN_STATS = "\r\nPing statistics for 10.0.0.2:\r\n"


@pytest.mark.parametrize("text, line, expected, found", [
    ("", 1, "tool output", "an empty file"),
    ("3 packets transmitted, 3 received, 0% packet loss, time 2003ms\n", 1,
     # the found line is quoted up to 60 characters
     "a 'PING <host>' header before the summary", repr("3 packets transmitted, 3 received, 0% packet loss, time 2003ms"[:60])),
    (HDR + "64 bytes from 10.0.0.2: icmp_seq=1 ttl=64 time=0.1 ms\n", 1,
     "ping output with an 'N packets transmitted' summary", repr(HDR.strip())),
    (HDR + STATS + "1 packets transmitted, 1 received, 0% packet loss, time 0ms\n"
     + STATS + "1 packets transmitted, 1 received, 0% packet loss, time 0ms\n", 7,
     "one ping run per file", "2 summaries"),
    (HDR + STATS + "0 packets transmitted, 0 received, time 0ms\n", 4, "at least one packet transmitted", "0"),
    # a file copied while ping ran: the rtt line cut inside its numbers
    (HDR + STATS + "2 packets transmitted, 2 received, 0% packet loss, time 1001ms\n"
     "rtt min/avg/max/mdev = 0.100/0.150/0.2", 5,
     "a complete 'rtt min/avg/max[/mdev] = a/b/c[/d] ms' line (cut short?)", repr("rtt min/avg/max/mdev = 0.100/0.150/0.2")),
    (WIN + "Reply from 10.0.0.2: bytes=32 time=1ms TTL=64\r\n", 2,
     "the 'Packets: Sent = …' summary of ping.exe", "none (the run was interrupted?)"),
    (WIN + WIN_STATS + "    Packets: Sent = 1, Received = 1, Lost = 0 (0% loss),\r\n"
     + WIN_STATS + "    Packets: Sent = 1, Received = 1, Lost = 0 (0% loss),\r\n", 9, "one ping run per file", "2 summaries"),
    (WIN + WIN_STATS + "    Packets: Sent = 0, Received = 0, Lost = 0 (0% loss),\r\n", 6,
     "at least one packet transmitted", "0"),
    (WIN + WIN_STATS + "    Packets: Sent = 1, Received = 1, Lost = 0 (0% loss),\r\n"
     "Approximate round trip times in milli-seconds:\r\n    Minimum = 1ms, Maximum = 1ms, Average = 1", 8,
     "a complete 'Minimum = Nms, Maximum = Nms, Average = Nms' line (cut short?)",
     repr("Minimum = 1ms, Maximum = 1ms, Average = 1")),
])
def test_every_refusal_says_where_what_and_what_was_found(tmp_path, text, line, expected, found):
    path = tmp_path / "p.txt"
    path.write_bytes(text.encode())
    with pytest.raises(ParseError) as info:
        parse(path)
    assert (info.value.path, info.value.line, info.value.expected, info.value.found) == \
        (str(path), line, expected, found)
