"""50 Hz ``/proc/net/dev`` captures: one row per sample × interface, parsed in DuckDB.

Format (raw_data/README.md, "procnetdev-capture v1"): ``#`` header lines, then
per sample a line ``@ <unix seconds>`` followed by the unmodified text of
``/proc/net/dev`` — two column-title lines (``Inter-|`` and `` face |``) and one
line per interface as the kernel prints it (net/core/net-procfs.c,
``dev_seq_printf_stats``: ``"%6s: %7llu %7llu %4llu %4llu %4llu %5llu %10llu
%9llu %8llu %7llu %4llu %4llu %4llu %5llu %7llu %10llu"``, i.e. the name and 16
counters: rx bytes packets errs drop fifo frame compressed multicast, then tx
bytes packets errs drop fifo colls carrier compressed).

An hour at 50 Hz is ~1M lines and a day is 1 GB, so the file never becomes Python
objects line by line, nor one string: DuckDB streams it twice (``read_csv`` as one
text column, file order kept, lines numbered by a streaming window). A big capture is
cut into byte ranges at ``@`` lines, one per core, each fed to DuckDB through its own
named pipe and numbered on its own thread (pipeline/ingest/byte_ranges.py); the lines
of the ranges before it turn a range's numbers into the file's.
The first pass keeps the few lines that are not interface lines (samples, headers,
anything out of place) in a small table; the second splits only the interface
lines, takes each one's sample time from the nearest ``@`` line above it (a running
max of their line numbers, joined to that table) and is copied straight into the
raw store's Parquet file. An interface line that breaks the format is written with
a NULL where the contract has none, so one look at the written file finds the first
bad line; the file is then rejected by number before it is renamed into place.
Memory stays flat in the file's size.

Rows: ``sample_unix_s``, ``interface``, rx/tx ``bytes``, ``packets``, ``errs``,
``drop`` (UBIGINT, as the kernel's u64 counters) and ``source_line`` = the
interface line. The first malformed line rejects the file, by number. Counter
wraps, resets and out-of-order samples are facts about the capture, handled in
SQL downstream, not errors here.
"""
from __future__ import annotations

import tempfile
import threading
from pathlib import Path

import duckdb
import pandas as pd

from pipeline.ingest import byte_ranges
from pipeline.ingest.base import Format, ParseError, lines_strict
from pipeline.store import sql_literal

COUNTERS = ("rx_bytes", "rx_packets", "rx_errs", "rx_drop",
            "tx_bytes", "tx_packets", "tx_errs", "tx_drop")
# 1-based positions of COUNTERS among the 16 fields of an interface line.
_POSITIONS = (1, 2, 3, 4, 9, 10, 11, 12)
# A field separator no capture contains, so each line is one column (a line that does contain
# it is reported as unreadable, by number).
_ONE_COLUMN = "\x01\x02\x03\x04"
# DuckDB's memory for one capture's parse (beyond it, the numbered lines spill to disk).
MEMORY_LIMIT = "1GB"
# A capture is numbered in byte ranges of at least this size, one per DuckDB thread (below
# twice this size, in one pass: starting the threads would cost more than it saves).
RANGE_BYTES = 64 << 20


def lines_sql(path: Path) -> str:
    """Every line of ``path`` as ``line`` (NULL when empty), in file order."""
    return (f"read_csv({sql_literal(str(path))}, columns={{'line': 'VARCHAR'}}, delim='{_ONE_COLUMN}', "
            "quote='', escape='', header=false, auto_detect=false)")


# Cheap string tests classify a line (the CASE tests a line only against the kinds it was not
# yet found to be); a running max of the '@' lines' numbers gives every line its sample.
_WINDOWED = """
select line_no, line, kind,
    max(case when kind = 'sample' then line_no end)
        over (rows between unbounded preceding and current row) as sample_line
from (
    select line_no, line,
        case
            when starts_with(line, '@') then 'sample'
            when starts_with(line, '#') then 'header'
            when contains(line, ':') then 'interface'
            when starts_with(ltrim(line), 'Inter-|') or starts_with(ltrim(line), 'face |') then 'columns'
            when line is null or trim(line) = '' then 'blank'
            else 'other'
        end as kind
    from (select row_number() over () as line_no, line from {lines})
)
"""

# Pass 1 (one thread per range: the windows need file order): every line that matters,
# numbered, with its sample; only interface lines keep their text. Pass 2 reads the ranges'
# tables on every core.
_LINES = r"""
create or replace table netdev_lines_{part} as
select line_no, kind, sample_line, own_time,
    case
        when kind = 'other' then 'unknown_line'
        when kind = 'columns' then 'before_sample'
        when kind = 'header' and sample_line is not null then 'late_header'
        when kind = 'sample' and own_time is null then 'bad_sample'
    end as problem,
    line
from (
    select *, case when kind = 'sample' then
        try_cast(regexp_extract(line, '^@ ([0-9]+(\.[0-9]+)?)\s*$', 1) as double) end as own_time
    from ({windowed})
    where kind in ('interface', 'sample', 'header', 'other') or (kind = 'columns' and sample_line is null)
);
create or replace table netdev_marks_{part} as
select line_no, kind, own_time, problem, line from netdev_lines_{part} where kind <> 'interface';
delete from netdev_lines_{part} where kind <> 'interface'
"""

