"""nccl-tests performance output (``sendrecv_perf``, ``all_reduce_perf`` …): one row per result.

The format and its variants, tool version by tool version: raw_data/FORMATS.md, "nccl_tests".
"""
from __future__ import annotations

import math
import re
from pathlib import Path

from pipeline.ingest.base import Format, ParseError, read_text_strict, require_nonempty
from pipeline.ingest.formats.nccl_debug import FACTS, LAUNCHER_PREFIX, scan_line

_HEADER = re.compile(r"^#\s+size\s+count\s+type\b(.*)$")
_FOOTER = re.compile(r"^#\s*Avg bus bandwidth\s*:\s*(\S+)")
# common.cu since 2.13: "# Collective test starting: %s" with the program's short name
_STARTING = re.compile(r"^#\s*Collective test starting:\s*(\S+)")
_NCCL_LOG = re.compile(r"\bNCCL (INFO|WARN)\b")
_TIMESTAMP = re.compile(r"^\d{4}-\d\d-\d\d$")
_LEADS = {"redop", "root"}
_HALF = ("time", "algbw", "busbw")
_ITER = ("i_min", "i_max", "i_p99", "i_cv%")


class _Layout:
    """Where each value sits in a row, read from the header line."""

    def __init__(self, path, line_no, names: list[str]):
        self.lead = ["size", "count", "type"]
        rest = list(names)
        while rest and rest[0] in _LEADS:
            self.lead.append(rest.pop(0))
        self.time_name = rest[0] if rest else None
        half = None
        for check in ("#wrong", "error"):
            for extra in ((), _ITER):
                candidate = [self.time_name, "algbw", "busbw", check, *extra]
                if rest[:len(candidate)] == candidate and rest[len(candidate):2 * len(candidate)] == candidate:
                    half = candidate
        if self.time_name not in ("time", "cputime") or half is None:
            raise ParseError(path, line_no, "an nccl-tests column header (size count type [redop] "
                             "[root], then time algbw busbw #wrong|error twice)",
                             repr(" ".join(["#", "size", "count", "type", *names])[:120]))
        self.half = half
        tail = rest[2 * len(half):]
        if tail not in ([], ["timestamp"]):
            raise ParseError(path, line_no, "nothing after the in-place columns but 'timestamp'",
                             repr(" ".join(tail)))
        self.timestamp = tail == ["timestamp"]
        self.check = half[3]
        self.layout = "current" if self.check == "#wrong" else "pre-2.13"

    @property
    def width(self) -> int:
        return len(self.lead) + 2 * len(self.half) + (2 if self.timestamp else 0)


def _number(path, line_no, token, what):
    """A number nccl-tests printed (%g/%f: finite; times, bandwidths and ranks it prints are not
    below -1): 'inf', 'nan' or a negative bandwidth is no measurement."""
    try:
        value = float(token)
    except ValueError:
        raise ParseError(path, line_no, what, repr(token)) from None
    if not math.isfinite(value):
        raise ParseError(path, line_no, f"{what} (a finite number)", repr(token))
    return value


def _check_value(path, line_no, token, layout: _Layout):
    """#wrong is an integer count, error a float; both may be N/A (no data check)."""
    if token == "N/A":
        return None, None
    value = _number(path, line_no, token, "an error count or N/A")
    return (int(value), None) if layout.check == "#wrong" else (None, value)


def _lines(text: str):
    for line_no, line in enumerate(text.splitlines(), start=1):
        yield line_no, LAUNCHER_PREFIX.sub("", line, count=1)


