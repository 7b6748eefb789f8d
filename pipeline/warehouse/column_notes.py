"""What each column means, written as comments in the SQL that makes it.

A model documents a column with a header line ``-- column <name>: <what it holds>``; a line
that follows and starts with ``--`` and three or more spaces continues it. ``sql/glossary.sql``
holds the same kind of lines for the names that mean the same in every table they appear in
(``campaign``, ``source_files``, ...). A column's description is, first found:

1. its own model's line;
2. the glossary's line (a name that means the same everywhere, so an upstream table's narrower
   wording, such as dim_model_shapes' ``basis``, never leaks downstream);
3. the line of the nearest upstream model (breadth first, in the order the SQL reads them) that
   documents a column of that name: a column passed through keeps its meaning.

``tests/warehouse/test_column_notes.py`` holds every published column to having one, and every line to
naming a column its model has.
"""
from __future__ import annotations

import re
from pathlib import Path

_LINE = re.compile(r"^--\s*column\s+([A-Za-z_][A-Za-z0-9_]*)\s*:\s*(.*)$", re.IGNORECASE)
_CONTINUED = re.compile(r"^--\s{3,}(\S.*)$")
GLOSSARY = "glossary.sql"


class ColumnNoteError(Exception):
    """A column line that cannot be read; the message names the file and line."""


def parse(sql: str, path: Path | str = "<sql>") -> dict[str, str]:
    """``{column: description}`` from a SQL file's ``-- column`` lines."""
    notes: dict[str, str] = {}
    current: str | None = None
    for number, line in enumerate(sql.splitlines(), start=1):
        m = _LINE.match(line)
        if m:
            name, text = m.group(1).lower(), m.group(2).strip()
            if name in notes:
                raise ColumnNoteError(f"{path}:{number}: column '{name}' is described twice; "
                                      f"keep one '-- column {name}:' line")
            if not text:
                raise ColumnNoteError(f"{path}:{number}: '-- column {name}:' has no description; "
                                      f"say what the column holds after the colon")
            notes[name] = text
            current = name
            continue
        c = _CONTINUED.match(line) if current else None
        if c:
            notes[current] = f"{notes[current]} {c.group(1).strip()}"
        else:
            current = None
    return notes


def is_note_line(line: str, previous_was_note: bool) -> bool:
    """Whether a comment line belongs to a column note (so a model's description leaves it out)."""
    return bool(_LINE.match(line)) or (previous_was_note and bool(_CONTINUED.match(line)))


def glossary(sql_dir: Path) -> dict[str, str]:
    path = sql_dir / GLOSSARY
    return parse(path.read_text(encoding="utf-8"), path) if path.is_file() else {}


def describe(models, columns: list[tuple[str, str]], shared: dict[str, str]) -> dict:
    """``{(table, column): (description, where)}`` for the given columns; ``where`` is the model
    whose line it is or ``glossary``. A column nothing describes is left out."""
    by_name = {m.name: m for m in models}
    out = {}
    for table, column in columns:
        column = column.lower()
        own = by_name[table].column_notes.get(column) if table in by_name else None
        if own:
            out[(table, column)] = (own, table)
            continue
        if column in shared:
            out[(table, column)] = (shared[column], "glossary")
            continue
        seen, queue = set(), [table]
        found = None
        while queue and found is None:
            name = queue.pop(0)
            if name in seen or name not in by_name:
                continue
            seen.add(name)
            note = by_name[name].column_notes.get(column)
            if note:
                found = (note, name)
            queue.extend(by_name[name].upstreams_in_order)
        if found is not None:
            out[(table, column)] = found
    return out