# The parts as one file: line numbers shifted by the lines of the parts before. The marks
# (lines that are not interface lines) are a small table, the build side of the join below.
_JOINED = """
create or replace temp table netdev_marks as {marks};
create or replace temp view netdev_lines as {lines}
"""


# Pass 2: the rows. A line that breaks the format gets a NULL interface (its counters may
# look fine), a line before any sample a NULL time: good rows have neither.
_ROWS = r"""
select s.own_time as sample_unix_s,
    case when len(f) = 16 and regexp_matches(i.line, '^ *[^ \t:]+ *:[0-9 ]*$') then name end as interface,
    {counters},
    i.line_no as source_line
from (
    select line_no, sample_line, line, trim(line[:instr(line, ':') - 1]) as name,
        list_filter(string_split(line[instr(line, ':') + 1:], ' '), lambda x: x <> '') as f
    from netdev_lines
) i
left join netdev_marks s on s.line_no = i.sample_line
""".replace("{counters}", ",\n    ".join(
    f"try_cast(f[{p}] as ubigint) as {name}" for p, name in zip(_POSITIONS, COUNTERS)))

# One scan of the written file: its first bad row (if any) and its row count.
_WRITTEN = """
select min(source_line) filter (where sample_unix_s is null or interface is null or {nulls}),
    count(*)
from read_parquet({written})
""".replace("{nulls}", " or ".join(f"{name} is null" for name in COUNTERS))

_EXPECTED = {
    "unknown_line": "a /proc/net/dev line ('Inter-|', ' face |' or '<iface>: <16 counters>')",
    "before_sample": "a '#' header or '@ <unix seconds>' sample line before /proc/net/dev text",
    "late_header": "'#' header lines only before the first sample",
    "bad_sample": "a sample line '@ <unix seconds>'",
    "field_count": "an interface line '<iface>: <16 counters>'",
    "non_numeric": "numeric counters",
    "overflow": "counters below 2^64",
}


def _found(problem: str, line: str) -> str:
    shown = repr(line.strip()[:100])
    fields = line.split(":", 1)[-1].split()
    if problem == "field_count":
        return f"{len(fields)} fields in {shown}"
    if problem == "non_numeric":
        bad = next(f for f in fields if not f.isdigit())
        return f"{bad!r} in {shown}"
    return shown


def _row_problem(line: str, after_sample: bool) -> str:
    """Why an interface line was written with a NULL (the same tests as ``_ROWS``)."""
    name, _, rest = line.partition(":")
    name, fields = name.strip(), rest.split(" ")
    fields = [f for f in fields if f]
    if not name or " " in name or "\t" in name:
        return "unknown_line"
    if not after_sample:
        return "before_sample"
    if len(fields) != 16:
        return "field_count"
    if any(c not in "0123456789 " for c in rest):
        return "non_numeric"
    return "overflow"


def _line_text(path: Path, number: int) -> str:
    return next(text for n, text in lines_strict(path) if n == number)


def _unreadable(path: Path, exc: duckdb.Error, offset: int = 0) -> ParseError:
    """Why DuckDB could not read the lines, as a ParseError naming the line."""
    for _ in lines_strict(path):  # names the line and column of the first undecodable byte
        pass
    message = str(exc)
    line = None
    if "CSV Error on Line: " in message:
        digits = message.split("CSV Error on Line: ", 1)[1].split()[0]
        line = int(digits) + offset if digits.isdigit() else None
    # DuckDB's own line number counts from the start of the range it read: left out
    found = message.splitlines()[0].split(" on Line: ")[0][:200]
    original = next((x[len("Original Line: "):] for x in message.splitlines()
                     if x.startswith("Original Line: ")), None)
    if original is not None:
        found = f"{original.strip()[:100]!r}, which DuckDB could not read as one text column"
    return ParseError(path, line, "a /proc/net/dev capture (text lines)", found)


