"""nccl-tests output parser: both column layouts, cycles, and rejected files."""
from pathlib import Path

import pytest

from pipeline.ingest.base import ParseError
from pipeline.ingest.nccl_tests import FORMAT, parse

FIX = Path(__file__).parent / "fixtures" / "nccl_tests"


def test_current_layout_rows_and_units():
    rows = parse(FIX / "good_sendrecv_current.log")
    # 4 result lines x 2 placements
    assert len(rows) == 8
    first = rows[0]
    assert first["size_bytes"] == 1048576 and first["count"] == 262144
    assert (first["type"], first["redop"], first["root"]) == ("float", "sum", -1)
    assert first["placement"] == "out-of-place" and first["layout"] == "current"
    assert first["time_s"] == pytest.approx(1000.0e-6)          # 1000.0 us
    assert first["algbw_bytes_per_s"] == pytest.approx(1.05e9)  # 1.05 GB/s, GB = 1e9
    assert first["wrong_count"] == 0 and first["max_error"] is None
    assert rows[1]["placement"] == "in-place" and rows[1]["wrong_count"] is None   # N/A
    assert rows[0]["source_line"] == 11 and rows[7]["source_line"] == 14
    for row in rows:
        assert set(FORMAT.columns) | {"source_line"} == set(row)


def test_cycles_number_repeated_sizes():
    rows = parse(FIX / "good_sendrecv_current.log")
    small = [(r["cycle"], r["placement"], r["time_s"]) for r in rows if r["size_bytes"] == 1048576]
    # the size loop is printed twice (-N 2): cycle 1 on line 11, cycle 2 on line 13
    assert small == [(1, "out-of-place", pytest.approx(1e-3)), (1, "in-place", pytest.approx(2e-3)),
                     (2, "out-of-place", pytest.approx(1.5e-3)), (2, "in-place", pytest.approx(1.1e-3))]


def test_pre_213_layout_without_root_with_error():
    rows = parse(FIX / "good_allreduce_pre213.log")
    assert len(rows) == 4
    assert all(r["layout"] == "pre-2.13" and r["root"] is None and r["wrong_count"] is None
               for r in rows)
    assert rows[0]["time_s"] == pytest.approx(12.5e-6)
    assert rows[2]["max_error"] == pytest.approx(2e-7) and rows[3]["max_error"] is None


@pytest.mark.parametrize("name, line, words", [
    ("bad_empty.log", 1, "an empty file"),
    ("bad_no_table.log", 1, "column header"),
    ("bad_truncated.log", 12, "Avg bus bandwidth"),
    ("bad_short_row.log", 12, "13 fields"),
    ("bad_time_not_number.log", 13, "a time in us"),
])
def test_bad_files_name_file_and_line(name, line, words):
    with pytest.raises(ParseError) as info:
        parse(FIX / name)
    assert info.value.line == line
    assert name in str(info.value) and words in str(info.value)


def test_unknown_header_is_rejected(tmp_path):
    bad = tmp_path / "odd.log"
    bad.write_text("#  size  count  type  redop  root  time  algbw  busbw  oops\n")
    with pytest.raises(ParseError, match="odd.log:1: expected an nccl-tests column header"):
        parse(bad)


def test_text_after_footer_is_rejected(tmp_path):
    text = (FIX / "good_sendrecv_current.log").read_text() + "     1048576   262144  float\n"
    bad = tmp_path / "tail.log"
    bad.write_text(text)
    with pytest.raises(ParseError, match="nothing after"):
        parse(bad)
