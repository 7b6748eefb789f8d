"""Property-based round trips of iperf3 JSON: documents printed from random values the way
iperf3 prints them parse back to exactly those values; cut short, or given undecodable bytes,
they give a ParseError naming a line, never a crash or a wrong value.

iperf3 (esnet/iperf src/iperf_api.c, cJSON): ``start`` {connected[{local_host, remote_host}],
version, timestamp.timesecs, test_start{protocol, num_streams, reverse}}, ``intervals`` (whose
``sum`` objects carry numeric ``end`` keys), ``end`` {sum_sent, sum_received, cpu_utilization_percent};
UDP since 3.11 puts jitter_ms/lost_packets/packets/lost_percent in both sums, before 3.11 only
``end.sum`` exists; ``--json-stream`` prints ``{"event": …, "data": …}`` per line. cJSON indents with
tabs and writes ``"key":<tab>value``."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pipeline.ingest.base import ParseError
from pipeline.ingest.formats import iperf3

from parser_cases import assert_named
from roundtrip import SETTINGS

host = st.from_regex(r"\A(10|192)\.\d{1,3}\.\d{1,3}\.\d{1,3}\Z")


seconds = st.floats(0.001, 1e5, allow_nan=False)



@st.composite
def iperf3_runs(draw):
    """(the values the tool measured, how it printed them)."""
    protocol = draw(st.sampled_from(["TCP", "UDP"]))
    era = draw(st.sampled_from(["json", "stream"] + (["pre-3.11"] if protocol == "UDP" else [])))
    v = {
        "version": draw(st.sampled_from(["iperf 3.9", "iperf 3.12", "iperf 3.17.1"])),
        "start_unix_s": draw(st.integers(0, 2**31)), "local_host": draw(host),
        "remote_host": draw(host), "protocol": protocol, "num_streams": draw(st.integers(1, 128)),
        "reverse": draw(st.booleans()), "duration_s": draw(seconds),
        "sent_bytes": draw(st.integers(0, 2**62)), "received_bytes": draw(st.integers(0, 2**62)),
        "retransmits": draw(st.integers(0, 10**9)) if protocol == "TCP" else None,
        "cpu_host_pct": draw(st.floats(0, 100)), "cpu_remote_pct": draw(st.floats(0, 100)),
    }
    # iperf3's own rate: bytes * 8 / seconds (iperf_api.c), to a drawn relative error within the
    # parser's tolerance
    for side in ("sent", "received"):
        v[f"{side}_bits_per_s"] = (v[f"{side}_bytes"] * 8 / v["duration_s"]
                                   * (1 + draw(st.floats(-0.01, 0.01))))
    udp = {"jitter_ms": draw(st.floats(0, 1e3)), "lost_packets": draw(st.integers(0, 10**9)),
           "packets": draw(st.integers(0, 10**9)), "lost_percent": draw(st.floats(0, 100))}
    sent = {"start": 0, "end": v["duration_s"], "seconds": v["duration_s"], "bytes": v["sent_bytes"],
            "bits_per_second": v["sent_bits_per_s"], "sender": True}
    if protocol == "TCP":
        sent["retransmits"] = v["retransmits"]
    received = {"start": 0, "end": v["duration_s"], "seconds": v["duration_s"],
                "bytes": v["received_bytes"], "bits_per_second": v["received_bits_per_s"],
                "sender": False}
    if protocol == "UDP":
        v.update(udp)
        if era == "pre-3.11":            # one "sum": the sender's bytes, the receiver's loss
            v.update(received_bytes=None, received_bits_per_s=None)
            end = {"sum": {**sent, **udp}}
        else:
            end = {"sum_sent": {**sent, **udp}, "sum_received": {**received, **udp}}
    else:
        end = {"sum_sent": sent, "sum_received": received}
    end["cpu_utilization_percent"] = {"host_total": v["cpu_host_pct"],
                                      "remote_total": v["cpu_remote_pct"]}
    start = {"connected": [{"socket": 5, "local_host": v["local_host"], "local_port": 40000,
                            "remote_host": v["remote_host"], "remote_port": 5201}],
             "version": v["version"], "timestamp": {"timesecs": v["start_unix_s"]},
             "test_start": {"protocol": protocol, "num_streams": v["num_streams"],
                            "reverse": int(v["reverse"])}}
    intervals = [{"streams": [], "sum": {"start": i, "end": i + 1.0, "bytes": 1}}
                 for i in range(draw(st.integers(0, 3)))]
    if era == "stream":
        events = [("start", start)] + [("interval", i) for i in intervals] + [("end", end)]
        lines = [json.dumps({"event": kind, "data": data}) for kind, data in events]
        text, end_line = "\n".join(lines) + "\n", len(lines)
    else:
        text = json.dumps({"start": start, "intervals": intervals, "end": end},
                          indent="\t", separators=(",", ":\t")) + "\n"
        end_line = text.split("\n").index('\t"end":\t{') + 1
    return v, text, end_line


def _write(tmp_path: Path, data, name="run.json") -> Path:
    path = tmp_path / name
    path.write_bytes(data if isinstance(data, bytes) else data.encode())
    return path


@SETTINGS
@given(iperf3_runs())
def test_iperf3_parses_back_what_it_printed(tmp_path, run):
    values, text, end_line = run
    (row,) = iperf3.parse(_write(tmp_path, text))
    expected = {**dict.fromkeys(iperf3.FORMAT.columns), **values, "source_line": end_line}
    assert row == expected


@SETTINGS
@given(iperf3_runs(), st.integers(0, 10**9))
def test_iperf3_cut_short_is_an_error_naming_a_line(tmp_path, run, where):
    values, text, end_line = run
    data = text.encode()
    cut = data[: where % len(data)]
    if not cut.strip(b"\n") or cut.rstrip(b"\n") == data.rstrip(b"\n"):
        return                                    # nothing cut but the last newline
    with pytest.raises(ParseError) as info:
        iperf3.parse(_write(tmp_path, cut))
    assert_named(info.value, tmp_path / "run.json")
    assert info.value.line is not None and 1 <= info.value.line <= cut.count(b"\n") + 1


@SETTINGS
@given(iperf3_runs(), st.sampled_from([b"\xff", b"\xc3", b"\x80abc", b"\xed\xa0\x80"]), st.integers(0, 10**6))
def test_iperf3_undecodable_bytes_name_their_line(tmp_path, run, junk, at):
    _, text, _ = run
    lines = text.encode().splitlines(keepends=True)
    at = 1 + at % len(lines)
    lines[at - 1] = junk + lines[at - 1]
    with pytest.raises(ParseError) as info:
        iperf3.parse(_write(tmp_path, b"".join(lines)))
    assert_named(info.value, tmp_path / "run.json")
    assert info.value.line == at and "UTF-8" in str(info.value)
