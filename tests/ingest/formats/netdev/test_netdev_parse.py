"""/proc/net/dev capture parser (DuckDB): samples x interfaces, malformed lines by number."""

import duckdb
import pandas as pd
import pytest

from pipeline.ingest.formats.netdev import COUNTERS, FORMAT, parse
from pipeline.ingest.runner import ensure_table

from parser_cases import assert_rejects
from paths import FIXTURES

FIX = FIXTURES / "netdev"
GOOD = sorted((FIX / "good").glob("*.txt"))
BAD = sorted((FIX / "bad").glob("*.txt"))

BAD_REASONS = {
    "empty.txt": (1, "an empty file"),
    "bad-timestamp.txt": (9, "found '@ 1755456000.04OO87'"),
    "no-sample-line.txt": (3, "'@ <unix seconds>' sample line before /proc/net/dev text"),
    "non-numeric-counter.txt": (13, "expected numeric counters, found '19O4733' in 'eno1: 9877592810"),
    # two header lines + nothing: the sample was expected where the file ends (line 3)
    "only-header.txt": (3, "found only '#' header lines"),
    "short-interface-line.txt": (7, "found 9 fields in 'eno1: 9876543210 7345012"),
    "stray-text.txt": (9, "found 5 fields in 'sampler: read /proc/net/dev: Interrupted"),
}

# One sample = its '@' line, two column-title lines and three interface lines, after
# a two-line header: sample k (0-based) starts on line 3 + 6k, so lo, eno1 and the
# USB adapter of sample k are on lines 6 + 6k, 7 + 6k and 8 + 6k.
FIVE = FIX / "good" / "server-5-samples.txt"
TIMES = [1755456000.020113, 1755456000.040087, 1755456000.060101, 1755456000.080095,
         1755456000.100122]


def test_fixture_sets_are_complete():
    assert [p.name for p in GOOD] == ["server-5-samples.txt", "wrap-and-reset.txt"]
    assert {p.name for p in BAD} == set(BAD_REASONS)


@pytest.mark.parametrize("path", GOOD, ids=lambda p: p.name)
def test_good_fixtures_have_every_column(path):
    frame = parse(path)
    assert isinstance(frame, pd.DataFrame) and len(frame)
    assert list(frame.columns) == [*FORMAT.columns, "source_line"]


def test_five_samples_by_hand():
    frame = parse(FIVE)
    assert len(frame) == 15  # 5 samples x 3 interfaces
    assert frame["source_line"].tolist() == [6 + 6 * k + i for k in range(5) for i in range(3)]
    assert frame["interface"].tolist() == ["lo", "eno1", "enx00e04cc2e1e5"] * 5
    for k, t in enumerate(TIMES):
        assert frame["sample_unix_s"].iloc[3 * k: 3 * k + 3].tolist() == [pytest.approx(t, abs=1e-6)] * 3

    eno1 = frame[frame["interface"] == "eno1"]
    assert eno1["source_line"].tolist() == [7, 13, 19, 25, 31]
    # rx_bytes grows by 1049600 per sample: 9876543210 + 4 * 1049600 = 9880741610
    assert eno1["rx_bytes"].tolist() == [9876543210, 9877592810, 9878642410, 9879692010, 9880741610]
    # rx_packets + 712 per sample, tx_bytes + 20480, tx_packets + 301
    assert eno1["rx_packets"].tolist() == [7345012 + 712 * k for k in range(5)]
    assert eno1["tx_bytes"].iloc[4] == 812345678 + 4 * 20480 == 812427598
    assert eno1["tx_packets"].iloc[4] == 1904432 + 4 * 301 == 1905636
    # one drop appears between the third and fourth sample
    assert eno1["rx_drop"].tolist() == [3, 3, 3, 4, 4]
    assert eno1["rx_errs"].tolist() == [0] * 5 and eno1["tx_errs"].tolist() == [0] * 5

    usb = frame[frame["interface"] == "enx00e04cc2e1e5"].iloc[0]
    # fields 1-4 and 9-12 of "1234567 8801 2 0 0 0 0 0 98765 650 0 0 0 0 0 0"
    assert [int(usb[c]) for c in COUNTERS] == [1234567, 8801, 2, 0, 98765, 650, 0, 0]


