"""What ping files that cannot be ingested are told as, word for word (the user reads these
lines to fix a file), and the corners of the parser: a cut RTT line, the Windows echo count, a
Windows run without its summary, text jc cannot read."""
from __future__ import annotations

import re

import pytest

from pipeline.ingest.base import ParseError
from pipeline.ingest.formats import ping


def _message(parse, path) -> str:
    with pytest.raises(ParseError) as info:
        parse(path)
    return str(info.value)


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
