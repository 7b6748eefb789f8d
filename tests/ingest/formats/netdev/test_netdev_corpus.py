"""Real /proc/net/dev snapshots from three other projects' test suites (tests/corpora/netdev/README.md),
each made a one-sample capture (a header line and '@ 1', then the snapshot unedited): each parses,
in DuckDB, to the counters its project's suite expects, and agrees field by field with jc's
proc_net_dev parser on the snapshot's whole text, except where the README shows jc wrong.
A snapshot the parser refuses is listed below and in the README with the reason."""
from __future__ import annotations

import json

import jc
import pytest

from paths import TESTS
from pipeline.ingest.base import ParseError
from pipeline.ingest.formats import netdev

CORPUS = TESTS / "corpora" / "netdev"
SNAPSHOTS = sorted(CORPUS.rglob("*.out"))
# jc's names (its proc_net_dev rows) for the counters the parser keeps
JC_NAMES = {"rx_bytes": "r_bytes", "rx_packets": "r_packets", "rx_errs": "r_errs",
            "rx_drop": "r_drop", "tx_bytes": "t_bytes", "tx_packets": "t_packets",
            "tx_errs": "t_errs", "tx_drop": "t_drop"}
# Refused, with the words the refusal names (README, "Refused")
REFUSED = {"node_exporter/net_dev-2018.out": (10, "the name 'ibr10:30'")}
# jc splits on blanks, so "eth0:68210035552" (an older kernel's "%6s:%8lu" leaves no blank once a
# counter passes 8 digits) is one field to it and the counters move a column; node_exporter's
# suite expects 68210035552 (README, "jc")
JC_MISREADS = {("node_exporter/net_dev-2015.out", "eth0")}


def _name(path) -> str:
    return str(path.relative_to(CORPUS))


def _capture(snapshot, tmp_path):
    capture = tmp_path / "one-sample.netdev"
    capture.write_bytes(b"# procnetdev-capture v1\n@ 1\n" + snapshot.read_bytes())
    return capture


def _ours(snapshot, tmp_path) -> list[dict]:
    frame = netdev.parse(_capture(snapshot, tmp_path))
    assert set(frame["sample_unix_s"]) == {1.0}
    return [{"interface": r["interface"], **{c: int(r[c]) for c in netdev.COUNTERS}}
            for r in frame.to_dict("records")]


def _as_ours(rows: list[dict]) -> list[dict]:
    return [{"interface": r["interface"], **{c: r[j] for c, j in JC_NAMES.items()}} for r in rows]


def test_every_snapshot_has_expected_values_or_a_listed_refusal():
    # 5 snapshots: jc 1, procfs 2, node_exporter 2 (one refused)
    assert len(SNAPSHOTS) == 5
    for snapshot in SNAPSHOTS:
        assert snapshot.with_suffix(".json").is_file() != (_name(snapshot) in REFUSED), snapshot


@pytest.mark.parametrize("snapshot", [s for s in SNAPSHOTS if _name(s) not in REFUSED], ids=_name)
def test_each_snapshot_parses_to_its_suites_expected_counters(snapshot, tmp_path):
    expected = _as_ours(json.loads(snapshot.with_suffix(".json").read_text()))
    assert _ours(snapshot, tmp_path) == expected


@pytest.mark.parametrize("snapshot", [s for s in SNAPSHOTS if _name(s) not in REFUSED], ids=_name)
def test_the_duckdb_parse_reads_what_jc_reads_on_the_whole_text(snapshot, tmp_path):
    ours = _ours(snapshot, tmp_path)
    peer = _as_ours(jc.parse("proc_net_dev", snapshot.read_text(), quiet=True))
    assert len(ours) == len(peer)
    for mine, theirs in zip(ours, peer):
        if (_name(snapshot), mine["interface"]) in JC_MISREADS:
            assert mine != theirs               # the listed misread is still jc's
        else:
            assert mine == theirs


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_a_refused_snapshot_is_refused_at_its_line_for_its_reason(name, tmp_path):
    line, words = REFUSED[name]
    with pytest.raises(ParseError) as info:
        netdev.parse(_capture(CORPUS / name, tmp_path))
    assert info.value.line == line + 2          # the capture's two lines before the snapshot
    assert words in str(info.value) and "dev_valid_name" in str(info.value)
    # jc accepts the file whole: the refusal is the parser's, by the kernel's rule
    assert "ibr10:30" in {r["interface"] for r in jc.parse("proc_net_dev",
                                                           (CORPUS / name).read_text(), quiet=True)}