def test_wraps_and_resets_are_kept_as_data():
    frame = parse(FIX / "good" / "wrap-and-reset.txt")
    # no header: sample k starts on line 1 + 4k, its one interface on line 4 + 4k
    assert frame["source_line"].tolist() == [4, 8, 12, 16, 20]
    assert frame["rx_bytes"].tolist() == [4294960000, 4294967000, 1200, 8400, 0]


def test_out_of_order_samples_are_not_rejected(tmp_path):
    lines = FIVE.read_text().splitlines(keepends=True)
    # swap the first two samples (lines 3-8 and 9-14)
    path = tmp_path / "swapped.txt"
    path.write_text("".join(lines[:2] + lines[8:14] + lines[2:8] + lines[14:]))
    frame = parse(path)
    assert frame["sample_unix_s"].iloc[0] == pytest.approx(TIMES[1], abs=1e-6)
    assert frame["sample_unix_s"].iloc[3] == pytest.approx(TIMES[0], abs=1e-6)


def test_counters_up_to_u64_max(tmp_path):
    path = tmp_path / "big.txt"
    u64_max = 2 ** 64 - 1
    path.write_text(f"@ 1.5\n  eth0: {u64_max} 1 0 0 0 0 0 0 {u64_max} 1 0 0 0 0 0 0\n")
    frame = parse(path)
    assert int(frame["rx_bytes"].iloc[0]) == u64_max and frame["sample_unix_s"].iloc[0] == 1.5


@pytest.mark.parametrize("path", BAD, ids=lambda p: p.name)
def test_bad_fixtures_name_file_line_and_reason(path):
    line, words = BAD_REASONS[path.name]
    assert_rejects(parse, path, line, words)


ROW = "  eth0: 1 2 0 0 0 0 0 0 3 4 0 0 0 0 0 0\n"


@pytest.mark.parametrize("data, line, words", [
    (b"", 1, "an empty file"),
    (b"\n\n  \n", 1, "an empty file"),
    (b"garbage text\n", 1, "expected a /proc/net/dev line"),
    (b"@ 1.0\n" + ROW.encode() + b"# late header\n", 3, "header lines only before the first sample"),
    (b"@ 1.0\n  eth0: 1 2 3\n", 2, "found 3 fields"),
    (b"@ 1.0\n" + ROW.replace(" 3 ", " -3 ").encode(), 2, "found '-3'"),
    (b"@ 1.0\n" + ROW.replace(" 3 ", " 18446744073709551616 ").encode(), 2, "counters below 2^64"),
    (b"@ 1.0\n  : 1 2 0 0 0 0 0 0 3 4 0 0 0 0 0 0\n", 2, "expected a /proc/net/dev line"),
    (b"@ 1.0\n" + ROW.encode() + b"\xff\xfe\n", 3, "byte 0xff"),
    # a bad '@' line is named, not the good-looking lines under it (they have no sample time)
    (b"@ 1.0\n" + ROW.encode() + b"@ later\n" + ROW.encode() + b"# late\n", 3, "found '@ later'"),
    (b"@ soon\nInter-|\n face |\n" + ROW.encode(), 1, "found '@ soon'"),
])
def test_inline_bad_bytes(tmp_path, data, line, words):
    path = tmp_path / "inline.txt"
    path.write_bytes(data)
    assert_rejects(parse, path, line, words)


def test_rows_fit_the_declared_table():
    con = duckdb.connect()
    ensure_table(con, FORMAT)
    con.register("incoming", parse(FIVE))
    con.execute(f"insert into {FORMAT.table} by name select * from incoming")
    # eno1 received 9880741610 - 9876543210 = 4198400 bytes over the 4 intervals
    assert con.execute(f"select max(rx_bytes) - min(rx_bytes) from {FORMAT.table} "
                       "where interface = 'eno1'").fetchall() == [(4198400,)]
