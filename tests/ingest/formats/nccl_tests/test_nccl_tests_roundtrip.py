"""Property-based round trips of nccl-tests tables: tables printed from random values the way
nccl-tests prints them parse back to exactly those values; cut short, or given a foreign line
or a bad field, they give a ParseError naming a line, never a crash or a wrong value.

nccl-tests: the row's lead columns ``%12li  %12li  %8s`` (size, count, type), then ``  %6s`` (redop)
and ``  %6i`` (root) where the layout has them; each half ``  %7s  %6.2f  %6.2f  %5g`` (time, algbw,
busbw, #wrong) or, up to v2.11, ``%5.0le`` (the maximum error), ``N/A`` when not checked; the time
string is ``%7.0f`` from 10000 us, ``%7.1f`` from 100 us, ``%7.2f`` below (src/common.cu); v2.17+
``-Z`` ends each row with ``%Y-%m-%d %H:%M:%S``; footer ``# Out of bounds values : %d %s`` and
``# Avg bus bandwidth    : %g``; ``mpirun --tag-output`` puts ``[1,0]<stdout>:`` before each line."""
from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pipeline.ingest.base import ParseError
from pipeline.ingest.formats import nccl_tests

from parser_cases import assert_named
from roundtrip import SETTINGS


def _write(tmp_path: Path, data, name="run.json") -> Path:
    path = tmp_path / name
    path.write_bytes(data if isinstance(data, bytes) else data.encode())
    return path


LAYOUTS = {   # name: (lead columns after size count type, check column, timestamp, time column)
    "v2.11 sendrecv": ((), "error", False, "time"),
    "v2.11 all_reduce": (("redop",), "error", False, "time"),
    "v2.11 reduce": (("redop", "root"), "error", False, "time"),
    "current": (("redop", "root"), "#wrong", False, "time"),
    "v2.17 -Z": (("redop", "root"), "#wrong", True, "time"),
    "v2.17 -C": (("redop", "root"), "#wrong", False, "cputime"),
}


def _time_us(draw):
    """A time as nccl-tests prints it: whole us from 10000, tenths from 100, hundredths below."""
    bucket = draw(st.sampled_from(["fine", "tenths", "whole"]))
    if bucket == "fine":
        return draw(st.integers(1, 9999)) / 100
    if bucket == "tenths":
        return draw(st.integers(1000, 99999)) / 10
    return float(draw(st.integers(10000, 10**9)))


def _time_str(us: float) -> str:
    return "%7.0f" % us if us >= 10000 else "%7.1f" % us if us >= 100 else "%7.2f" % us


@st.composite
def nccl_runs(draw):
    name = draw(st.sampled_from(sorted(LAYOUTS)))
    extra, check, stamp, time_name = LAYOUTS[name]
    tag = draw(st.booleans())
    sizes = draw(st.lists(st.integers(0, 2**40), min_size=1, max_size=4, unique=True))
    cycles = draw(st.integers(1, 3))
    dtype = draw(st.sampled_from(["float", "half", "int8", "bfloat16"]))
    redop = draw(st.sampled_from(["sum", "prod", "max", "none"])) if "redop" in extra else None
    root = draw(st.integers(-1, 7)) if "root" in extra else None
    names = ["size", "count", "type", *extra] + [time_name, "algbw", "busbw", check] * 2
    header = "#" + "".join(f"{n:>9}" for n in names) + ("  timestamp" if stamp else "")
    lines = ["# nThread 1 nGpus 1 minBytes 8 maxBytes 8 step: 2(factor) warmup iters: 5 iters: 20",
             "#", "#  Rank  0 Group  0 Pid   1 on a device  0 [0x00] GPU",
             "#" + " " * 62 + "out-of-place" + " " * 23 + "in-place", header,
             "#        (B)    (elements)" + " " * 31 + "(us)  (GB/s)  (GB/s)"]
    expected = []
    for cycle in range(1, cycles + 1):
        for size in sizes:
            count = size // 4
            row = "%12li  %12li  %8s" % (size, count, dtype)
            if redop is not None:
                row += "  %6s" % redop
            if root is not None:
                row += "  %6i" % root
            line_no = len(lines) + 1
            for placement in ("out-of-place", "in-place"):
                us = _time_us(draw)
                algbw, busbw = (draw(st.integers(0, 10**6)) / 100 for _ in range(2))
                wrong = error = None
                if draw(st.booleans()):         # the data were checked
                    if check == "#wrong":
                        wrong = draw(st.integers(0, 999_999))
                        mark = "%5g" % wrong
                    else:                       # one significant digit, as %5.0le prints it
                        error = draw(st.integers(0, 9)) * 10.0 ** -draw(st.integers(1, 15))
                        mark = "%5.0e" % error
                else:
                    mark = "%5s" % "N/A"
                row += "  %7s  %6.2f  %6.2f  %s" % (_time_str(us), algbw, busbw, mark)
                expected.append({
                    "size_bytes": size, "count": count, "type": dtype, "redop": redop, "root": root,
                    "placement": placement, "cycle": cycle, "time_s": pytest.approx(us / 1e6, rel=1e-12),
                    "algbw_bytes_per_s": pytest.approx(algbw * 1e9, rel=1e-12),
                    "busbw_bytes_per_s": pytest.approx(busbw * 1e9, rel=1e-12),
                    "wrong_count": wrong,
                    "max_error": None if error is None else pytest.approx(error, rel=1e-12),
                    "layout": "pre-2.13" if check == "error" else "current", "source_line": line_no})
            if stamp:
                row += "  2026-%02d-%02d 12:00:%02d" % (draw(st.integers(1, 12)), draw(st.integers(1, 28)),
                                                       draw(st.integers(0, 59)))
            lines.append(row)
    lines += ["# Out of bounds values : 0 OK", "# Avg bus bandwidth    : %g " % 1.5, "#"]
    if tag:
        lines = ["[1,0]<stdout>:" + line for line in lines]
    return "\n".join(lines) + "\n", expected


