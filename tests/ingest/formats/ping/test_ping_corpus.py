"""Real ping outputs from jc's test suite (tests/corpora/ping/README.md): each parses to jc's
own expected counts and round-trip times, and the parser's fast path (jc given the lines up to
the PING header and the statistics block) reads every file exactly as the plain path (jc on the
whole text) does, field by field. A file that only one path accepts fails."""
import json

import jc
import pytest

from paths import TESTS
from pipeline.ingest.formats import ping

CORPUS = TESTS / "corpora" / "ping"
OUTPUTS = sorted(CORPUS.rglob("*.out"))
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
