"""Property-based round trips of /proc/net/dev captures: samples printed from random values
through the kernel's ``dev_seq_printf_stats`` (net/core/net-procfs.c) parse back to exactly
those values; cut short, given a foreign line or undecodable bytes, a capture gives a
ParseError naming a line, never a crash or a wrong value."""
from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pipeline.ingest.base import ParseError
from pipeline.ingest.formats import netdev

from parser_cases import assert_named
from roundtrip import SETTINGS

KERNEL = "%6s: %7d %7d %4d %4d %4d %5d %10d %9d %8d %7d %4d %4d %4d %5d %7d %10d\n"


TITLES = ("Inter-|   Receive                                                |  Transmit\n"
          " face |bytes    packets errs drop fifo frame compressed multicast"
          "|bytes    packets errs drop fifo colls carrier compressed\n")


U64 = 2**64 - 1


counter = st.one_of(st.integers(0, U64), st.sampled_from([0, 2**32 - 1, 2**32, 2**32 + 1, U64]))


name = st.text("abcdefghijklmnopqrstuvwxyz0123456789.-_", min_size=1, max_size=15)


sample = st.tuples(
    st.integers(0, 4_000_000_000_000_000).map(lambda us: us / 1e6),   # time, 6 decimals
    st.dictionaries(name, st.lists(counter, min_size=16, max_size=16), max_size=4))


captures = st.lists(sample, min_size=1, max_size=6)


def _print(samples) -> tuple[str, list[tuple]]:
    """The capture's text and the rows it must parse to (time, iface, 8 counters, line)."""
    lines = ["# procnetdev-capture v1\n", "# host=h rate_hz=50\n"]
    rows = []
    for t, ifaces in samples:
        lines.append(f"@ {t:.6f}\n")
        lines.extend(TITLES.splitlines(keepends=True))
        for iface, c in ifaces.items():
            lines.append(KERNEL % (iface, *c))
            rows.append((float(f"{t:.6f}"), iface, *(c[p - 1] for p in (1, 2, 3, 4, 9, 10, 11, 12)),
                         len(lines)))
    return "".join(lines), rows


def _rows(frame) -> list[tuple]:
    return [(r.sample_unix_s, r.interface, *(int(getattr(r, c)) for c in netdev.COUNTERS),
             int(r.source_line)) for r in frame.itertuples()]


def _write(tmp_path: Path, data) -> Path:
    path = tmp_path / "capture.netdev"
    path.write_bytes(data if isinstance(data, bytes) else data.encode())
    return path


@SETTINGS
@given(captures)
def test_netdev_parses_back_what_the_kernel_printed(tmp_path, samples):
    text, rows = _print(samples)
    assert _rows(netdev.parse(_write(tmp_path, text))) == rows


@SETTINGS
@given(captures, st.integers(1, 10**9))
def test_netdev_cut_short_is_an_error_or_a_prefix_of_the_truth(tmp_path, samples, where):
    text, rows = _print(samples)
    cut = text.encode()[: where % (len(text) + 1)]
    try:
        got = _rows(netdev.parse(_write(tmp_path, cut)))
    except ParseError as exc:
        # the line it names is in the file, or the one after its end (a sample expected there)
        assert_named(exc, tmp_path / "capture.netdev")
        assert 1 <= exc.line <= len(cut.splitlines()) + 1
        return
    # a cut inside the last (unstored) counter of a line leaves the stored ones intact
    assert got == rows[:len(got)]


@SETTINGS
@given(captures, st.text("abcdefghijklmnopqrstuvwxyz =!?", min_size=1, max_size=40), st.integers(0, 100))
def test_netdev_a_foreign_line_is_named_by_number(tmp_path, samples, junk, at):
    text, _ = _print(samples)
    lines = text.splitlines(keepends=True)
    if not junk.strip() or junk.lstrip().startswith(("face |", "Inter-|")):
        return
    at = 2 + at % (len(lines) - 1)                     # after the header, 1-based line number
    lines.insert(at - 1, "x" + junk + "\n")            # no ':', not a title: unknown to the format
    with pytest.raises(ParseError) as info:
        netdev.parse(_write(tmp_path, "".join(lines)))
    assert_named(info.value, tmp_path / "capture.netdev")
    assert info.value.line == at


@SETTINGS
@given(captures, st.binary(min_size=1, max_size=4).filter(lambda b: _not_utf8(b)), st.integers(0, 100))
def test_netdev_undecodable_bytes_name_their_line(tmp_path, samples, junk, at):
    text, _ = _print(samples)
    lines = [line.encode() for line in text.splitlines(keepends=True)]
    at = 1 + at % len(lines)
    lines[at - 1] = junk + lines[at - 1]
    with pytest.raises(ParseError) as info:
        netdev.parse(_write(tmp_path, b"".join(lines)))
    assert_named(info.value, tmp_path / "capture.netdev")
    assert info.value.line == at and "UTF-8" in str(info.value)


def _not_utf8(b: bytes) -> bool:
    try:
        b.decode("utf-8")
    except UnicodeDecodeError:
        return b"\n" not in b
    return False
