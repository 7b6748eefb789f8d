"""Every way pipeline/ingest/formats/nccl_tests.py refuses a file, word for word: the file, the line and
what was expected and found, so a reader can fix the file from the message alone. Rows are
printed with nccl-tests' own format (src/util.cu ``%12li  %12li  %8s  %6s  %4i`` then the two
halves ``%7s  %6.2f  %6.2f  %5g``); each case's text is written here, its message worked out by
reading the rule it breaks."""
from __future__ import annotations

import pytest

from pipeline.ingest.base import ParseError
from pipeline.ingest.formats.nccl_tests import parse

HEADER = ("#       size         count      type   redop    root     time   algbw   busbw #wrong"
          "     time   algbw   busbw #wrong")
ROW = "     1048576        262144     float     sum      -1    100.0   10.49   10.49      0    99.00   10.59   10.59      0"
FOOTER = "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 10.54"
LONG = "x" * 80          # longer than the 60 characters a message quotes


def _error(tmp_path, text: str) -> ParseError:
    path = tmp_path / "run.log"
    path.write_text(text)
    with pytest.raises(ParseError) as info:
        parse(path)
    return info.value


def _message(tmp_path, body: str) -> str:
    return str(_error(tmp_path, body)).replace(str(tmp_path / "run.log"), "run.log")


CASES = {
    "a header the parser cannot place": (
        "#       size         count      type   redop    root     time   algbw   busbw   oops\n",
        "run.log:1: expected an nccl-tests column header (size count type [redop] [root], then "
        "time algbw busbw #wrong|error twice), found '# size count type redop root time algbw "
        "busbw oops'"),
    "only one half in the header": (
        "#  size  count  type  redop  root  time  algbw  busbw  #wrong  cputime  algbw  busbw  #wrong\n",
        "run.log:1: expected an nccl-tests column header (size count type [redop] [root], then "
        "time algbw busbw #wrong|error twice), found '# size count type redop root time algbw "
        "busbw #wrong cputime algbw busbw #wrong'"),
    "a header with nothing after type": (
        "#       size         count      type\n",
        "run.log:1: expected an nccl-tests column header (size count type [redop] [root], then "
        "time algbw busbw #wrong|error twice), found '# size count type'"),
    "a header too long to quote whole": (
        "#  size  count  type  redop  root  " + "wide " * 30 + "\n",
        "run.log:1: expected an nccl-tests column header (size count type [redop] [root], then "
        "time algbw busbw #wrong|error twice), found "
        + repr(("# size count type redop root " + "wide " * 30).strip()[:120])),
    "a column after the in-place half": (
        HEADER + "  extra more\n",
        "run.log:1: expected nothing after the in-place columns but 'timestamp', found "
        "'extra more'"),
    "a row after the footer": (
        f"{HEADER}\n{ROW}\n{FOOTER}\n{ROW}{LONG}\n",
        f"run.log:5: expected nothing after the 'Avg bus bandwidth' footer, found "
        f"{(ROW + LONG).strip()[:60]!r}"),
    "a row with a missing field": (
        f"{HEADER}\n{ROW.rsplit(None, 1)[0]}{LONG}\n{FOOTER}\n",
        "run.log:2: expected a result row of 13 fields (current layout: size count type redop "
        f"root, 2 x time algbw busbw #wrong), found 12 field(s): "
        f"{(ROW.rsplit(None, 1)[0] + LONG).strip()[:60]!r}"),
    "a timestamp column without a timestamp": (
        f"{HEADER}  timestamp\n{ROW}  12:00:00 2026-01-01\n{FOOTER}\n",
        "run.log:2: expected a timestamp 'YYYY-MM-DD HH:MM:SS' at the end, found "
        "'12:00:00 2026-01-01'"),
    "a zero time": (
        f"{HEADER}\n{ROW.replace('100.0', '0', 1)}\n{FOOTER}\n",
        "run.log:2: expected a positive time, found 0"),
    "an infinite bandwidth": (
        f"{HEADER}\n{ROW.replace('10.49   10.49', '10.49     inf', 1)}\n{FOOTER}\n",
        "run.log:2: expected busbw in GB/s (a finite number), found 'inf'"),
    "a time that is not a number": (
        f"{HEADER}\n{ROW.replace('100.0', '  nan', 1)}\n{FOOTER}\n",
        "run.log:2: expected a time in us (a finite number), found 'nan'"),
    "a negative bandwidth": (
        f"{HEADER}\n{ROW.replace('10.49   10.49', '-10.49  10.49', 1)}\n{FOOTER}\n",
        "run.log:2: expected algbw and busbw of at least 0, found -10.49 and 10.49"),
    "no header at all": (
        "launcher says hello\n",
        "run.log:1: expected an nccl-tests column header ('#  size  count  type …'), found "
        "none in the file"),
    "a header and no row": (
        f"launcher\n{HEADER}\n\n",
        "run.log:3: expected at least one result row, found none after the header"),
    "no footer": (
        f"{HEADER}\n{ROW}\n{ROW}\n",
        "run.log:3: expected the '# Avg bus bandwidth' footer (a complete run), found end of file"),
}


@pytest.mark.parametrize("case", CASES, ids=[c.replace(" ", "_") for c in CASES])
def test_each_refusal_says_where_and_what(tmp_path, case):
    text, message = CASES[case]
    assert _message(tmp_path, text) == message


def test_the_timestamp_layout_is_named_in_a_row_count_message(tmp_path):
    got = _message(tmp_path, f"{HEADER}  timestamp\n{ROW}\n{FOOTER}\n")
    assert got.startswith("run.log:2: expected a result row of 15 fields (current layout: size "
                          "count type redop root, 2 x time algbw busbw #wrong, timestamp), found "
                          "13 field(s)")


def test_launcher_output_before_the_header_is_skipped_and_the_rows_after_it_read(tmp_path):
    path = tmp_path / "run.log"
    path.write_text(f"# nThread 1 nGpus 1\nlauncher line\n{HEADER}\n{ROW}\n{FOOTER}\n")
    rows = parse(path)
    assert [r["placement"] for r in rows] == ["out-of-place", "in-place"]
    # 100.0 us and 99.00 us, GB/s x 10^9
    assert rows[0]["time_s"] == pytest.approx(1e-4) and rows[1]["time_s"] == pytest.approx(9.9e-5)
    assert rows[1]["busbw_bytes_per_s"] == pytest.approx(10.59e9)
    # the lead columns by the header's names: redop and root read as such
    assert (rows[0]["redop"], rows[0]["root"], rows[0]["type"]) == ("sum", -1, "float")


def test_only_the_first_launcher_tag_is_removed(tmp_path):
    # mpirun --tag-output puts one tag in front of a line; what follows it is the line, so a
    # second tag is the line's own text: here not the footer but a short row (6 fields)
    tag = "[1,0]<stdout>:"
    got = _message(tmp_path, f"{tag}{HEADER}\n{tag}{ROW}\n{tag}{tag}# Avg bus bandwidth : 1\n")
    assert got.startswith("run.log:3: expected a result row of 13 fields") and "found 6 field(s)" in got


def test_a_nccl_version_line_is_not_a_row(tmp_path):
    path = tmp_path / "run.log"
    path.write_text(f"{HEADER}\nNCCL version 2.18.3+cuda12.2\n{ROW}\n{FOOTER}\n")
    rows = parse(path)
    assert len(rows) == 2 and rows[0]["nccl_version"] == "2.18.3+cuda12.2"
