"""Environment files (``KEY=value`` lines, as systemd ``EnvironmentFile=`` and serve scripts read them).

The format and its variants, tool version by tool version: raw_data/FORMATS.md, "env".
"""
from __future__ import annotations

import io
from pathlib import Path

from dotenv.parser import parse_stream

from pipeline.ingest.base import Format, ParseError, read_text_strict, require_nonempty


def parse(path: Path) -> list[dict]:
    text = read_text_strict(path)
    require_nonempty(path, text)
    rows: dict[str, dict] = {}
    for binding in parse_stream(io.StringIO(text)):
        if binding.error:
            raise ParseError(path, binding.original.line, "a KEY=value line",
                             repr(binding.original.string.rstrip("\n")))
        if binding.key is None:  # comment or blank line
            continue
        # the last binding wins; the rows come out in the order of their lines
        rows[binding.key] = {"key": binding.key, "value": binding.value,
                             "source_line": binding.original.line}
    if not rows:
        raise ParseError(path, 1, "at least one KEY=value line", "only comments")
    return sorted(rows.values(), key=lambda r: r["source_line"])


FORMAT = Format(
    name="env",
    table="raw_env",
    version=1,
    columns={"key": "VARCHAR", "value": "VARCHAR"},
    parse=parse,
    description="KEY=value environment file (python-dotenv parser, no interpolation).",
)
