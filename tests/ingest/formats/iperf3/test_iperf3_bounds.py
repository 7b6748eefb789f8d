"""Values no measurement has are refused with the field and the value (pipeline/ingest/formats/iperf3.py,
``_bounded``): a rate that is not the summary's own bytes * 8 / seconds (a hostile 1e308), a
number JSON can only hold as Infinity or NaN, a duration that is not positive, a negative
count, a loss beyond 100 %. The base is a real iperf3 3.12 run (tests/corpora/iperf3/captured)."""
from __future__ import annotations

import json

import pytest

from parser_cases import assert_rejects
from paths import TESTS
from pipeline.ingest.base import ParseError
from pipeline.ingest.formats import iperf3

BASE = TESTS / "corpora" / "iperf3" / "captured"


def _run(tmp_path, source: str, change) -> object:
    doc = json.loads((BASE / source).read_text())
    change(doc["end"])
    path = tmp_path / "run.json"
    path.write_text(json.dumps(doc, indent=1))
    return path


def _set(section, key, value):
    return lambda end: end[section].__setitem__(key, value)


def test_the_base_run_is_accepted_as_it_is(tmp_path):
    (row,) = iperf3.parse(_run(tmp_path, "tcp-3.12.json", lambda end: None))
    # 49082856 bytes * 8 / 2.000184 s = 196,313,363 bit/s, iperf3's own figure
    assert row["sent_bits_per_s"] == pytest.approx(49082856 * 8 / 2.000184)


def test_a_rate_that_is_not_bytes_over_seconds_is_refused(tmp_path):
    path = _run(tmp_path, "tcp-3.12.json", _set("sum_sent", "bits_per_second", 1e308))
    # the error names the line of the top-level "end" (the line of ' "end": {' as written)
    line = path.read_text().splitlines().index(' "end": {') + 1
    # 49082856 * 8 / 2.000184 = 1.96313e+08
    assert_rejects(iperf3.parse, path, line,
                   "expected end.sum_sent.bits_per_second = bytes * 8 / seconds "
                   "(49082856 * 8 / 2.000184 = 1.96313e+08), as iperf3 computes it, found 1e+308")


def test_a_rate_within_two_percent_of_bytes_over_seconds_is_accepted(tmp_path):
    # iperf3 3.9's UDP summary: 1310720 * 8 / 10.000115 = 1048563.9, printed 1048569.7 (0.0006 %)
    computed = 49082856 * 8 / 2.000184
    (row,) = iperf3.parse(_run(tmp_path, "tcp-3.12.json",
                               _set("sum_sent", "bits_per_second", computed * 1.019)))
    assert row["sent_bits_per_s"] == pytest.approx(computed * 1.019)


@pytest.mark.parametrize("section, key, value, words", [
    ("sum_sent", "bits_per_second", float("inf"), "expected a finite end.sum_sent.bits_per_second, found inf"),
    ("sum_received", "seconds", float("nan"), "expected a finite end.sum_received.seconds, found nan"),
    ("sum_sent", "seconds", -2, "expected end.sum_sent.seconds above 0 (a test that ran), found -2"),
    ("sum_sent", "seconds", 0, "expected end.sum_sent.seconds above 0 (a test that ran), found 0"),
    ("sum_sent", "bytes", -1, "expected end.sum_sent.bytes of at least 0, found -1"),
    ("sum_sent", "retransmits", -5, "expected end.sum_sent.retransmits of at least 0, found -5"),
])
def test_an_impossible_value_is_refused_with_its_field(tmp_path, section, key, value, words):
    path = _run(tmp_path, "tcp-3.12.json", _set(section, key, value))
    with pytest.raises(ParseError) as info:
        iperf3.parse(path)
    assert words in str(info.value)


def test_a_loss_beyond_100_percent_is_refused(tmp_path):
    path = _run(tmp_path, "udp-loss-3.12.json", _set("sum_received", "lost_percent", 150.0))
    with pytest.raises(ParseError) as info:
        iperf3.parse(path)
    assert "expected end.sum_received.lost_percent from 0 to 100, found 150.0" in str(info.value)
