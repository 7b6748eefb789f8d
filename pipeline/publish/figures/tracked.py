"""Mart values that remember where they come from, and the recorder that notes them.

A row handed to a template holds its numbers and strings as thin subclasses of ``float``,
``int`` and ``str`` that carry a ``FigureRef`` (table, row key, column), so templates use them
as ordinary values. When a filter or the output step prints one, the active ``Recorder`` notes
the figure (its value in base units, the text shown, the unit) and a private-use marker is left
in the text where it appeared (``anchors.py`` turns the markers into section anchors and
removes them). Arithmetic in a template gives plain values again: only what comes straight
from a mart is a figure. Key columns are identity, not figures, and a missing value (the em
dash) is not a figure either: its absence from the ledger is what "now missing" means.
"""
from __future__ import annotations

import contextvars
import math
from dataclasses import dataclass, field

MARK_OPEN, MARK_CLOSE = "\ue000", "\ue001"

# the base unit a filter's input is in (pipeline/publish/filters.py)
FILTER_UNITS = {"ms": "s", "us": "s", "s": "s", "bytes_as": "B", "rate_as": "bit/s",
                "rate_sig": "bit/s", "byte_rate_as": "B/s", "pct": "fraction",
                "signed_pct": "fraction"}
# otherwise the unit is read from the column name (DESIGN.md §3: the unit is in the name)
SUFFIX_UNITS = (("_bits_per_s", "bit/s"), ("_bytes_per_s", "B/s"), ("_tokens_per_s", "tok/s"),
                ("tokens_per_s", "tok/s"), ("_per_position", "B/position"), ("_bytes", "B"),
                ("_fraction", "fraction"), ("_unix_s", "s"), ("_s", "s"))


@dataclass(frozen=True)
class FigureRef:
    table: str
    key: tuple[tuple[str, str], ...]     # (column, value) of the row's declared key
    column: str

    @property
    def row_key(self) -> str:
        return ";".join(f"{c}={v}" for c, v in self.key)


class _Tracked:
    fig: FigureRef


class TrackedFloat(float, _Tracked):
    pass


class TrackedInt(int, _Tracked):
    pass


class TrackedStr(str, _Tracked):
    pass


def _wrap(value, ref: FigureRef):
    if isinstance(value, bool) or value is None:
        return value
    for base, cls in ((float, TrackedFloat), (int, TrackedInt), (str, TrackedStr)):
        if isinstance(value, base):
            out = cls(value)
            out.fig = ref
            return out
    return value


def _key_text(value) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


class TrackedRow(dict):
    """A row whose non-key values carry their FigureRef when a template reads them (by
    ``row[c]``, ``row.get(c)`` or Jinja's ``row.c``), wrapped on each read rather than up
    front: a page's chart-only marts (thousands of 50 Hz intervals) are never read as text."""

    __slots__ = ("_table", "_key", "_ident")

    def __init__(self, table: str, key: tuple[str, ...], row: dict):
        super().__init__(row)
        self._table, self._key = table, key
        self._ident = tuple((c, _key_text(row.get(c))) for c in key)

    def __getitem__(self, column):
        value = dict.__getitem__(self, column)
        return value if column in self._key else _wrap(value, FigureRef(self._table, self._ident, column))

    def get(self, column, default=None):
        return self[column] if column in self else default

    def values(self):
        return [self[c] for c in self]

    def items(self):
        return [(c, self[c]) for c in self]


def track_rows(table: str, rows: list[dict], key: tuple[str, ...]) -> list[dict]:
    """The rows with every non-key value carrying its FigureRef."""
    return [TrackedRow(table, key, row) for row in rows]


def unit_of(column: str, filter_name: str | None) -> str:
    if filter_name in FILTER_UNITS:
        return FILTER_UNITS[filter_name]
    for suffix, unit in SUFFIX_UNITS:
        if column.endswith(suffix):
            return unit
    return ""


@dataclass
class Noted:
    ref: FigureRef
    value: object
    text: str
    unit: str


@dataclass
class Recorder:
    """The figures one page render printed, in order of appearance."""
    noted: list[Noted] = field(default_factory=list)

    def note(self, value, text: str, filter_name: str | None) -> str:
        if not isinstance(value, _Tracked) or _missing(value) or text in ("", "—"):
            return text
        self.noted.append(Noted(value.fig, _plain(value), str(text),
                                unit_of(value.fig.column, filter_name)))
        return f"{text}{MARK_OPEN}{len(self.noted) - 1}{MARK_CLOSE}"


def _missing(value) -> bool:
    return isinstance(value, float) and math.isnan(value)


def _plain(value):
    for base in (float, int, str):
        if isinstance(value, base):
            return base(value)
    return value


_ACTIVE: contextvars.ContextVar[Recorder | None] = contextvars.ContextVar("figures", default=None)


def note(value, text, filter_name: str | None = None):
    """``text`` (a filter's output for ``value``), marked when a page render is recording."""
    recorder = _ACTIVE.get()
    if recorder is None:
        return text
    return recorder.note(value, text, filter_name)


class recording:
    """``with recording() as rec:`` notes every tracked value printed inside the block."""

    def __enter__(self) -> Recorder:
        self.recorder = Recorder()
        self._token = _ACTIVE.set(self.recorder)
        return self.recorder

    def __exit__(self, *exc) -> None:
        _ACTIVE.reset(self._token)
