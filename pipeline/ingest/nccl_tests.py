"""nccl-tests performance output (``sendrecv_perf``, ``all_reduce_perf`` …): one row per result.

No library parses this table, so this is a hand parser of the text that
nccl-tests prints (NVIDIA/nccl-tests, src/common.cu):

* the column header, ``print_header()``::

      #       size         count      type   redop    root     time   algbw   busbw #wrong     time ...
      #        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us) ...

  Before nccl-tests 2.13 there is no ``root`` column and the last column of each
  half is ``error`` (max deviation, ``%5.0le``) instead of ``#wrong`` (``%5g``);
* one row per size, ``PRINT("%12li  %12li  %8s  %6s  %6s", size, count, type, redop, root)``
  then, for out-of-place and then in-place, ``"  %7s  %6.2f  %6.2f  %5s"`` with the time in
  microseconds (``%7.0f`` at or above 10 ms, else ``%7.1f``/``%7.2f``), algbw and busbw in
  GB/s (10^9 bytes/s) and the error count (``N/A`` when not checked).
  With ``-N <cycles>`` the size loop is printed again for each cycle;
* the footer ``# Out of bounds values : 0 OK`` / ``# Avg bus bandwidth    : 1.18834``.

Each row is split into two records, one per placement. ``cycle`` numbers the
repetitions of the same size within the file (1-based), so repeated cycles stay
distinct measurements. NCCL's own ``NCCL INFO``/``NCCL WARN`` lines (``NCCL_DEBUG``)
and anything before the header (mpirun banners) are ignored; a file without the
footer is a truncated run and is rejected.
"""
from __future__ import annotations

import re
from pathlib import Path

from .base import Format, ParseError, read_text_strict, require_nonempty

_HEADER = re.compile(r"^#\s+size\s+count\s+type\s+redop\s+(.*)$")
_ROW = re.compile(r"^\s*\d+\s+\d+\s")
_FOOTER = re.compile(r"^#\s*Avg bus bandwidth\s*:\s*(\S+)")
_NCCL_LOG = re.compile(r"\bNCCL (INFO|WARN)\b")

# Header tail (after redop) -> layout, number of fixed leading fields.
_LAYOUTS = {
    ("root", "time", "algbw", "busbw", "#wrong", "time", "algbw", "busbw", "#wrong"): ("current", 5),
    ("time", "algbw", "busbw", "error", "time", "algbw", "busbw", "error"): ("pre-2.13", 4),
}


def _number(path, line_no, token, what):
    try:
        return float(token)
    except ValueError:
        raise ParseError(path, line_no, what, repr(token)) from None


def _check_value(path, line_no, token, layout):
    """#wrong is an integer count, error a float; both may be N/A (no data check)."""
    if token == "N/A":
        return None, None
    value = _number(path, line_no, token, "an error count or N/A")
    return (int(value), None) if layout == "current" else (None, value)


def parse(path: Path) -> list[dict]:
    text = read_text_strict(path)
    require_nonempty(path, text)
    layout = lead = None
    cycles: dict[int, int] = {}
    rows: list[dict] = []
    footer = False
    for line_no, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        header = _HEADER.match(stripped)
        if header:
            tail = tuple(header.group(1).split())
            if tail not in _LAYOUTS:
                raise ParseError(path, line_no, "an nccl-tests column header (root … #wrong, or "
                                 "the pre-2.13 … error layout)", repr(stripped))
            layout, lead = _LAYOUTS[tail]
            continue
        if _FOOTER.match(stripped):
            footer = True
            continue
        if not stripped or stripped.startswith("#") or _NCCL_LOG.search(line):
            continue
        if layout is None:
            continue                      # launcher output before the table
        if footer:
            raise ParseError(path, line_no, "nothing after the 'Avg bus bandwidth' footer",
                             repr(stripped[:60]))
        tokens = stripped.split()
        if not _ROW.match(line) or len(tokens) != lead + 8:
            raise ParseError(path, line_no, f"a result row of {lead + 8} fields ({layout} layout)",
                             f"{len(tokens)} field(s): {stripped[:60]!r}")
        size = int(tokens[0])
        cycles[size] = cycles.get(size, 0) + 1
        root = int(_number(path, line_no, tokens[4], "a root rank")) if lead == 5 else None
        for placement, start in (("out-of-place", lead), ("in-place", lead + 4)):
            time_us = _number(path, line_no, tokens[start], "a time in us")
            algbw = _number(path, line_no, tokens[start + 1], "algbw in GB/s")
            busbw = _number(path, line_no, tokens[start + 2], "busbw in GB/s")
            wrong, error = _check_value(path, line_no, tokens[start + 3], layout)
            if time_us <= 0:
                raise ParseError(path, line_no, "a positive time", tokens[start])
            rows.append({
                "size_bytes": size, "count": int(tokens[1]), "type": tokens[2],
                "redop": tokens[3], "root": root, "placement": placement, "cycle": cycles[size],
                "time_s": time_us / 1e6, "algbw_bytes_per_s": algbw * 1e9,
                "busbw_bytes_per_s": busbw * 1e9, "wrong_count": wrong, "max_error": error,
                "layout": layout, "source_line": line_no,
            })
    if layout is None:
        raise ParseError(path, 1, "an nccl-tests column header ('#  size  count  type  redop …')",
                         "none in the file")
    if not rows:
        raise ParseError(path, None, "at least one result row", "none after the header")
    if not footer:
        raise ParseError(path, len(text.splitlines()),
                         "the '# Avg bus bandwidth' footer (a complete run)", "end of file")
    return rows


FORMAT = Format(
    name="nccl_tests",
    table="raw_nccl_tests",
    version=1,
    columns={
        "size_bytes": "BIGINT", "count": "BIGINT", "type": "VARCHAR", "redop": "VARCHAR",
        "root": "INTEGER", "placement": "VARCHAR", "cycle": "INTEGER", "time_s": "DOUBLE",
        "algbw_bytes_per_s": "DOUBLE", "busbw_bytes_per_s": "DOUBLE", "wrong_count": "BIGINT",
        "max_error": "DOUBLE", "layout": "VARCHAR",
    },
    parse=parse,
    description="nccl-tests results (e.g. sendrecv_perf): one row per size, cycle and placement.",
)
