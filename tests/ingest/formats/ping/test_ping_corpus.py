"""Real ping outputs from jc's and pingparsing's test suites (tests/corpora/ping/README.md): each
parses to its suite's expected counts and round-trip times, and the parser's fast path (jc given
the lines up to the PING header and the statistics block) reads every file exactly as the plain
path (jc on the whole text) does, field by field. A file that only one path accepts fails; the
Windows outputs, which jc does not read at all, are read by the parser's own Windows path."""
import json

import jc
import pytest

from paths import TESTS
from pipeline.ingest.formats import ping

CORPUS = TESTS / "corpora" / "ping"
OUTPUTS = sorted((CORPUS / "jc").rglob("*.out"))
PINGPARSING = sorted((CORPUS / "pingparsing").glob("*.out"))
# pingparsing expects no round trip for this macOS output, whose last line holds one
# ("round-trip min/avg/max/stddev = 0.311/1.091/2.186/0.662 ms", after a blank line): README
PINGPARSING_MISREADS = {"macos_duplicate_0.out": (0.311, 1.091, 2.186, 0.662)}
# "Pinging google.com [216.58.196.238] …": pingparsing names the address of "Ping statistics for
# 216.58.196.238:", the parser the name pinged, as it does for every other dialect (README)
PINGPARSING_DESTINATIONS = {"windows7sp1_success.out": "google.com"}
COUNTS_AND_TIMES = ("packets_transmitted", "packets_received", "round_trip_ms_min",
                    "round_trip_ms_avg", "round_trip_ms_max", "round_trip_ms_stddev")


def _ours(row: dict) -> dict:
    deviation = row["rtt_mdev_ms"] if row["rtt_mdev_ms"] is not None else row["rtt_stddev_ms"]
    return {"destination": row["destination"],
            "packets_transmitted": row["packets_transmitted"],
            "packets_received": row["packets_received"], "round_trip_ms_min": row["rtt_min_ms"],
            "round_trip_ms_avg": row["rtt_avg_ms"], "round_trip_ms_max": row["rtt_max_ms"],
            "round_trip_ms_stddev": deviation}


def _jcs(d: dict) -> dict:
    # a header without a host name ("PING  (10.0.0.2)"): the parser names the address
    return {"destination": d.get("destination") or d.get("destination_ip"),
            **{k: d.get(k) for k in COUNTS_AND_TIMES}}


def test_the_corpus_holds_every_jc_ping_fixture():
    # 72 outputs over 8 OS folders (README); each with the values jc's suite expects
    assert len(OUTPUTS) == 72
    assert all(out.with_suffix(".json").is_file() for out in OUTPUTS)


@pytest.mark.parametrize("out", OUTPUTS, ids=lambda p: str(p.relative_to(CORPUS)))
def test_each_output_parses_to_jcs_expected_counts_and_times(out):
    expected = json.loads(out.with_suffix(".json").read_text())
    (row,) = ping.parse(out)
    assert _ours(row) == _jcs(expected)


@pytest.mark.parametrize("out", OUTPUTS, ids=lambda p: str(p.relative_to(CORPUS)))
def test_the_fast_path_reads_what_jc_reads_on_the_whole_text(out):
    plain = jc.parse("ping", out.read_text(), quiet=True)
    (row,) = ping.parse(out)
    assert _ours(row) == _jcs(plain)


def _theirs(out) -> dict:
    e = json.loads(out.with_suffix(".json").read_text())
    times = PINGPARSING_MISREADS.get(out.name) or tuple(e.get(k) for k in ("rtt_min", "rtt_avg",
                                                                         "rtt_max", "rtt_mdev"))
    return {"destination": PINGPARSING_DESTINATIONS.get(out.name, e["destination"]),
            "packets_transmitted": e["packet_transmit"],
            "packets_received": e["packet_receive"],
            **dict(zip(COUNTS_AND_TIMES[2:], (None if t is None else float(t) for t in times)))}


def test_the_corpus_holds_pingparsings_21_outputs():
    # iputils (Debian, Ubuntu, Fedora, Alpine/BusyBox, IPv6, -D -O), macOS, Windows 7 and 10
    assert len(PINGPARSING) == 21
    assert all(out.with_suffix(".json").is_file() for out in PINGPARSING)


@pytest.mark.parametrize("out", PINGPARSING, ids=lambda p: p.name)
def test_each_pingparsing_output_parses_to_its_suites_counts_and_times(out):
    (row,) = ping.parse(out)
    assert _ours(row) == _theirs(out)


@pytest.mark.parametrize("out", PINGPARSING, ids=lambda p: p.name)
def test_a_pingparsing_output_reads_as_jc_reads_it_or_jc_reads_nothing(out):
    plain = jc.parse("ping", out.read_text(), quiet=True)
    (row,) = ping.parse(out)
    if out.name.startswith("windows"):
        assert plain.get("packets_transmitted") is None      # jc has no Windows dialect
    else:
        assert _ours(row) == _jcs(plain)
