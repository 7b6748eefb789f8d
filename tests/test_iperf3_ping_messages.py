"""What iperf3 and ping files that cannot be ingested are told as, word for word (the user reads
these lines to fix a file), and the corners of the two parsers: line numbers after a leading
blank line, an empty ``connected`` list, a TCP run carrying only UDP's old ``sum``, a --json-stream
file after a blank line, the Windows echo count."""
from __future__ import annotations

import json
import re

import pytest

from pipeline.ingest.formats import iperf3, ping
from pipeline.ingest.base import ParseError


def _tcp(**end) -> dict:
    side = {"seconds": 10.0, "bytes": 1_000_000, "bits_per_second": 800_000.0}
    return {"start": {"connected": [{"local_host": "10.0.0.1", "remote_host": "10.0.0.2"}],
                      "version": "iperf 3.16", "timestamp": {"timesecs": 1},
                      "test_start": {"protocol": "TCP", "num_streams": 1, "reverse": 0}},
            "intervals": [], "end": end or {"sum_sent": dict(side, retransmits=0),
                                            "sum_received": side}}


def _message(parse, path) -> str:
    with pytest.raises(ParseError) as info:
        parse(path)
    return str(info.value)


# --- iperf3 ----------------------------------------------------------------------------------

@pytest.mark.parametrize("text, line, expected, found", [
    # --json-stream: a line cut inside a string; json's own words, the cut string's opening
    # quote is the line's 23rd character
    ('{"event": "start", "data": {}}\n{"event": "interval", "da\n', 2,
     "one JSON event per line (iperf3 --json-stream)", "Unterminated string starting at at column 23"),
    # --json-stream: the tool's error event, quoted
    ('{"event": "start", "data": {}}\n{"event": "error", "data": "boom"}\n', 2,
     "a finished iperf3 test", "iperf3 error 'boom'"),
    # -J: line 1 is blank, "{" on line 2, "error" on line 3
    ('\n{\n"error": "unable to connect"\n}\n', 3,
     "a finished iperf3 test", "iperf3 error 'unable to connect'"),
    # -J cut short: json's own position
    ('{"start": {\n', 2,
     "complete JSON", "Expecting property name enclosed in double quotes at line 2 column 1"),
    # JSON without the sums: named at the top-level "end"
    ('{"start": {},\n "end": {"streams": []}}\n', 2,
     "iperf3 -J output with end.sum_sent and end.sum_received (or end.sum for UDP before 3.11)",
     "JSON without them"),
], ids=["stream-cut", "stream-error", "error-after-blank-line", "cut-json", "no-sums"])
def test_each_unreadable_iperf3_file_is_told_word_for_word(tmp_path, text, line, expected, found):
    p = tmp_path / "i.json"
    p.write_text(text)
    assert _message(iperf3.parse, p) == f"{p}:{line}: expected {expected}, found {found}"


def test_a_tcp_run_with_only_the_old_udp_sum_is_refused(tmp_path):
    # end.sum stands in for the two sums only in UDP files of iperf3 before 3.11
    p = tmp_path / "t.json"
    p.write_text(json.dumps(_tcp(sum={"seconds": 10.0, "bytes": 1, "bits_per_second": 1.0})))
    assert "expected iperf3 -J output with end.sum_sent" in _message(iperf3.parse, p)


def test_an_empty_connected_list_leaves_the_hosts_missing(tmp_path):
    doc = _tcp()
    doc["start"]["connected"] = []
    p = tmp_path / "e.json"
    p.write_text(json.dumps(doc))
    (row,) = iperf3.parse(p)
    assert (row["local_host"], row["remote_host"], row["sent_bytes"]) == (None, None, 1_000_000)


def test_a_json_stream_file_after_blank_lines_is_read_as_a_stream(tmp_path):
    doc = _tcp()
    p = tmp_path / "s.json"
    p.write_text("\n\n" + "\n".join(json.dumps({"event": k, "data": doc[k]}) for k in ("start", "end"))
                 + "\n")
    (row,) = iperf3.parse(p)
    # the end event is the 4th line (two blank lines, then start)
    assert (row["sent_bytes"], row["source_line"]) == (1_000_000, 4)


# --- ping ------------------------------------------------------------------------------------

IPUTILS = """PING 10.0.0.2 (10.0.0.2) 56(84) bytes of data.
64 bytes from 10.0.0.2: icmp_seq=1 ttl=64 time=0.100 ms

--- 10.0.0.2 ping statistics ---
{summary}
rtt min/avg/max/mdev = 0.100/0.100/0.100/0.000 ms
"""