class Streamed:
    """One capture being parsed on a connection: ``select`` is the rows to write, ``check``
    rejects the written file at the first line that breaks the format."""

    def __init__(self, path: Path, con: duckdb.DuckDBPyConnection):
        self.path, self.con = Path(path), con
        con.execute("set enable_progress_bar = false")
        # DuckDB guesses a few dozen rows for a CSV it has not read, so it would build the
        # join's hash table from the capture instead of from the small table of marks
        con.execute("set disabled_optimizers = 'build_side_probe_side'")
        # the numbered lines of a big capture go to disk rather than past this much memory
        con.execute(f"set memory_limit = '{MEMORY_LIMIT}'")
        con.execute(f"set temp_directory = {sql_literal(tempfile.gettempdir())}")
        threads = int(con.execute("select current_setting('threads')").fetchall()[0][0])
        parts = max(1, min(threads, self.path.stat().st_size // RANGE_BYTES))
        ranges = byte_ranges.cut(self.path, parts, b"@") if parts > 1 else []
        offsets = self._number(ranges) if len(ranges) > 1 else self._number_whole()
        shifted = list(enumerate(offsets))
        con.execute(_JOINED.format(
            marks=" union all ".join(
                f"select line_no + {o} as line_no, kind, own_time, problem, line "
                f"from netdev_marks_{k}" for k, o in shifted),
            lines=" union all ".join(
                f"select line_no + {o} as line_no, sample_line + {o} as sample_line, line "
                f"from netdev_lines_{k}" for k, o in shifted)))
        self.select = _ROWS

    def _number_whole(self) -> list[int]:
        try:
            self.con.execute(_LINES.format(part=0, windowed=_WINDOWED.format(
                lines=lines_sql(self.path))))
        except (duckdb.InvalidInputException, duckdb.ConversionException) as exc:
            raise _unreadable(self.path, exc) from None
        return [0]

    def _number(self, ranges: list[tuple[int, int]]) -> list[int]:
        """Number each range on its own thread (a cursor of the same database, reading its
        own FIFO); returns each range's line offset in the file."""
        errors: dict[int, BaseException] = {}
        with tempfile.TemporaryDirectory(prefix="ranges-") as tmp:
            feeders = [byte_ranges.Feeder(self.path, a, b, Path(tmp), f"part{k}")
                       for k, (a, b) in enumerate(ranges)]

            def number(k: int, feeder: byte_ranges.Feeder) -> None:
                cur = self.con.cursor()
                try:
                    cur.execute("set enable_progress_bar = false")
                    cur.execute(_LINES.format(part=k, windowed=_WINDOWED.format(
                        lines=lines_sql(feeder.fifo))))
                except BaseException as exc:  # re-raised on the calling thread below
                    errors[k] = exc
                finally:
                    cur.close()
                    feeder.release()

            workers = [threading.Thread(target=number, args=(k, f), name=f"netdev-part{k}")
                       for k, f in enumerate(feeders)]
            for worker in workers:
                worker.start()
            for worker in workers:
                worker.join()
            counts = [feeder.join() for feeder in feeders]
        offsets = [sum(counts[:k]) for k in range(len(counts))]
        if errors:
            k = min(errors)
            exc = errors[k]
            if isinstance(exc, (duckdb.InvalidInputException, duckdb.ConversionException)):
                raise _unreadable(self.path, exc, offsets[k]) from None
            raise exc
        return offsets

    def check(self, written: Path) -> None:
        con, path = self.con, self.path
        bad_row, rows = con.execute(_WRITTEN.format(written=sql_literal(str(written)))).fetchall()[0]
        marks = con.execute(
            "select min(line_no) filter (where problem is not null), count(*), "
            "count(*) filter (where kind = 'header'), max(line_no) filter (where kind = 'header'), "
            "min(line_no) filter (where kind = 'sample') from netdev_marks").fetchall()[0]
        bad_mark, n_marks, n_headers, last_header, first_sample = marks
        first = min((n for n in (bad_row, bad_mark) if n is not None), default=None)
        if first is not None:
            if first == bad_mark:
                code, line = con.execute("select problem, line from netdev_marks where line_no = ?",
                                         [first]).fetchall()[0]
            else:
                line = _line_text(path, first)
                code = _row_problem(line, first_sample is not None and first_sample < first)
            raise ParseError(path, first, _EXPECTED[code], _found(code, line))
        if not rows and not n_marks:
            raise ParseError(path, 1, "a /proc/net/dev capture", "an empty file")
        if not rows and n_marks == n_headers:
            raise ParseError(path, last_header + 1, "an '@ <unix seconds>' sample line",
                             "only '#' header lines")


def stream(path: Path, con: duckdb.DuckDBPyConnection) -> Streamed:
    return Streamed(path, con)


def parse(path: Path, con: duckdb.DuckDBPyConnection | None = None) -> pd.DataFrame:
    """All rows of one capture as a DataFrame (for tests and small files; the runner streams
    the rows to Parquet without them becoming Python objects). ``con``: a private in-memory
    database to parse on (tests give one with more threads, so a capture is cut in more
    ranges); by default a new one."""
    own = con is None
    con = con or duckdb.connect()  # parsing never touches the warehouse
    with tempfile.TemporaryDirectory(prefix="netdev-") as tmp:
        try:
            rows = stream(path, con)
            written = Path(tmp) / "rows.parquet"
            con.execute(f"copy ({rows.select}) to {sql_literal(str(written))} (format parquet)")
            rows.check(written)
            return con.execute(f"select * from read_parquet({sql_literal(str(written))}) "
                               "order by source_line").df()
        finally:
            if own:
                con.close()


FORMAT = Format(
    name="netdev",
    table="raw_netdev",
    version=2,
    columns={"sample_unix_s": "DOUBLE", "interface": "VARCHAR",
             **{name: "UBIGINT" for name in COUNTERS}},
    parse=parse,
    stream=stream,
    description="/proc/net/dev counters per 50 Hz sample and interface (streamed through DuckDB "
                "read_csv into Parquet).",
    kinds=("duckdb",),
)
