"""Property-based round trips of the p2p benchmark's JSON lines.

Writer: ``pipeline.collect.p2p_bench.record``. Random values printed the way the writer prints them parse back to exactly those values;
cut short or given undecodable bytes, a file gives a ParseError naming it and a line, or the
values it still holds."""
from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from pipeline.collect import p2p_bench
from pipeline.ingest.base import ParseError
from pipeline.ingest.formats import gloo_bench

from parser_cases import assert_named
from roundtrip import SETTINGS
from roundtrip import write_file as _write

records = st.lists(st.tuples(st.sampled_from(["gloo", "nccl"]), st.integers(2, 64), st.integers(0, 63),
                             st.integers(0, 63), st.sampled_from(["send", "recv"]), st.integers(1, 2**40),
                             st.sampled_from(["float32", "bfloat16"]), st.integers(0, 10**6),
                             st.integers(1, 10**12).map(lambda ns: ns / 1e9)), min_size=1, max_size=6)


@SETTINGS
@given(records)
def test_p2p_bench_lines_parse_back(tmp_path, recs):
    text = "".join(p2p_bench.record(*r) + "\n" for r in recs)
    rows = gloo_bench.parse(_write(tmp_path, text, "bench.jsonl"))
    names = list(gloo_bench.FORMAT.columns)
    assert [tuple(r[n] for n in names) for r in rows] == [tuple(r) for r in recs]
    assert [r["source_line"] for r in rows] == list(range(1, len(recs) + 1))


@SETTINGS
@given(records, st.integers(0, 10**9))
def test_p2p_bench_cut_short_is_an_error_or_the_lines_before(tmp_path, recs, where):
    data = "".join(p2p_bench.record(*r) + "\n" for r in recs).encode()
    cut = data[: where % len(data)]
    path = _write(tmp_path, cut, "bench.jsonl")
    try:
        rows = gloo_bench.parse(path)
    except ParseError as exc:
        assert_named(exc, path)
        assert exc.line == (cut.count(b"\n") + 1 if cut.strip() else 1)
        return
    # cut at a line's end (with or without its newline): the whole lines before, exactly
    names = list(gloo_bench.FORMAT.columns)
    assert len(rows) in (cut.count(b"\n"), cut.count(b"\n") + 1)
    assert [tuple(r[n] for n in names) for r in rows] == [tuple(r) for r in recs[:len(rows)]]
