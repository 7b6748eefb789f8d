"""50 Hz ``/proc/net/dev`` captures: one row per sample × interface, parsed in DuckDB.

The format and its variants, tool version by tool version: raw_data/FORMATS.md, "netdev".
"""
from __future__ import annotations

import tempfile
import threading
from pathlib import Path
from typing import TYPE_CHECKING

import duckdb

from pipeline.ingest import byte_ranges
from pipeline.ingest.base import Format, ParseError
from pipeline.ingest.formats import netdev_refusals as refusals
from pipeline.util.sql import literal

if TYPE_CHECKING:  # imported where it is used: importing the definitions does not load it
    import pandas as pd

COUNTERS = ("rx_bytes", "rx_packets", "rx_errs", "rx_drop",
            "tx_bytes", "tx_packets", "tx_errs", "tx_drop")
# 1-based positions of COUNTERS among the 16 fields of an interface line.
_POSITIONS = (1, 2, 3, 4, 9, 10, 11, 12)
# A field separator no capture contains, so each line is one column (a line that does contain
# it is reported as unreadable, by number).
_ONE_COLUMN = "\x01\x02\x03\x04"
# DuckDB's memory for one capture's parse.
MEMORY_LIMIT = "1GB"
# A capture is read in byte ranges of at least this size, one per DuckDB thread (below
# twice this size, in one pass: starting the threads would cost more than it saves).
RANGE_BYTES = 64 << 20
# The strict shape of an interface line (the kernel's format: a name without blanks, a
# colon, then only digits and spaces); its 16 fields are counted apart.
INTERFACE_LINE = r"^ *[^ \t:]+ *:[0-9 ]*$"
_SAMPLE_TIME = r"^@ ([0-9]+(\.[0-9]+)?)\s*$"


def lines_sql(path: Path) -> str:
    """Every line of ``path`` as ``line`` (NULL when empty), in file order."""
    return (f"read_csv({literal(str(path))}, columns={{'line': 'VARCHAR'}}, delim='{_ONE_COLUMN}', "
            "quote='', escape='', header=false, auto_detect=false)")


# Every line numbered and classified by cheap string tests (the CASE tests a line only against
# the kinds it was not yet found to be), with its own time if it is a sample line.
_KINDS = r"""
select line_no, line, kind,
    case when kind = 'sample' then
        try_cast(regexp_extract(line, '{sample_time}', 1) as double) end as own_time
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
""".replace("{sample_time}", _SAMPLE_TIME)

# The rows of one pass over ``{lines}``: every interface line, and every line that breaks the
# format with a NULL interface. A line's sample time is that of the last '@' line above it; a
# line before any '@' line has none, and neither has one after a bad '@' line (a bad row of its
# own, and the first of them). One streaming window carries both facts down: the last '@'
# line's time, -1 for a bad one (a good time has no sign), NULL before any.
_ROWS = r"""
select sample_unix_s,
    case when kind = 'interface' and len(f) = 16
              and regexp_matches(line, '{interface_line}')
         then trim(substring(line, 1, instr(line, ':') - 1)) end as interface,
    {counters},
    line_no as source_line
from (
    select line_no, line, kind, sample_unix_s,
        case when kind = 'interface' then list_filter(
            string_split(substring(line, instr(line, ':') + 1), ' '), lambda x: x <> '') end as f
    from (
        select line_no, line, kind, own_time,
            case when last_sample >= 0 then last_sample end as sample_unix_s,
            last_sample is not null as sampled
        from (
            select line_no, line, kind, own_time,
                last_value(case when kind = 'sample' then coalesce(own_time, -1) end ignore nulls)
                    over (rows between unbounded preceding and current row) as last_sample
            from ({kinds})
        )
    )
    where kind = 'interface' or kind = 'other'
        or (kind = 'sample' and own_time is null)
        or (kind = 'header' and sampled)
        or (kind = 'columns' and not sampled)
)
""".replace("{interface_line}", INTERFACE_LINE).replace("{counters}", ",\n    ".join(
    f"try_cast(f[{p}] as ubigint) as {name}" for p, name in zip(_POSITIONS, COUNTERS)))

# One scan of the written file: its first bad row (if any) and its row count.
_WRITTEN = """
select min(source_line) filter (where sample_unix_s is null or interface is null or {nulls}),
    count(*)
from read_parquet({written})
""".replace("{nulls}", " or ".join(f"{name} is null" for name in COUNTERS))

# Only when no row was written: why (an empty file, or headers and no sample).
_NO_ROWS = """
select count(*) filter (where kind = 'header'), max(line_no) filter (where kind = 'header'),
    count(*) filter (where kind = 'sample')
from ({kinds})
"""

def _listed(paths) -> str:
    """A DuckDB list literal of file paths."""
    return "[" + ", ".join(literal(str(p)) for p in paths) + "]"


def rows_sql(source: Path) -> str:
    """The rows of one capture (or one byte range of it, through its FIFO), in one pass."""
    return _ROWS.replace("{kinds}", _KINDS.replace("{lines}", lines_sql(source)))