@SETTINGS
@given(nccl_runs())
def test_nccl_tests_parse_back_every_layout(tmp_path, run):
    text, expected = run
    rows = nccl_tests.parse(_write(tmp_path, text, "perf.log"))
    assert all(row[fact] is None for row in rows for fact in nccl_tests.FACTS)   # no NCCL lines
    assert [{k: row[k] for k in expected[0]} for row in rows] == expected


@SETTINGS
@given(nccl_runs(), st.integers(0, 10**9))
def test_nccl_tests_cut_short_is_an_error_or_the_whole_table(tmp_path, run, where):
    text, expected = run
    data = text.encode()
    cut = data[: where % len(data)]
    try:
        rows = nccl_tests.parse(_write(tmp_path, cut, "perf.log"))
    except ParseError as exc:
        assert_named(exc, tmp_path / "perf.log")
        assert exc.line is not None and 1 <= exc.line <= cut.count(b"\n") + 1
        return
    # only a cut inside the footer's value (or after it) leaves a complete table
    assert b"Avg bus bandwidth    : 1" in cut
    assert [{k: row[k] for k in expected[0]} for row in rows] == expected


@SETTINGS
@given(nccl_runs(), st.text("abcdefghijklmnopqrstuvwxyz =!?", min_size=1, max_size=30), st.integers(0, 10**6))
def test_nccl_tests_a_foreign_line_in_the_table_is_named(tmp_path, run, junk, at):
    text, expected = run
    lines = text.splitlines(keepends=True)
    first, last = expected[0]["source_line"], expected[-1]["source_line"]
    at = first + at % (last - first + 1)                 # among the result rows (1-based)
    lines.insert(at - 1, "x" + junk.replace("NCCL", "nccl") + "\n")
    with pytest.raises(ParseError) as info:
        nccl_tests.parse(_write(tmp_path, "".join(lines), "perf.log"))
    assert_named(info.value, tmp_path / "perf.log")
    assert info.value.line == at


# what each field's error says it expected (the parser's words, the user-facing contract)
FIELD_EXPECTED = {"time": "a time in us", "algbw": "algbw in GB/s", "busbw": "busbw in GB/s",
                  "#wrong": "an error count or N/A", "error": "an error count or N/A",
                  "root": "a root rank"}


@SETTINGS
@given(nccl_runs(), st.integers(0, 10**6), st.integers(0, 10**6), st.sampled_from(["x", "1.2.3", "--", "0x1g"]))
def test_nccl_tests_a_bad_field_is_named_with_its_column(tmp_path, run, which_row, which_field, junk):
    text, expected = run
    lines = text.splitlines(keepends=True)
    line_no = expected[2 * (which_row % (len(expected) // 2))]["source_line"]
    header = next(l for l in lines if "size" in l and "count" in l and "type" in l)
    names = header.split("#", 1)[1].split()
    names = [n for n in names if n != "timestamp"]
    row = lines[line_no - 1]
    tag = row[: row.index(">:") + 2] if row.startswith("[") else ""
    tokens = row[len(tag):].split()
    # a field past the three lead columns (size, count and type are what make a row a row)
    candidates = [i for i, n in enumerate(names) if n in FIELD_EXPECTED]
    i = candidates[which_field % len(candidates)]
    tokens[i] = junk
    lines[line_no - 1] = tag + "  ".join(tokens) + "\n"
    path = _write(tmp_path, "".join(lines), "perf.log")
    with pytest.raises(ParseError) as info:
        nccl_tests.parse(path)
    assert_named(info.value, path)
    assert (info.value.line, info.value.expected, info.value.found) == \
        (line_no, FIELD_EXPECTED[names[i]], repr(junk))


@SETTINGS
@given(nccl_runs().filter(lambda run: "timestamp" in run[0]), st.integers(0, 10**6))
def test_nccl_tests_a_bad_timestamp_is_named(tmp_path, run, which_row):
    text, expected = run
    lines = text.splitlines(keepends=True)
    line_no = expected[2 * (which_row % (len(expected) // 2))]["source_line"]
    tokens = lines[line_no - 1].split()
    tokens[-2] = "26-1-1"
    lines[line_no - 1] = "  ".join(tokens) + "\n"
    path = _write(tmp_path, "".join(lines), "perf.log")
    with pytest.raises(ParseError) as info:
        nccl_tests.parse(path)
    assert_named(info.value, path)
    assert (info.value.line, info.value.expected, info.value.found) == \
        (line_no, "a timestamp 'YYYY-MM-DD HH:MM:SS' at the end", repr(f"26-1-1 {tokens[-1]}"))
