"""Shared assertion for parser tests: bad input names the file, the line and the reason."""
import pytest

from pipeline.ingest.base import ParseError


def assert_rejects(parse, path, line, words):
    with pytest.raises(ParseError) as info:
        parse(path)
    assert info.value.line == line
    assert path.name in str(info.value) and words in str(info.value)


def assert_named(exc: ParseError, path) -> None:
    """A ParseError from a property test: it names this file and a line, and says what was
    expected and what was found, in the documented shape."""
    assert exc.path == str(path) and exc.line is not None and exc.line >= 1
    assert exc.expected.strip() and exc.found.strip()
    assert str(exc) == f"{path}:{exc.line}: expected {exc.expected}, found {exc.found}"
