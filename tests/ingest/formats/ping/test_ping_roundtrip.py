"""Property-based round trips of ping output: runs printed from random values through the
tools' own format strings parse back to exactly those values; cut short, they give a
ParseError naming a line or the whole truth, never a crash or a wrong value.

iputils ``ping_common.c`` (``%d bytes from %s: icmp_seq=%u ttl=%d time=%.3f ms``, ``--- %s ping
statistics ---``, ``%ld packets transmitted, %ld received``, ``, +%ld errors``, ``, %g%% packet
loss, time %ldms``, ``rtt min/avg/max/mdev = %ld.%03ld/…``); busybox, BSD and Windows ping."""
from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from pipeline.ingest.base import ParseError
from pipeline.ingest.formats import ping

from parser_cases import assert_named
from roundtrip import SETTINGS

rtt = st.integers(0, 999_999)                           # microseconds, printed %ld.%03ld


@SETTINGS
@given(sent=st.integers(1, 10**6), lost=st.integers(0, 10**6), errors=st.integers(0, 50),
       times=st.lists(rtt, min_size=4, max_size=4), replies=st.integers(0, 5))
# found by this test: jc reads no "+1 errors" from a summary with no reply (errors came out 0)
@example(sent=1, lost=1, errors=1, times=[0, 0, 0, 0], replies=0)
def test_iputils_ping_parses_back_its_summary(tmp_path, sent, lost, errors, times, replies):
    received = max(sent - lost, 0)
    lo, avg, hi, mdev = sorted(times[:3]) + [times[3]]
    lines = ["PING 10.0.0.2 (10.0.0.2) 56(84) bytes of data.\n"]
    lines += [f"64 bytes from 10.0.0.2: icmp_seq={i + 1} ttl=64 time={lo / 1000:.3f} ms\n"
              for i in range(min(replies, received))]
    loss = 100.0 * (sent - received) / sent
    counts = f"{sent} packets transmitted, {received} received"
    if errors:
        counts += f", +{errors} errors"
    lines += ["\n", "--- 10.0.0.2 ping statistics ---\n",
              f"{counts}, {loss:g}% packet loss, time {sent * 1000}ms\n"]
    if received:
        ms = lambda us: f"{us // 1000}.{us % 1000:03d}"   # noqa: E731 - ping's %ld.%03ld
        lines.append(f"rtt min/avg/max/mdev = {ms(lo)}/{ms(avg)}/{ms(hi)}/{ms(mdev)} ms\n")
    path = tmp_path / "ping.txt"
    path.write_text("".join(lines))
    (row,) = ping.parse(path)
    assert (row["destination"], row["packets_transmitted"], row["packets_received"],
            row["errors"]) == ("10.0.0.2", sent, received, errors)
    assert row["packet_loss_fraction"] == (sent - received) / sent
    assert row["source_line"] == len(lines) - (1 if received else 0)
    if received:
        assert (row["rtt_min_ms"], row["rtt_avg_ms"], row["rtt_max_ms"], row["rtt_mdev_ms"]) == \
            pytest.approx((lo / 1000, avg / 1000, hi / 1000, mdev / 1000), abs=1e-9)
    else:
        assert row["rtt_min_ms"] is None and row["rtt_avg_ms"] is None


@SETTINGS
@given(st.integers(1, 300))
def test_ping_cut_short_is_an_error_never_a_crash(tmp_path, where):
    text = ("PING 10.0.0.2 (10.0.0.2) 56(84) bytes of data.\n"
            "64 bytes from 10.0.0.2: icmp_seq=1 ttl=64 time=0.250 ms\n\n"
            "--- 10.0.0.2 ping statistics ---\n"
            "1 packets transmitted, 1 received, 0% packet loss, time 0ms\n"
            "rtt min/avg/max/mdev = 0.250/0.250/0.250/0.000 ms\n")
    path = tmp_path / "ping.txt"
    path.write_text(text[: where % (len(text) + 1)])
    try:
        (row,) = ping.parse(path)
    except ParseError as exc:
        assert_named(exc, path)
        return
    # whatever parses is the truth: the summary line is complete, so are its counts
    assert (row["packets_transmitted"], row["packets_received"]) == (1, 1)