class Streamed:
    """One capture being parsed on a connection. A small capture is one pass: ``select`` is
    its rows. A big one (``sharded``) is parsed by ``write_shards``, one byte range per thread.
    ``check`` rejects what was written at the first line that breaks the format."""

    def __init__(self, path: Path, con: duckdb.DuckDBPyConnection):
        self.path, self.con = Path(path), con
        con.execute("set enable_progress_bar = false")
        con.execute(f"set memory_limit = '{MEMORY_LIMIT}'")
        con.execute(f"set temp_directory = {literal(tempfile.gettempdir())}")
        threads = int(con.execute("select current_setting('threads')").fetchall()[0][0])
        parts = max(1, min(threads, self.path.stat().st_size // RANGE_BYTES))
        self.ranges = byte_ranges.cut(self.path, parts, b"@") if parts > 1 else []
        self.sharded = len(self.ranges) > 1
        self.select = rows_sql(self.path)

    def write_shards(self, folder: Path, typed=lambda sql: sql) -> list[int]:
        """Parse each byte range on its own thread (a cursor of the same database, reading its
        own FIFO) into ``folder/<range>.parquet``, its line numbers made the file's by the lines
        of the ranges before it (counted here while the earlier ranges are parsed);
        ``typed(select)`` is what each range writes. Returns each shard's row count."""
        counts = [0] * len(self.ranges)
        errors: dict[int, tuple[BaseException, int]] = {}

        def parse(k: int, feeder: byte_ranges.Feeder, sql: str, offset: int) -> None:
            cur = self.con.cursor()
            try:
                cur.execute("set enable_progress_bar = false")
                shard = literal(str(Path(folder) / f"{k:04d}.parquet"))
                counts[k] = cur.execute(f"copy ({sql}) to {shard} (format parquet)").fetchall()[0][0]
            except BaseException as exc:  # re-raised on the calling thread below
                errors[k] = (exc, offset)
            finally:
                cur.close()
                feeder.release()

        with tempfile.TemporaryDirectory(prefix="netdev-ranges-") as fifos:
            workers, feeders, offset = [], [], 0
            try:
                for k, (start, end) in enumerate(self.ranges):
                    feeder = byte_ranges.Feeder(self.path, start, end, Path(fifos), f"range{k}")
                    feeders.append(feeder)
                    sql = typed(f"select * replace (source_line + {offset} as source_line) "
                                f"from ({rows_sql(feeder.fifo)})")
                    worker = threading.Thread(target=parse, args=(k, feeder, sql, offset),
                                              name=f"netdev-range{k}")
                    worker.start()
                    workers.append(worker)
                    if k < len(self.ranges) - 1:
                        offset += byte_ranges.count_lines(self.path, start, end)
            finally:
                for worker in workers:
                    worker.join()
                for feeder in feeders:
                    feeder.release()
                    feeder.join()
        if errors:
            exc, offset = errors[min(errors)]
            if isinstance(exc, (duckdb.InvalidInputException, duckdb.ConversionException)):
                raise refusals.unreadable(self.path, exc, offset) from None
            raise exc
        return counts

    def unreadable(self, exc: duckdb.Error) -> ParseError:
        return refusals.unreadable(self.path, exc)

    def check(self, written: Path | list[Path]) -> None:
        con, path = self.con, self.path
        files = _listed([written] if isinstance(written, (str, Path)) else written)
        bad_row, rows = con.execute(_WRITTEN.format(written=files)).fetchall()[0]
        if bad_row is not None:
            sampled = con.execute(
                f"select sample_unix_s is not null from read_parquet({files}) "
                "where source_line = ?", [bad_row]).fetchall()[0][0]
            line = refusals.line_text(path, bad_row)
            code = refusals.problem(line, sampled)
            raise ParseError(path, bad_row, refusals.EXPECTED[code], refusals.found_text(code, line))
        if rows:
            return
        headers, last_header, samples = con.execute(
            _NO_ROWS.format(kinds=_KINDS.replace("{lines}", lines_sql(path)))).fetchall()[0]
        if not headers and not samples:
            raise ParseError(path, 1, "a /proc/net/dev capture", "an empty file")
        if not samples:
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
            if rows.sharded:
                written = [Path(tmp) / f"{k:04d}.parquet"
                           for k in range(len(rows.write_shards(Path(tmp))))]
            else:
                written = [Path(tmp) / "rows.parquet"]
                try:
                    con.execute(f"copy ({rows.select}) to {literal(str(written[0]))} "
                                "(format parquet)")
                except (duckdb.InvalidInputException, duckdb.ConversionException) as exc:
                    raise rows.unreadable(exc) from None
            rows.check(written)
            return con.execute(f"select * from read_parquet({_listed(written)}) "
                               "order by source_line").df()
        finally:
            if own:
                con.close()


FORMAT = Format(
    name="netdev",
    table="raw_netdev",
    version=3,
    columns={"sample_unix_s": "DOUBLE", "interface": "VARCHAR",
             **{name: "UBIGINT" for name in COUNTERS}},
    parse=parse,
    stream=stream,
    description="/proc/net/dev counters per 50 Hz sample and interface (streamed through DuckDB "
                "read_csv into Parquet).",
    kinds=("duckdb",),
)
