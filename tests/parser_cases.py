"""Shared assertion for parser tests: bad input names the file, the line and the reason."""
import pytest

from pipeline.ingest.base import ParseError


def assert_rejects(parse, path, line, words):
    with pytest.raises(ParseError) as info:
        parse(path)
    assert info.value.line == line
    assert path.name in str(info.value) and words in str(info.value)
