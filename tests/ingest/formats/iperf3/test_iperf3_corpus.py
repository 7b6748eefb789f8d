"""Real iperf3 -J outputs of four versions (3.0.11, 3.7, 3.9, 3.12) from two other projects' suites and
captured here (tests/corpora/iperf3/README.md): each parses to the summary read by hand from its
end.sum_sent / end.sum_received (UDP before 3.11: end.sum), or is refused for the reason
listed. iperf3's output is read whole by json, one path: there is no fast path to compare."""
from __future__ import annotations

import json

import pytest

from parser_cases import assert_rejects
from paths import TESTS
from pipeline.ingest.formats import iperf3

CORPUS = TESTS / "corpora" / "iperf3"
OUTPUTS = sorted(p for p in CORPUS.rglob("*.json") if p.name != "expected.json")
EXPECTED = json.loads((CORPUS / "expected.json").read_text())
# file -> (line the refusal names, words it says); README, "Refused"
REFUSED = {
    "captured/refused-3.12.json": (10, "iperf3 error 'unable to connect to server: Connection refused'"),
    "captured/tcp-bidir-3.12.json": (139, "a --bidir test (end.sum_sent_bidir_reverse)"),
    "openwisp-monitoring/fail.json": (10, "'error - unable to connect to server: Connection refused'"),
    "openwisp-monitoring/auth_fail.json": (20, "'error - test authorization failed'"),
}


def _name(path) -> str:
    return str(path.relative_to(CORPUS))


def test_every_output_has_expected_values_or_a_listed_refusal():
    # 11 outputs: captured 6, iperf3-python 1, openwisp-monitoring 4
    assert len(OUTPUTS) == 11
    assert sorted(map(_name, OUTPUTS)) == sorted([*EXPECTED, *REFUSED])


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_output_parses_to_its_summary_read_by_hand(name):
    (row,) = iperf3.parse(CORPUS / name)
    assert {k: row[k] for k in EXPECTED[name]} == EXPECTED[name]


def test_iperf3_pythons_suite_expects_these_rates():
    # iperf3-python tests/test_iperf3.py: sent_bps == 935992000, received_bps == 934268000
    (row,) = iperf3.parse(CORPUS / "iperf3-python" / "results.json")
    assert (row["sent_bits_per_s"], row["received_bits_per_s"]) == (935992000, 934268000)


def test_three_streams_sum_to_the_summary():
    # the three streams' sender bytes in the file: 17682976 + 15716592 + 17932032 = 51331600
    (row,) = iperf3.parse(CORPUS / "captured" / "tcp-3streams-3.12.json")
    assert row["sent_bytes"] == 17682976 + 15716592 + 17932032


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_a_refused_output_names_its_line_and_reason(name):
    assert_rejects(iperf3.parse, CORPUS / name, *REFUSED[name])
