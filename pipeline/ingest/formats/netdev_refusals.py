"""Why a ``/proc/net/dev`` capture is refused, in words: the first bad row that the netdev
parser's SQL wrote (netdev.py), or the line DuckDB could not read, named by number with
what was expected and what was found."""
from __future__ import annotations

from pathlib import Path

import duckdb

from pipeline.ingest.base import ParseError, lines_strict

EXPECTED = {
    "unknown_line": "a /proc/net/dev line ('Inter-|', ' face |' or '<iface>: <16 counters>')",
    "before_sample": "a '#' header or '@ <unix seconds>' sample line before /proc/net/dev text",
    "late_header": "'#' header lines only before the first sample",
    "bad_sample": "a sample line '@ <unix seconds>'",
    "field_count": "an interface line '<iface>: <16 counters>'",
    "colon_in_name": "an interface name without ':' (the kernel refuses one, net/core/dev.c "
                     "dev_valid_name(), so /proc/net/dev never shows an alias like eth0:1)",
    "non_numeric": "numeric counters",
    "overflow": "counters below 2^64",
}


def found_text(problem: str, line: str) -> str:
    shown = repr(line.strip()[:100])
    fields = line.split(":", 1)[-1].split()
    if problem == "colon_in_name":
        return f"the name {line.rsplit(':', 1)[0].strip()!r} in {shown}"
    if problem == "field_count":
        return f"{len(fields)} fields in {shown}"
    if problem == "non_numeric":
        bad = next(f for f in fields if not f.isdigit())
        return f"{bad!r} in {shown}"
    return shown


def problem(line: str, after_sample: bool) -> str:
    """Why a line was written as a bad row (the same tests as netdev's ``_KINDS`` and ``_ROWS``)."""
    if line.startswith("@"):
        return "bad_sample"
    if line.startswith("#"):
        return "late_header"
    if ":" not in line:
        return "before_sample" if line.lstrip().startswith(("Inter-|", "face |")) else "unknown_line"
    name, _, rest = line.partition(":")
    name, fields = name.strip(), [f for f in rest.split(" ") if f]
    if not name or " " in name or "\t" in name:
        return "unknown_line"
    if not after_sample:
        return "before_sample"
    counters = rest.rsplit(":", 1)[-1]    # '<a name with ':'>: <16 counters>'
    if ":" in rest and len(counters.split()) == 16 and not counters.strip(" 0123456789"):
        return "colon_in_name"
    if len(fields) != 16:
        return "field_count"
    if any(c not in "0123456789 " for c in rest):
        return "non_numeric"
    return "overflow"


def line_text(path: Path, number: int) -> str:
    return next(text for n, text in lines_strict(path) if n == number)


# DuckDB's read_csv refuses a line of this many bytes or more (its newline not counted;
# measured on DuckDB 1.x, tests/ingest/formats/netdev/test_netdev_messages.py), and in some states of its reader (such
# a line ending in CR LF) says so without a line number: the line is found here instead
LINE_LIMIT_BYTES = 2_000_000


def unreadable(path: Path, exc: duckdb.Error, offset: int = 0) -> ParseError:
    """Why DuckDB could not read the lines, as a ParseError naming the line."""
    too_long = None
    for n, text in lines_strict(path):  # names the line and column of the first undecodable byte
        if too_long is None and len(text) >= LINE_LIMIT_BYTES // 4 \
                and len(text.encode("utf-8")) >= LINE_LIMIT_BYTES:
            too_long = (n, text)
    if too_long is not None:
        n, text = too_long
        return ParseError(path, n, "a /proc/net/dev capture (text lines)",
                          f"{text[:60]!r}… ({len(text.encode('utf-8')):,} bytes; DuckDB reads lines "
                          f"shorter than {LINE_LIMIT_BYTES:,})")
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
