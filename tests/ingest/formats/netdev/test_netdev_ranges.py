"""A big capture is numbered in byte ranges, one per DuckDB thread, each read through its own
FIFO (pipeline/ingest/byte_ranges.py). Cut in ranges, every capture must give exactly what one
pass gives: the same rows with the file's line numbers, and the same error at the same line."""
import threading
from pathlib import Path

import duckdb
import pytest

from pipeline.ingest import byte_ranges
from pipeline.ingest.base import ParseError
from pipeline.ingest.formats import netdev

from paths import FIXTURES

FIXTURES = FIXTURES / "netdev"
ALL = sorted((FIXTURES / "good").iterdir()) + sorted((FIXTURES / "bad").iterdir())
ROW = "  eth0: {rx} 2 0 0 0 0 0 0 {tx} 4 0 0 0 0 0 0\n"


def _capture(samples: int, extra: dict[int, str] | None = None) -> str:
    """A header line, then per sample k an '@' line and one eth0 line; ``extra[k]`` is
    written after sample k's eth0 line."""
    text = "# procnetdev-capture v1\n"
    for k in range(samples):
        text += f"@ {100 + k}.5\n" + ROW.format(rx=1000 * k, tx=10 * k) + (extra or {}).get(k, "")
    return text


def _in_ranges(path: Path, monkeypatch, threads: int = 4):
    """Parse ``path`` cut into up to ``threads`` ranges, and tell how many it was cut into."""
    monkeypatch.setattr(netdev, "RANGE_BYTES", 1)
    cuts = []
    real_cut = byte_ranges.cut
    monkeypatch.setattr(byte_ranges, "cut", lambda *a: cuts.append(real_cut(*a)) or cuts[-1])
    con = duckdb.connect()
    con.execute(f"set threads = {threads}")
    try:
        return netdev.parse(path, con), len(cuts[0]) if cuts else 1
    finally:
        con.close()


def _outcome(parse):
    try:
        return ("rows", parse().to_dict("records"))
    except ParseError as exc:
        return ("error", exc.line, str(exc))


@pytest.mark.parametrize("path", ALL, ids=lambda p: f"{p.parent.name}_{p.stem}")
def test_every_fixture_parses_the_same_in_ranges(path, monkeypatch):
    whole = _outcome(lambda: netdev.parse(path))
    monkeypatch.setattr(netdev, "RANGE_BYTES", 1)
    con = duckdb.connect()
    con.execute("set threads = 3")
    try:
        ranged = _outcome(lambda: netdev.parse(path, con))
    finally:
        con.close()
    assert ranged == whole


def test_rows_of_a_capture_cut_in_four_carry_the_files_line_numbers(tmp_path, monkeypatch):
    path = tmp_path / "c.netdev"
    path.write_text(_capture(40))
    frame, parts = _in_ranges(path, monkeypatch)
    assert parts == 4
    # line 1 is the header; sample k's '@' is line 2 + 2k and its eth0 line is 3 + 2k
    assert frame["source_line"].tolist() == [3 + 2 * k for k in range(40)]
    assert frame["sample_unix_s"].tolist() == [100.5 + k for k in range(40)]
    assert frame["rx_bytes"].tolist() == [1000 * k for k in range(40)]
    assert frame["tx_bytes"].tolist() == [10 * k for k in range(40)]


def test_a_bad_line_in_the_last_range_is_named_by_its_line_in_the_file(tmp_path, monkeypatch):
    path = tmp_path / "c.netdev"
    # after sample 37's eth0 (line 3 + 2·37 = 77) comes the bad line: line 78
    path.write_text(_capture(40, {37: "  eth1: 1 2 3\n"}))
    with pytest.raises(ParseError) as exc:
        _in_ranges(path, monkeypatch)
    assert exc.value.line == 78
    assert "3 fields" in str(exc.value)


def test_a_stray_line_in_a_middle_range_is_named_by_its_line_in_the_file(tmp_path, monkeypatch):
    path = tmp_path / "c.netdev"
    path.write_text(_capture(40, {20: "garbage\n"}))  # after line 3 + 2·20 = 43: line 44
    with pytest.raises(ParseError) as exc:
        _in_ranges(path, monkeypatch)
    assert exc.value.line == 44


def test_an_undecodable_byte_in_a_later_range_is_named_by_its_line(tmp_path, monkeypatch):
    path = tmp_path / "c.netdev"
    extra = {30: "  ethZ: 1 2 0 0 0 0 0 0 1 2 0 0 0 0 0 0\n"}   # after line 3 + 2·30: line 64
    path.write_bytes(_capture(40, extra).encode().replace(b"ethZ", b"eth\xff"))
    with pytest.raises(ParseError) as exc:
        _in_ranges(path, monkeypatch)
    assert exc.value.line == 64
    assert "0xff" in str(exc.value)


