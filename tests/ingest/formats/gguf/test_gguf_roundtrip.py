"""Property-based round trips of GGUF headers written by the ``gguf`` package's own writer. Random values printed the way the writer prints them parse back to exactly those values;
cut short or given undecodable bytes, a file gives a ParseError naming it and a line, or the
values it still holds."""
from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from pipeline.ingest.base import ParseError

from roundtrip import SETTINGS


def _gguf_values():
    import numpy as np
    f32 = st.floats(width=32, allow_nan=False, allow_infinity=False)
    return st.one_of(
        st.tuples(st.just("UINT32"), st.integers(0, 2**32 - 1), st.just(lambda v: str(v))),
        st.tuples(st.just("INT32"), st.integers(-2**31, 2**31 - 1), st.just(lambda v: str(v))),
        st.tuples(st.just("UINT64"), st.integers(0, 2**64 - 1), st.just(lambda v: str(v))),
        st.tuples(st.just("FLOAT32"), f32, st.just(lambda v: repr(float(str(np.float32(v)))))),
        st.tuples(st.just("BOOL"), st.booleans(), st.just(lambda v: "true" if v else "false")),
        # (GGUFWriter skips an empty string and refuses an empty array: both min_size=1)
        st.tuples(st.just("STRING"), st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]),
                                              min_size=1, max_size=30),
                  st.just(lambda v: v)),
        st.tuples(st.just("ARRAY[INT32]"), st.lists(st.integers(-2**31, 2**31 - 1), min_size=1, max_size=8),
                  st.just(lambda v: json.dumps(v))),
        st.tuples(st.just("ARRAY[STRING]"), st.lists(st.text("abcxyz<>&", max_size=5), min_size=1, max_size=5),
                  st.just(lambda v: json.dumps(v, ensure_ascii=False))))


def _gguf(path: Path, kvs: list) -> None:
    from gguf import GGUFValueType, GGUFWriter
    w = GGUFWriter(path, arch="llama")
    for k, (kind, v, _) in kvs:
        add = {"UINT32": w.add_uint32, "INT32": w.add_int32, "UINT64": w.add_uint64,
               "FLOAT32": w.add_float32, "BOOL": w.add_bool, "STRING": w.add_string}.get(kind)
        if add:
            add(k, v)
        else:
            w.add_array(k, v) if kind == "ARRAY[STRING]" else \
                w.add_key_value(k, v, GGUFValueType.ARRAY, sub_type=GGUFValueType.INT32)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


gguf_kvs = st.lists(st.tuples(st.from_regex(r"\Allama\.[a-z_]{1,12}(\.[a-z_]{1,8})?\Z"), _gguf_values()),
                    min_size=1, max_size=6, unique_by=lambda kv: kv[0])


@SETTINGS
@given(gguf_kvs)
def test_gguf_metadata_parses_back(tmp_path, kvs):
    from pipeline.ingest.formats import gguf
    path = tmp_path / "m.gguf"
    _gguf(path, kvs)
    rows = {r["key"]: (r["value_type"], r["value"]) for r in gguf.parse(path)}
    assert rows.pop("general.architecture") == ("STRING", "llama")      # the writer's own
    assert rows == {k: (kind, text(v)) for k, (kind, v, text) in kvs}


@SETTINGS
@given(gguf_kvs, st.integers(0, 10**9))
def test_gguf_cut_short_is_an_error_at_an_offset_or_the_whole_header(tmp_path, kvs, where):
    from pipeline.ingest.formats import gguf
    path = tmp_path / "m.gguf"
    _gguf(path, kvs)
    data = path.read_bytes()
    whole = gguf.parse(path)
    path.write_bytes(data[: where % len(data)])
    try:
        rows = gguf.parse(path)
    except ParseError as exc:
        # GGUF errors name a byte offset (0: the magic), not a line
        assert exc.path == str(path) and exc.line is not None and 0 <= exc.line <= len(data)
        assert str(exc) == f"{path}:{exc.line}: expected {exc.expected}, found {exc.found}"
        return
    assert rows == whole                                   # only padding after the KV section was cut
