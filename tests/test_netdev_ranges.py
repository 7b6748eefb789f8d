"""A big capture is numbered in byte ranges, one per DuckDB thread, each read through its own
FIFO (pipeline/ingest/byte_ranges.py). Cut in ranges, every capture must give exactly what one
pass gives: the same rows with the file's line numbers, and the same error at the same line."""
import threading
from pathlib import Path

import duckdb
import pytest

from pipeline.ingest import byte_ranges, netdev
from pipeline.ingest.base import ParseError

FIXTURES = Path(__file__).parent / "fixtures" / "netdev"
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