def parse(path: Path) -> list[dict]:
    text = read_text_strict(path)
    require_nonempty(path, text)
    layout: _Layout | None = None
    cycles: dict[int, int] = {}
    rows: list[dict] = []
    footer = False
    last_line = 0
    facts: dict = {}
    collective = None
    for line_no, line in _lines(text):
        last_line = line_no
        stripped = line.strip()
        starting = _STARTING.match(stripped)
        if starting:
            # "sendrecv_perf", "all_reduce_perf_mpi": the collective is the name before "_perf"
            collective = starting.group(1).split("_perf")[0]
            continue
        header = _HEADER.match(stripped)
        if header:
            layout = _Layout(path, line_no, header.group(1).split())
            continue
        if _FOOTER.match(stripped):
            footer = True
            continue
        if _NCCL_LOG.search(line) or stripped.startswith("NCCL version"):
            scan_line(line, facts)
            continue
        if not stripped or stripped.startswith("#"):
            continue
        if layout is None:
            continue                      # launcher output before the table
        if footer:
            raise ParseError(path, line_no, "nothing after the 'Avg bus bandwidth' footer",
                             repr(stripped[:60]))
        tokens = stripped.split()
        lead = len(layout.lead)
        if not re.match(r"^\d+$", tokens[0]) or len(tokens) != layout.width:
            raise ParseError(path, line_no, f"a result row of {layout.width} fields "
                             f"({layout.layout} layout: {' '.join(layout.lead)}, 2 x "
                             f"{' '.join(layout.half)}{', timestamp' if layout.timestamp else ''})",
                             f"{len(tokens)} field(s): {stripped[:60]!r}")
        values = dict(zip(layout.lead, tokens[:lead]))
        if layout.timestamp and not _TIMESTAMP.match(tokens[-2]):
            raise ParseError(path, line_no, "a timestamp 'YYYY-MM-DD HH:MM:SS' at the end",
                             repr(" ".join(tokens[-2:])))
        size = int(values["size"])
        cycles[size] = cycles.get(size, 0) + 1
        root = int(_number(path, line_no, values["root"], "a root rank")) if "root" in values else None
        for placement, start in (("out-of-place", lead), ("in-place", lead + len(layout.half))):
            time_us = _number(path, line_no, tokens[start], "a time in us")
            algbw = _number(path, line_no, tokens[start + 1], "algbw in GB/s")
            busbw = _number(path, line_no, tokens[start + 2], "busbw in GB/s")
            wrong, error = _check_value(path, line_no, tokens[start + 3], layout)
            if time_us <= 0:
                raise ParseError(path, line_no, "a positive time", tokens[start])
            if algbw < 0 or busbw < 0:
                raise ParseError(path, line_no, "algbw and busbw of at least 0",
                                 f"{tokens[start + 1]} and {tokens[start + 2]}")
            rows.append({
                "size_bytes": size, "count": int(values["count"]), "type": values["type"],
                "redop": values.get("redop"), "root": root, "placement": placement,
                "cycle": cycles[size], "time_s": time_us / 1e6, "algbw_bytes_per_s": algbw * 1e9,
                "busbw_bytes_per_s": busbw * 1e9, "wrong_count": wrong, "max_error": error,
                "layout": layout.layout, "source_line": line_no,
            })
    if layout is None:
        raise ParseError(path, 1, "an nccl-tests column header ('#  size  count  type …')",
                         "none in the file")
    if not rows:
        # the line where a row was expected and the file ended (tests/ingest/formats/nccl_tests/test_nccl_tests_roundtrip.py)
        raise ParseError(path, last_line, "at least one result row", "none after the header")
    if not footer:
        raise ParseError(path, last_line, "the '# Avg bus bandwidth' footer (a complete run)",
                         "end of file")
    found = {**dict.fromkeys(FACTS), **facts, "collective": collective}
    return [{**row, **found} for row in rows]


FORMAT = Format(
    name="nccl_tests",
    table="raw_nccl_tests",
    version=8,                  # 5: srun --label; 6: NCCL 2.4's bootstrap; 7: inf/nan refused
                                # 8: the collective ("# Collective test starting: …")
    columns={
        "size_bytes": "BIGINT", "count": "BIGINT", "type": "VARCHAR", "redop": "VARCHAR",
        "root": "INTEGER", "placement": "VARCHAR", "cycle": "INTEGER", "time_s": "DOUBLE",
        "algbw_bytes_per_s": "DOUBLE", "busbw_bytes_per_s": "DOUBLE", "wrong_count": "BIGINT",
        "max_error": "DOUBLE", "layout": "VARCHAR", "collective": "VARCHAR",
        # what NCCL_DEBUG=INFO lines interleaved with the table say it used (pipeline/ingest/formats/nccl_debug.py)
        **{name: "VARCHAR" for name in FACTS},
    },
    parse=parse,
    description="nccl-tests results (e.g. sendrecv_perf): one row per size, cycle and placement.",
)