@st.composite
def other_pings(draw):
    """(tool, text, the row it must parse to)."""
    tool = draw(st.sampled_from(["busybox", "bsd", "windows"]))
    sent = draw(st.integers(1, 10**5))
    received = draw(st.integers(0, sent))
    ip = f"10.{draw(st.integers(0, 255))}.{draw(st.integers(0, 255))}.{draw(st.integers(1, 254))}"
    times = sorted(draw(st.lists(st.integers(0, 999_999), min_size=3, max_size=3)))
    lo, avg, hi = times[0], times[1], times[2]
    row = dict.fromkeys(ping.FORMAT.columns)
    row.update(destination=ip, packets_transmitted=sent, packets_received=received,
               packet_loss_fraction=(sent - received) / sent)
    if tool == "windows":
        unreachable = draw(st.integers(0, sent - received))      # counted as received by ping.exe
        lo, avg, hi = (t // 1000 for t in (lo, avg, hi))           # whole ms
        lines = [f"Pinging {ip} with 32 bytes of data:", *[f"Reply from {ip}: bytes=32 time={lo}ms TTL=64"
                                                              for _ in range(min(received, 3))],
                 *["Reply from 10.0.0.1: Destination host unreachable." for _ in range(unreachable)],
                 "", f"Ping statistics for {ip}:"]
        shown = received + unreachable
        lines.append(f"    Packets: Sent = {sent}, Received = {shown}, Lost = {sent - shown} "
                     f"({100 * (sent - shown) // sent}% loss),")
        row.update(unreachable_replies=unreachable, source_line=len(lines))
        if shown:
            lines += ["Approximate round trip times in milli-seconds:",
                      f"    Minimum = {lo}ms, Maximum = {hi}ms, Average = {avg}ms"]
        if received:
            row.update(rtt_min_ms=float(lo), rtt_avg_ms=float(avg), rtt_max_ms=float(hi))
        return tool, "\r\n".join(lines) + "\r\n", row
    ms = lambda us: f"{us // 1000}.{us % 1000:03d}"   # noqa: E731 - %u.%03u and %.3f print alike
    lines = [f"PING {ip} ({ip}): 56 data bytes",
             *[f"64 bytes from {ip}: {'seq' if tool == 'busybox' else 'icmp_seq'}={i} ttl=64 time={ms(lo)} ms"
               for i in range(min(received, 3))], "", f"--- {ip} ping statistics ---"]
    loss = 100 * (sent - received) // sent if tool == "busybox" else 100 * (sent - received) / sent
    lines.append(f"{sent} packets transmitted, {received} packets received, "
                 + (f"{loss}% packet loss" if tool == "busybox" else f"{loss:.1f}% packet loss"))
    row["source_line"] = len(lines)
    if received:
        if tool == "busybox":
            lines.append(f"round-trip min/avg/max = {ms(lo)}/{ms(avg)}/{ms(hi)} ms")
        else:
            dev = draw(st.integers(0, 999_999))
            lines.append(f"round-trip min/avg/max/stddev = {ms(lo)}/{ms(avg)}/{ms(hi)}/{ms(dev)} ms")
            row["rtt_stddev_ms"] = pytest.approx(dev / 1000, abs=1e-9)
        row.update(rtt_min_ms=pytest.approx(lo / 1000, abs=1e-9), rtt_avg_ms=pytest.approx(avg / 1000, abs=1e-9),
                   rtt_max_ms=pytest.approx(hi / 1000, abs=1e-9))
    return tool, "\n".join(lines) + "\n", row


@SETTINGS
@given(other_pings())
def test_busybox_bsd_and_windows_ping_parse_back(tmp_path, case):
    _, text, expected = case
    path = tmp_path / "ping.txt"
    path.write_bytes(text.encode())
    assert ping.parse(path) == [expected]


@SETTINGS
@given(other_pings(), st.integers(0, 10**9))
def test_any_ping_cut_short_is_an_error_or_the_whole_truth(tmp_path, case, where):
    # found by this test: an rtt line cut inside its numbers ("= 0.250/0.25") was read as a
    # smaller maximum; Windows' "Minimum = …" line cut short lost the rtt without a word
    _, text, expected = case
    data = text.encode()
    cut = data[: where % len(data)]
    path = tmp_path / "ping.txt"
    path.write_bytes(cut)
    try:
        (row,) = ping.parse(path)
    except ParseError as exc:
        assert_named(exc, path)
        assert 1 <= exc.line <= cut.count(b"\n") + 1
        return
    # what parsed has its counts and every rtt it read right (a cut summary may leave rtt out)
    for key in ("destination", "packets_transmitted", "packets_received", "source_line"):
        assert row[key] == expected[key]
    for key in ("rtt_min_ms", "rtt_avg_ms", "rtt_max_ms", "rtt_stddev_ms"):
        assert row[key] is None or row[key] == expected[key]
