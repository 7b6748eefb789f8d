"""pipeline/ingest/formats/netdev.py's refusals of bytes DuckDB cannot read, word for word: an undecodable
byte (line and column), and a line too long for DuckDB's CSV reader (named by its line whether it
ends in LF or CR LF, on both sides of the limit)."""
from __future__ import annotations

import duckdb
import pytest

from pipeline.ingest.base import ParseError
from pipeline.ingest.formats import netdev, netdev_refusals

from paths import FIXTURES

GOOD = (FIXTURES / "netdev" / "good" / "server-5-samples.txt").read_bytes()
HEAD = b"".join(GOOD.splitlines(True)[:6])          # header, first sample, its first interface lines
REST = b"".join(GOOD.splitlines(True)[6:])
# an interface line with the 16 counters of /proc/net/dev; the 16th (tx compressed) is not kept,
# so its digits can make the line as long as a test needs without changing a kept value
PREFIX = b"  eth9: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 "


def _refusal(tmp_path, data: bytes) -> str:
    path = tmp_path / "cap.netdev"
    path.write_bytes(data)
    with pytest.raises(ParseError) as info:
        netdev.parse(path)
    return str(info.value).replace(str(path), "cap.netdev")


def test_an_undecodable_byte_is_named_by_line_and_column(tmp_path):
    data = b"".join(GOOD.splitlines(True)[:4]) + b"  lo: 12\xff34 5\n" + b"".join(GOOD.splitlines(True)[4:])
    assert _refusal(tmp_path, data) == "cap.netdev:5: expected UTF-8 text, found byte 0xff at column 9"


@pytest.mark.parametrize("end", [b"\n", b"\r\n"])
def test_a_line_too_long_for_duckdb_is_named(tmp_path, end):
    line = PREFIX + b"9" * (netdev_refusals.LINE_LIMIT_BYTES - len(PREFIX))     # exactly the limit
    message = _refusal(tmp_path, HEAD + line + end + REST)
    # its first 60 characters as written (the 44 of the prefix, then 16 digits) and its size
    assert message == ("cap.netdev:7: expected a /proc/net/dev capture (text lines), found "
                       f"'  eth9: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 {'9' * 16}'… "
                       "(2,000,000 bytes; DuckDB reads lines shorter than 2,000,000)")


def test_a_line_one_byte_under_the_limit_is_read(tmp_path):
    line = PREFIX + b"9" * (netdev_refusals.LINE_LIMIT_BYTES - 1 - len(PREFIX))
    path = tmp_path / "cap.netdev"
    path.write_bytes(HEAD + line + b"\n" + REST)
    rows = netdev.parse(path)
    eth9 = rows[rows.interface == "eth9"]
    assert list(eth9[["rx_bytes", "tx_bytes", "source_line"]].itertuples(index=False, name=None)) == [(1, 9, 7)]


# --- why a line was written as a bad row: every branch of _problem, and what _found shows ---

SIXTEEN = " ".join(str(n) for n in range(16))


@pytest.mark.parametrize("line, after_sample, problem", [
    ("@ soon", True, "bad_sample"),
    ("# a header after the first sample", True, "late_header"),
    ("garbage without a colon", True, "unknown_line"),
    ("Inter-|   Receive", False, "before_sample"),           # column titles before any sample
    ("  face |bytes    packets", False, "before_sample"),
    ("eth 0: " + SIXTEEN, True, "unknown_line"),             # a name with a blank
    ("eth\t0: " + SIXTEEN, True, "unknown_line"),
    ("   : " + SIXTEEN, True, "unknown_line"),               # no name at all
    ("eth0: " + SIXTEEN, False, "before_sample"),            # an interface before any '@' line
    ("eth0: 1 2 3", True, "field_count"),
    ("eth0: " + SIXTEEN + " 16", True, "field_count"),
    ("eth0: " + SIXTEEN.replace("7", "x"), True, "non_numeric"),
    ("eth0: " + SIXTEEN.replace("7", "-7"), True, "non_numeric"),
    ("eth0: " + SIXTEEN.replace("7", str(2 ** 64)), True, "overflow"),
])
def test_each_kind_of_bad_line_is_told_apart(line, after_sample, problem):
    from pipeline.ingest.formats.netdev_refusals import problem as _problem
    assert _problem(line, after_sample) == problem


def test_what_a_bad_line_is_shown_as():
    from pipeline.ingest.formats.netdev_refusals import found_text as _found
    assert _found("field_count", "  eth0: 1 2 3  ") == "3 fields in 'eth0: 1 2 3'"
    assert _found("non_numeric", "eth0: 1 x2 3") == "'x2' in 'eth0: 1 x2 3'"
    assert _found("bad_sample", "@ soon\n") == "'@ soon'"
    long = "z" * 150
    assert _found("unknown_line", long) == repr("z" * 100)        # at most 100 characters


# --- how a DuckDB read error becomes the ParseError (netdev_refusals.unreadable, on its own) ------------

def _read_error(tmp_path, message: str, offset: int = 0, text: str = "Inter-|\n"):
    from pipeline.ingest.formats.netdev_refusals import unreadable as _unreadable
    p = tmp_path / "cap.txt"
    p.write_text(text)
    return p, _unreadable(p, duckdb.InvalidInputException(message), offset)


def test_duckdbs_line_is_moved_by_the_ranges_offset_and_its_original_line_quoted(tmp_path):
    original = "x" * 150
    p, err = _read_error(tmp_path, "Invalid Input Error: CSV Error on Line: 7 in a range\n"
                         f"Original Line: {original}  \nmore", offset=100)
    # line 7 of a range that starts after 100 lines of the file: line 107; 100 characters shown
    assert str(err) == (f"{p}:107: expected a /proc/net/dev capture (text lines), found "
                        f"{'x' * 100!r}, which DuckDB could not read as one text column")


def test_without_an_original_line_duckdbs_first_line_is_shown_up_to_on_line(tmp_path):
    head = "Invalid Input Error: " + "y" * 250
    p, err = _read_error(tmp_path, f"{head} on Line: 12 of it\nsecond line")
    # " on Line: " and what follows are left out, at most 200 characters; the line is unknown
    # (only "CSV Error on Line: " gives one)
    assert (err.line, err.found, err.expected) == (None, head[:200], "a /proc/net/dev capture (text lines)")
    assert str(err).startswith(f"{p}: expected")


def test_a_csv_error_without_a_number_has_no_line(tmp_path):
    _, err = _read_error(tmp_path, "Invalid Input Error: CSV Error on Line: unknown\n"
                         "Original Line: abc", offset=5)
    assert (err.line, err.found) == (None, "'abc', which DuckDB could not read as one text column")


def test_the_first_line_too_long_for_duckdb_is_named_even_at_exactly_the_limit(tmp_path):
    from pipeline.ingest.formats.netdev_refusals import LINE_LIMIT_BYTES
    # 500,000 four-byte characters: exactly 2,000,000 bytes in exactly LIMIT // 4 characters
    at_limit = "\U0001F600" * (LINE_LIMIT_BYTES // 4)
    p, err = _read_error(tmp_path, "Invalid Input Error: CSV Error on Line: 1",
                         text=f"Inter-|\n{at_limit}\n{'z' * LINE_LIMIT_BYTES}\n")
    assert (err.line, err.found) == (2, f"{at_limit[:60]!r}… (2,000,000 bytes; DuckDB reads "
                                        f"lines shorter than 2,000,000)")
