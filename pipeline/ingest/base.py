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


def require_nonempty(path: Path, text: str) -> None:
    if not text.strip():
        raise ParseError(path, 1, "tool output", "an empty file")
