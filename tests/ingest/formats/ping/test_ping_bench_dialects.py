"""The benchmark's ping runs (bench/generate.py: iputils, iputils -D -O, BSD) parse to what their
own statistics say, and jc on the whole text reads the same: the million-line runs of
`make bench` are these files, longer, so the bench's speed is the speed of a right parse."""
from __future__ import annotations

import jc
import pytest

from bench import generate
from pipeline.ingest.formats import ping


@pytest.mark.parametrize("dialect", generate.PING_DIALECTS)
def test_a_bench_run_parses_to_its_statistics_and_as_jc_reads_it(dialect, tmp_path):
    path = tmp_path / "run.txt"
    want = generate.ping_run(path, 206, dialect=dialect)
    # 206 lines - 6 = 200 probes; with -D -O every 10th unanswered: 180 received
    assert want["packets_transmitted"] == 200
    assert want["packets_received"] == (180 if dialect == "iputils -D -O" else 200)
    (row,) = ping.parse(path)
    assert {k: row[k] for k in want} == want
    plain = jc.parse("ping", path.read_text(), quiet=True)
    assert (plain["packets_transmitted"], plain["packets_received"], plain["round_trip_ms_min"],
            plain["round_trip_ms_avg"], plain["round_trip_ms_max"]) == tuple(want.values())
