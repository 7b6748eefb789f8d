"""50 Hz ``/proc/net/dev`` captures: one row per sample × interface, parsed in DuckDB.

Format (raw_data/README.md, "procnetdev-capture v1"): ``#`` header lines, then
per sample a line ``@ <unix seconds>`` followed by the unmodified text of
``/proc/net/dev`` — two column-title lines (``Inter-|`` and `` face |``) and one
line per interface as the kernel prints it (net/core/net-procfs.c,
``dev_seq_printf_stats``: ``"%6s: %7llu %7llu %4llu %4llu %4llu %5llu %10llu
%9llu %8llu %7llu %4llu %4llu %4llu %5llu %7llu %10llu"``, i.e. the name and 16
counters: rx bytes packets errs drop fifo frame compressed multicast, then tx
bytes packets errs drop fifo colls carrier compressed).

An hour at 50 Hz is ~1M lines, so the file never becomes Python objects line by
line: DuckDB reads it (``read_text``), splits it into numbered lines and
extracts the fields with regular expressions; the result comes back as one
DataFrame. Each interface line takes its sample time from the nearest ``@``
line above it (a window over the line numbers).

Rows: ``sample_unix_s``, ``interface``, rx/tx ``bytes``, ``packets``, ``errs``,
``drop`` (UBIGINT, as the kernel's u64 counters) and ``source_line`` = the
interface line. The first malformed line rejects the file, by number. Counter
wraps, resets and out-of-order samples are facts about the capture, handled in
SQL downstream, not errors here.
"""
from __future__ import annotations

from pathlib import Path

import duckdb
import pandas as pd

from pipeline.ingest.base import Format, ParseError, read_text_strict

COUNTERS = ("rx_bytes", "rx_packets", "rx_errs", "rx_drop",
            "tx_bytes", "tx_packets", "tx_errs", "tx_drop")
# 1-based positions of COUNTERS among the 16 fields of an interface line.
_POSITIONS = (1, 2, 3, 4, 9, 10, 11, 12)

_LINES = """
create table lines as
with src as (select string_split(content, chr(10)) as l from read_text($path))
select unnest(l) as line, unnest(generate_series(1, len(l))) as line_no from src
"""

# Cheap string tests classify every line; regular expressions then run only on
# the lines of their kind, in their own tables (an hour at 50 Hz parses in ~5 s).
_KINDS = r"""
create table kinds as
with classified as (
    select line_no, line,
        case
            when trim(line) = '' then 'blank'
            when starts_with(line, '#') then 'header'
            when starts_with(line, '@') then 'sample'
            when starts_with(ltrim(line), 'Inter-|') or starts_with(ltrim(line), 'face |') then 'columns'
            when regexp_matches(line, '^\s*[^\s:]+:') then 'interface'
            else 'other'
        end as kind
    from lines
)
select line_no, line, kind,
    -- the sample a line belongs to: the last '@' line at or above it
    max(case when kind = 'sample' then line_no end)
        over (order by line_no rows between unbounded preceding and current row) as sample_line
from classified
"""

_SAMPLES = r"""
create table samples as
select line_no,
    try_cast(regexp_extract(line, '^@ ([0-9]+(\.[0-9]+)?)\s*$', 1) as double) as sample_unix_s
from kinds
where kind = 'sample'
"""

_IFACES = r"""
create table ifaces as
select line_no, sample_line, interface, len(fields) as n_fields,
    regexp_full_match(line, '\s*[^\s:|]+:\s*[0-9]+(\s+[0-9]+){{15}}\s*') as numeric_ok,
    {counters}
from (
    select line_no, line, sample_line,
        trim(line[:instr(line, ':') - 1]) as interface,
        regexp_extract_all(line[instr(line, ':') + 1:], '\S+') as fields
    from kinds
    where kind = 'interface'
)
""".format(counters=",\n    ".join(
    f"try_cast(fields[{p}] as ubigint) as {name}" for p, name in zip(_POSITIONS, COUNTERS)))

# The first line that breaks the format, by line number.
_FIRST_PROBLEM = """
select line_no, problem from (
    select line_no,
        case
            when kind = 'other' then 'unknown_line'
            when sample_line is null and kind in ('columns', 'interface') then 'before_sample'
            when sample_line is not null and kind = 'header' then 'late_header'
        end as problem
    from kinds
    union all
    select line_no, 'bad_sample' from samples where sample_unix_s is null
    union all
    select line_no,
        case
            when n_fields <> 16 then 'field_count'
            when not numeric_ok then 'non_numeric'
            when {overflow} then 'overflow'
        end
    from ifaces
)
where problem is not null
order by line_no
limit 1
""".format(overflow=" or ".join(f"{name} is null" for name in COUNTERS))

_ROWS = """
select s.sample_unix_s, i.interface, {counters}, i.line_no as source_line
from ifaces i
join samples s on s.line_no = i.sample_line
order by i.line_no
""".format(counters=", ".join(f"i.{name}" for name in COUNTERS))

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


def parse(path: Path) -> pd.DataFrame:
    path = Path(path)
    con = duckdb.connect()  # private in-memory database: parsing never touches the warehouse
    try:
        con.execute("set enable_progress_bar = false")
        try:
            con.execute(_LINES, {"path": str(path)})
        except duckdb.InvalidInputException:
            read_text_strict(path)  # names the line of the first undecodable byte
            raise
        con.execute(_KINDS)
        non_blank, samples, last_line = con.execute(
            "select count(*) filter (where kind <> 'blank'), count(*) filter (where kind = 'sample'),"
            " max(line_no) from kinds").fetchall()[0]
        if not non_blank:
            raise ParseError(path, 1, "a /proc/net/dev capture", "an empty file")
        con.execute(_SAMPLES)
        con.execute(_IFACES)
        problem = con.execute(_FIRST_PROBLEM).fetchall()
        if problem:
            line_no, code = problem[0]
            line = con.execute("select line from lines where line_no = ?", [line_no]).fetchall()[0][0]
            raise ParseError(path, line_no, _EXPECTED[code], _found(code, line))
        if not samples:
            raise ParseError(path, last_line, "an '@ <unix seconds>' sample line",
                             "only '#' header lines")
        return con.execute(_ROWS).df()
    finally:
        con.close()


FORMAT = Format(
    name="netdev",
    table="raw_netdev",
    version=1,
    columns={"sample_unix_s": "DOUBLE", "interface": "VARCHAR",
             **{name: "UBIGINT" for name in COUNTERS}},
    parse=parse,
    description="/proc/net/dev counters per 50 Hz sample and interface (DuckDB read_text + regexp).",
    kinds=("duckdb",),
)