def test_the_ranges_cover_the_file_and_start_on_sample_lines(tmp_path):
    path = tmp_path / "c.netdev"
    text = _capture(100)
    path.write_text(text)
    data = path.read_bytes()
    ranges = byte_ranges.cut(path, 5, b"@")
    assert len(ranges) == 5
    assert ranges[0][0] == 0 and ranges[-1][1] == len(data)
    assert all(a[1] == b[0] for a, b in zip(ranges, ranges[1:]))
    assert all(data[a:a + 2] == b"@ " for a, _ in ranges[1:])


def test_a_file_without_sample_lines_after_the_cut_point_is_one_range(tmp_path):
    path = tmp_path / "c.netdev"
    path.write_text("@ 1\n" + "x" * 1000 + "\n")
    assert byte_ranges.cut(path, 4, b"@") == [(0, 4 + 1000 + 1)]


def test_a_feeder_serves_its_range_and_its_lines_are_counted(tmp_path):
    src = tmp_path / "src"
    src.write_bytes(b"a\nbb\nccc\ndddd\n")
    feeder = byte_ranges.Feeder(src, 2, 9, tmp_path, "f")   # bytes of "bb\nccc\n"
    with open(feeder.fifo, "rb") as fh:
        served = fh.read()
    assert served == b"bb\nccc\n"
    assert feeder.join() == 7                      # bytes served
    assert byte_ranges.count_lines(src, 2, 9) == 2


def test_a_feeder_nobody_reads_is_released(tmp_path):
    src = tmp_path / "src"
    src.write_bytes(b"x\n" * (1 << 20))           # more than a pipe holds
    feeder = byte_ranges.Feeder(src, 0, 2 << 20, tmp_path, "f")
    feeder.release()
    done = threading.Event()
    threading.Thread(target=lambda: (feeder.join(), done.set()), daemon=True).start()
    assert done.wait(10), "the feeder still waits for a reader"
    assert feeder.served < 2 << 20               # it stopped: nobody took the rest


def test_a_line_duckdb_cannot_read_in_a_later_range_is_named_by_its_line(tmp_path, monkeypatch):
    path = tmp_path / "c.netdev"
    # the reader's field separator inside a line, after line 3 + 2·33 = 69: line 70
    path.write_text(_capture(40, {33: "  eth0\x01\x02\x03\x04: 1\n"}))
    whole = _outcome(lambda: netdev.parse(path))
    with pytest.raises(ParseError) as exc:
        _in_ranges(path, monkeypatch)
    assert exc.value.line == 70
    assert ("error", exc.value.line, str(exc.value)) == whole


# --- cut and count_lines on exact byte layouts ---------------------------------------------

def test_cut_points_worked_by_hand(tmp_path):
    path = tmp_path / "c"
    path.write_bytes(b"@ 1\nx\n@ 2\ny\n@ 3\nz\n")            # three 6-byte records, 18 bytes
    # 3 parts: nominal cuts at 6 and 12, each searched from the byte before it for "\n@"
    assert byte_ranges.cut(path, 3, b"@") == [(0, 6), (6, 12), (12, 18)]
    # 2 parts: the cut at 9 is inside the second record: the next "@" line starts at 12
    assert byte_ranges.cut(path, 2, b"@") == [(0, 12), (12, 18)]
    # more parts than records: the cuts that find no later "@" line are dropped
    assert byte_ranges.cut(path, 6, b"@") == [(0, 6), (6, 12), (12, 18)]
    assert byte_ranges.cut(path, 1, b"@") == [(0, 18)]


def test_a_marker_found_across_the_search_windows_edge(tmp_path):
    # 200,000 bytes, 2 parts: the search starts at 200000 // 2 - 1 = 99,999 and reads 65,536
    # bytes plus the needle's 2, so "\n@" at 99,999 + 65,535 (its "@" in the overlap) is found
    # by the first window; a window without the overlap would split the needle and miss it
    size, start = 200_000, 99_999 + 65_535
    data = b"@ 1\n" + b"x" * (start - 4) + b"\n@ 2\n"
    data += b"y" * (size - len(data) - 1) + b"\n"
    path = tmp_path / "c"
    path.write_bytes(data)
    assert len(data) == size and data[start:start + 2] == b"\n@"
    assert byte_ranges.cut(path, 2, b"@") == [(0, start + 1), (start + 1, size)]


def test_a_marker_several_windows_after_the_cut(tmp_path):
    data = b"@ 1\n" + b"x" * 300_000 + b"\n@ 2\nq\n"               # the "@" at 300,005
    path = tmp_path / "c"
    path.write_bytes(data)
    assert byte_ranges.cut(path, 2, b"@") == [(0, 300_005), (300_005, len(data))]


def test_count_lines_across_read_blocks(tmp_path):
    n = 1_500_000                                                  # 3 MB: three 1 MiB blocks
    path = tmp_path / "c"
    path.write_bytes(b"a\n" * n)
    # newlines at the odd offsets 1, 3, …, 2n - 1
    assert byte_ranges.count_lines(path, 0, 2 * n) == n
    assert byte_ranges.count_lines(path, 1, 2 * n - 1) == n - 1      # [1, 2n - 1): 1 … 2n - 3
    assert byte_ranges.count_lines(path, 2, 2) == 0
    assert byte_ranges.count_lines(path, 0, 2 * n + 100) == n        # past the end: stops
