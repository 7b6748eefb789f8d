"""How every parser reads text (pipeline/ingest/base.py), word for word: an undecodable byte
named by line and offset or column, line ends dropped but trailing spaces kept, an empty file
refused, the ParseError's own parts."""
from __future__ import annotations

import pytest

from pipeline.ingest.base import ParseError, lines_strict, read_text_strict, require_nonempty


def test_an_undecodable_byte_is_named_by_its_line_and_offset(tmp_path):
    p = tmp_path / "f.txt"
    p.write_bytes(b"ok\nstill ok\nbad \xff here\n")
    with pytest.raises(ParseError) as info:
        read_text_strict(p)
    # "ok\n" (3) + "still ok\n" (9) + "bad " (4): the byte is at offset 16, on line 3
    assert str(info.value) == f"{p}:3: expected UTF-8 text, found byte 0xff at offset 16"
    with pytest.raises(ParseError) as info:
        list(lines_strict(p))
    assert str(info.value) == f"{p}:3: expected UTF-8 text, found byte 0xff at column 5"


def test_lines_lose_their_line_ends_only(tmp_path):
    p = tmp_path / "f.txt"
    p.write_bytes(b"a \t\r\n\n  b\nlast")
    assert list(lines_strict(p)) == [(1, "a \t"), (2, ""), (3, "  b"), (4, "last")]
    assert read_text_strict(p) == "a \t\r\n\n  b\nlast"


def test_an_empty_or_blank_file_is_refused(tmp_path):
    for text in ("", " \n\t\n"):
        with pytest.raises(ParseError) as info:
            require_nonempty(tmp_path / "e.txt", text)
        assert str(info.value) == f"{tmp_path / 'e.txt'}:1: expected tool output, found an empty file"
    require_nonempty(tmp_path / "e.txt", " x ")


def test_a_parse_error_keeps_its_parts_and_may_have_no_line():
    err = ParseError("a/b.txt", None, "something", "nothing")
    assert (err.path, err.line, err.expected, err.found) == ("a/b.txt", None, "something", "nothing")
    assert str(err) == "a/b.txt: expected something, found nothing"
    assert str(ParseError("a/b.txt", 0, "x", "y")) == "a/b.txt:0: expected x, found y"
