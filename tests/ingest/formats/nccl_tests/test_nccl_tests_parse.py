"""nccl-tests output parser: both column layouts, cycles, and rejected files."""

import pytest

from pipeline.ingest.base import ParseError
from pipeline.ingest.formats.nccl_tests import FORMAT, parse

from paths import FIXTURES

FIX = FIXTURES / "nccl_tests"


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


def test_v211_sendrecv_has_neither_redop_nor_root():
    # nccl-tests <= 2.11, src/sendrecv.cu print_header: "size count type" then time algbw
    # busbw error twice; maxDelta printed %5.0le
    (oop, inp) = parse(FIX / "good_sendrecv_v211.log")
    assert (oop["redop"], oop["root"], oop["layout"]) == (None, None, "pre-2.13")
    assert oop["time_s"] == pytest.approx(62000e-6) and inp["time_s"] == pytest.approx(61000e-6)
    # busbw 1.08 GB/s = 1.08e9 bytes/s (the column nobody asserted before)
    assert oop["busbw_bytes_per_s"] == pytest.approx(1.08e9) and inp["busbw_bytes_per_s"] == pytest.approx(1.10e9)
    assert oop["max_error"] == 0.0 and oop["wrong_count"] is None


def test_v211_broadcast_has_a_root_and_no_redop():
    (oop, _) = parse(FIX / "good_broadcast_v211.log")
    assert (oop["redop"], oop["root"], oop["size_bytes"]) == (None, 0, 1048576)


def test_v219_cputime_and_timestamp_columns():
    rows = parse(FIX / "good_sendrecv_v219_timestamps.log")
    assert len(rows) == 4 and {r["layout"] for r in rows} == {"current"}
    # "1.2e+05": a time too wide for %7.2f, printed by getFloatStr as %.1e: 120000 us
    assert rows[2]["time_s"] == pytest.approx(0.12) and rows[3]["time_s"] == pytest.approx(0.119876)
    assert rows[0]["redop"] == "none" and rows[0]["wrong_count"] == 0


def test_mpirun_tag_output_and_interleaved_nccl_lines():
    (oop, inp) = parse(FIX / "good_tag_output.log")
    assert oop["time_s"] == pytest.approx(62345e-6) and inp["wrong_count"] is None
    assert oop["source_line"] == 7


def test_interleaved_nccl_info_says_what_nccl_used():
    # src/transport/net_socket.cc "NET/Socket : Using%s" (" [%d]%s:%s"), and the fixture's own line
    rows = parse(FIX / "good_sendrecv_current.log")
    assert {(r["net_plugin"], r["net_interface"], r["net_address"]) for r in rows} == \
        {("Socket", "ens3", "172.31.10.11")}
    (oop, _) = parse(FIX / "good_tag_output.log")
    # src/bootstrap.cc "Bootstrap: Using%s" (" %s:" + address), behind mpirun --tag-output
    assert (oop["bootstrap_interface"], oop["bootstrap_address"]) == ("ens3", "172.31.10.12")


def test_the_collective_is_read_from_the_starting_line():
    # common.cu (2.13 and later): PRINT("# Collective test starting: %s\n", program_name)
    assert {r["collective"] for r in parse(FIX / "good_sendrecv_v219_timestamps.log")} == {"sendrecv"}
    # older builds print no such line: the log does not say, the manifest may
    assert {r["collective"] for r in parse(FIX / "good_allreduce_pre213.log")} == {None}


def test_an_mpi_build_name_gives_the_collective_before_perf(tmp_path):
    text = (FIX / "good_sendrecv_v219_timestamps.log").read_text().replace(
        "# Collective test starting: sendrecv_perf", "# Collective test starting: all_reduce_perf_mpi")
    (tmp_path / "a.log").write_text(text)
    assert {r["collective"] for r in parse(tmp_path / "a.log")} == {"all_reduce"}
