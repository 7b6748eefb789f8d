"""The contract every raw-format parser follows.

A parser module under ``pipeline/ingest/`` exposes one module-level ``FORMAT``.
``FORMAT.parse(path)`` reads one raw file and returns its rows (a list of dicts
or a pandas DataFrame) with every column of ``FORMAT.columns`` plus
``source_line`` (1-based line, or byte offset for binary files). The ingest
runner adds ``source_file`` (path relative to ``raw_data/``) and ``campaign``;
the file's context (host, link, direction …) comes from the campaign manifest,
never from the parser.

A file that cannot be parsed raises :class:`ParseError`, whose message names
the file and line, what was expected and what was found. The runner records it
in the registry as quarantined and goes on with the next file.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable


class ParseError(Exception):
    """A raw file that cannot be ingested: ``file:line: expected …, found …``."""

    def __init__(self, path: Path | str, line: int | None, expected: str, found: str):
        self.path = str(path)
        self.line = line
        self.expected = expected
        self.found = found
        where = f"{self.path}:{line}" if line is not None else self.path
        super().__init__(f"{where}: expected {expected}, found {found}")


@dataclass(frozen=True)
class Format:
    """One raw format: its name (as used in manifests), table and parser."""

    name: str
    table: str
    version: int
    columns: dict[str, str]
    parse: Callable[[Path], Any]
    description: str = ""
    # Formats whose files are big are parsed by DuckDB rather than row by row.
    kinds: tuple[str, ...] = field(default_factory=lambda: ("python",))
    # Big files: ``stream(path, con)`` prepares the parse inside DuckDB connection ``con`` and
    # returns an object with ``select`` (SQL of the rows, which the runner copies straight to
    # the raw store's temporary Parquet file) and ``check(written)`` (raises ParseError for a
    # file that breaks the format, before the temporary file is renamed into place),
    # ``unreadable(exc)`` (the ParseError for a DuckDB read error met while copying); a big
    # file may be ``sharded``, written by ``write_shards(folder, typed)`` instead of ``select``
    # (pipeline/ingest/store.py, write_sharded). No row becomes a Python object.
    stream: Callable[[Path, Any], Any] | None = None

    def rows(self, path: Path) -> Iterable[dict]:
        return self.parse(path)


def read_text_strict(path: Path) -> str:
    """Read a text file as UTF-8, naming the first undecodable byte's line."""
    data = Path(path).read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise ParseError(path, line, "UTF-8 text",
                         f"byte 0x{data[exc.start]:02x} at offset {exc.start}") from None


def lines_strict(path: Path):
    """(line number, text) of every line, read and decoded one at a time (a file of any size),
    naming the line and column of the first undecodable byte."""
    with open(path, "rb") as fh:
        for n, raw in enumerate(fh, start=1):
            try:
                yield n, raw.decode("utf-8").rstrip("\r\n")
            except UnicodeDecodeError as exc:
                raise ParseError(path, n, "UTF-8 text", f"byte 0x{raw[exc.start]:02x} at "
                                 f"column {exc.start + 1}") from None


def require_nonempty(path: Path, text: str) -> None:
    if not text.strip():
        raise ParseError(path, 1, "tool output", "an empty file")