@pytest.mark.parametrize("text, line, expected, found", [
    ("\n\n", 1, "tool output", "an empty file"),
    ("1 packets transmitted, 1 received, 0% packet loss, time 0ms\n", 1,
     "a 'PING <host>' header before the summary",
     "'1 packets transmitted, 1 received, 0% packet loss, time 0ms'"),
    ("PING 10.0.0.2 (10.0.0.2) 56(84) bytes of data." + "x" * 30 + "\n", 1,
     "ping output with an 'N packets transmitted' summary",
     repr(("PING 10.0.0.2 (10.0.0.2) 56(84) bytes of data." + "x" * 30)[:60])),
    (IPUTILS.format(summary="0 packets transmitted, 0 received, time 0ms"), 5,
     "at least one packet transmitted", "0"),
    (IPUTILS.format(summary="1 packets transmitted, 1 received, 0% packet loss, time 0ms")
     + IPUTILS.format(summary="1 packets transmitted, 1 received, 0% packet loss, time 0ms"), 11,
     "one ping run per file", "2 summaries"),
    (IPUTILS.format(summary="1 packets transmitted, 1 received, 0% packet loss, time 0ms")
     .replace("0.100/0.100/0.100/0.000 ms", "0.100/0.1"), 6,
     "a complete 'rtt min/avg/max[/mdev] = a/b/c[/d] ms' line (cut short?)",
     "'rtt min/avg/max/mdev = 0.100/0.1'"),
])
def test_each_unreadable_ping_file_is_told_word_for_word(tmp_path, text, line, expected, found):
    p = tmp_path / "p.txt"
    p.write_text(text)
    assert _message(ping.parse, p) == f"{p}:{line}: expected {expected}, found {found}"


def test_a_cut_rtt_line_shows_at_most_80_characters(tmp_path):
    p = tmp_path / "p.txt"
    long_cut = "rtt min/avg/max/mdev = " + "1" * 100
    p.write_text(IPUTILS.format(summary="1 packets transmitted, 1 received, time 0ms")
                 .replace("rtt min/avg/max/mdev = 0.100/0.100/0.100/0.000 ms", long_cut))
    assert _message(ping.parse, p).endswith(f"found {long_cut[:80]!r}")


WINDOWS = """
Pinging 10.0.0.2 with 32 bytes of data:
Reply from 10.0.0.2: bytes=32 time=5ms TTL=64
Reply from 10.0.0.9: Destination host unreachable.
Reply from 10.0.0.9: Destination host unreachable.

Ping statistics for 10.0.0.2:
    Packets: Sent = {sent}, Received = {received}, Lost = {lost} ({pct}% loss),
Approximate round trip times in milli-seconds:
    Minimum = 5ms, Maximum = 5ms, Average = 5ms
"""


def test_windows_counts_unreachable_replies_as_lost_and_keeps_the_echo_times(tmp_path):
    p = tmp_path / "w.txt"
    # ping.exe counts the two "unreachable" replies as received: 3 received of 4, 1 an echo
    p.write_text(WINDOWS.format(sent=4, received=3, lost=1, pct=25))
    (row,) = ping.parse(p)
    assert (row["packets_received"], row["unreachable_replies"], row["packet_loss_fraction"],
            row["rtt_avg_ms"]) == (1, 2, 0.75, 5.0)


def test_windows_with_no_echo_has_no_round_trip_times(tmp_path):
    p = tmp_path / "w.txt"
    # 2 received, both unreachable: no echo, so the times are not a round trip's
    p.write_text(WINDOWS.replace("Reply from 10.0.0.2: bytes=32 time=5ms TTL=64\n", "")
                 .format(sent=2, received=2, lost=0, pct=0))
    (row,) = ping.parse(p)
    assert (row["packets_received"], row["packet_loss_fraction"], row["rtt_min_ms"],
            row["rtt_avg_ms"], row["rtt_max_ms"]) == (0, 1.0, None, None, None)


def test_windows_without_its_summary_is_told_at_the_header(tmp_path):
    p = tmp_path / "w.txt"
    p.write_text("\nPinging 10.0.0.2 with 32 bytes of data:\nRequest timed out.\n")
    assert _message(ping.parse, p) == (
        f"{p}:2: expected the 'Packets: Sent = …' summary of ping.exe, found none (the run was "
        "interrupted?)")


def test_text_jc_cannot_read_is_refused_with_jcs_own_error(tmp_path):
    p = tmp_path / "p.txt"
    # a summary under a first line that is no PING header: jc's parser fails on it
    p.write_text("hello world\n1 packets transmitted, 1 received, 0% packet loss, time 0ms\n")
    message = _message(ping.parse, p)
    assert re.fullmatch(rf"{re.escape(str(p))}:1: expected ping output jc can read, found "
                        r"[A-Z]\w+Error: .+", message), message
