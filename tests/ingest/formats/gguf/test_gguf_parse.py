"""GGUF header parser: fixtures written by gguf-py's GGUFWriter (tests/fixtures/gguf/make_fixtures.py)."""
import json

import duckdb
import pandas as pd
import pytest

from pipeline.ingest.base import ParseError
from pipeline.ingest.formats.gguf import FORMAT, parse
from pipeline.ingest.runner import ensure_table

from paths import FIXTURES

FIX = FIXTURES / "gguf"
GOOD = sorted((FIX / "good").glob("*.gguf"))
BAD = sorted((FIX / "bad").glob("*.gguf"))

# file -> (byte offset named, words of the reason)
BAD_REASONS = {
    "empty.gguf": (0, "an empty file"),
    "ggjt-magic.gguf": (0, "found b'tjgg'"),
    # 16 bytes: magic + version + half of tensor_count; the counts are read at byte 8
    "cut-header.gguf": (8, "end of file at byte 16 (truncated)"),
    # tokenizer.ggml.tokens starts at 390: its 8-byte key length, then 21 key bytes
    # from 398, which run past the cut at 400
    "cut-kv.gguf": (398, "end of file at byte 400 (truncated)"),
    "version-1.gguf": (4, "GGUF version 1"),
}


def by_key(rows):
    return {r["key"]: r for r in rows}


def test_fixture_sets_are_complete():
    assert [p.name for p in GOOD] == ["head-dump.gguf", "header-only.gguf", "tiny-model.gguf"]
    assert {p.name for p in BAD} == set(BAD_REASONS)


@pytest.mark.parametrize("path", GOOD, ids=lambda p: p.name)
def test_good_fixtures_have_every_column(path):
    rows = parse(path)
    assert rows
    for row in rows:
        assert set(row) == set(FORMAT.columns) | {"source_line"}
        assert not row["key"].startswith("GGUF.")  # reader pseudo-fields are not metadata


def test_header_only_values_and_offsets():
    rows = parse(FIX / "good" / "header-only.gguf")
    assert len(rows) == 13  # general.architecture + the 12 keys make_fixtures.py adds
    kv = by_key(rows)
    # header: magic 4 + version 4 + tensor_count 8 + kv_count 8 = 24
    assert kv["general.architecture"] == {"key": "general.architecture", "value_type": "STRING",
                                          "value": "qwen35", "source_line": 24}
    # 24 + key (8 + 20) + type 4 + value (8 + len("qwen35") 6) = 70
    assert kv["general.name"]["source_line"] == 70
    # 70 + key (8 + 12) + 4 + value (8 + len("Fixture 27B") 11) = 113
    assert kv["general.file_type"]["source_line"] == 113
    assert kv["general.file_type"]["value"] == "7"
    # 113 + key (8 + 17) + 4 + uint32 4 = 146
    assert kv["qwen35.block_count"] == {"key": "qwen35.block_count", "value_type": "UINT32",
                                        "value": "64", "source_line": 146}
    assert kv["qwen35.embedding_length"]["value"] == "5120"
    # float32 1e-6 is 9.99999997e-07; its shortest float32 text is 1e-06
    assert kv["qwen35.attention.layer_norm_rms_epsilon"]["value_type"] == "FLOAT32"
    assert kv["qwen35.attention.layer_norm_rms_epsilon"]["value"] == "1e-06"
    assert kv["qwen35.rope.dimension_sections"]["value_type"] == "ARRAY[INT32]"
    assert kv["qwen35.rope.dimension_sections"]["value"] == "[11, 11, 10, 0]"
    # 100 tokens > 64: summarised
    assert kv["tokenizer.ggml.tokens"]["value_type"] == "ARRAY[STRING]"
    assert kv["tokenizer.ggml.tokens"]["value"] == '{"len": 100}'
    assert kv["tokenizer.ggml.merges"]["value"] == '["Ġ t", "Ġ a", "h e"]'
    assert kv["tokenizer.ggml.add_bos_token"]["value_type"] == "BOOL"
    assert kv["tokenizer.ggml.add_bos_token"]["value"] == "false"
    assert kv["general.parameter_count"]["value_type"] == "UINT64"
    assert kv["general.parameter_count"]["value"] == "27000000000"
    assert kv["general.sampling.temp"]["value_type"] == "FLOAT64"
    assert kv["general.sampling.temp"]["value"] == "0.6"


@pytest.mark.parametrize("name", ["tiny-model.gguf", "head-dump.gguf"])
def test_tensor_section_is_ignored_even_when_cut(name):
    # head-dump.gguf is tiny-model.gguf cut 13 bytes into its tensor infos
    rows = parse(FIX / "good" / name)
    # llama.block_count: 24 + key (8 + 20) + 4 + value (8 + len("llama") 5) = 69
    assert [(r["key"], r["value_type"], r["value"], r["source_line"]) for r in rows] == [
        ("general.architecture", "STRING", "llama", 24),
        ("llama.block_count", "UINT32", "1", 69),
    ]


@pytest.mark.parametrize("path", BAD, ids=lambda p: p.name)
def test_bad_fixtures_name_file_offset_and_reason(path):
    offset, words = BAD_REASONS[path.name]
    with pytest.raises(ParseError) as info:
        parse(path)
    assert info.value.line == offset
    assert path.name in str(info.value) and words in str(info.value)


@pytest.mark.parametrize("data, offset, words", [
    (b"", 0, "an empty file"),
    (b"GG", 0, "found b'GG'"),
    (b"garbage, not a model\n", 0, "found b'garb'"),
    (b"GGUF\x03\x00\x00\x00", 8, "end of file at byte 8"),
    # a KV count of 1 and then nothing: the key length is read at byte 24
    (b"GGUF\x03\x00\x00\x00" + (0).to_bytes(8, "little") + (1).to_bytes(8, "little"), 24,
     "end of file at byte 24"),
    # one key with value type 99, which GGUF does not define; the type sits at 24 + 8 + 1
    (b"GGUF\x03\x00\x00\x00" + (0).to_bytes(8, "little") + (1).to_bytes(8, "little")
     + (1).to_bytes(8, "little") + b"k" + (99).to_bytes(4, "little"), 33, "GGUFValueType"),
    # a key that is not UTF-8 (b"\xff"), UINT8 value 7: the reader decodes the key after
    # reading the value, so the offset named is the value's, 24 + 8 + 1 + 4 = 37
    (b"GGUF\x03\x00\x00\x00" + (0).to_bytes(8, "little") + (1).to_bytes(8, "little")
     + (1).to_bytes(8, "little") + b"\xff" + (0).to_bytes(4, "little") + b"\x07", 37, "invalid UTF-8"),
    # a STRING value that is not UTF-8: named by its field's offset, 24
    (b"GGUF\x03\x00\x00\x00" + (0).to_bytes(8, "little") + (1).to_bytes(8, "little")
     + (1).to_bytes(8, "little") + b"k" + (8).to_bytes(4, "little") + (2).to_bytes(8, "little")
     + b"\xc3\x28", 24, "invalid UTF-8"),
])
def test_inline_bytes(tmp_path, data, offset, words):
    path = tmp_path / "inline.gguf"
    path.write_bytes(data)
    with pytest.raises(ParseError) as info:
        parse(path)
    assert info.value.line == offset
    assert "inline.gguf" in str(info.value) and words in str(info.value)
    # what the reader was looking for, by the kind of fault (the message's first half)
    expected = {"an empty file": "a GGUF file", "found b'GG'": "GGUF magic b'GGUF'",
                "found b'garb'": "GGUF magic b'GGUF'", "GGUFValueType": "a valid GGUF header",
                "invalid UTF-8": "UTF-8 keys and string values"}.get(
        words, "a complete GGUF header and KV section")
    assert info.value.expected == expected
    if words == "an empty file":
        assert info.value.found == "an empty file"
    if words.startswith("end of file"):
        assert info.value.found == f"{words} (truncated)"


def test_rows_fit_the_declared_table():
    con = duckdb.connect()
    ensure_table(con, FORMAT)
    con.register("incoming", pd.DataFrame(parse(FIX / "good" / "header-only.gguf")))
    con.execute(f"insert into {FORMAT.table} by name select * from incoming")
    assert con.execute(f"select count(*) from {FORMAT.table}").fetchall() == [(13,)]


def _kv_header(count: int) -> bytes:
    return b"GGUF\x03\x00\x00\x00" + (0).to_bytes(8, "little") + count.to_bytes(8, "little")


def _array_field(key: bytes, item_type: int, n: int, items: bytes) -> bytes:
    return (len(key).to_bytes(8, "little") + key + (9).to_bytes(4, "little")
            + item_type.to_bytes(4, "little") + n.to_bytes(8, "little") + items)


def test_long_arrays_are_stepped_over_to_the_next_key(tmp_path):
    # 65 one-letter strings (> ARRAY_SUMMARY_OVER 64, kept as their length) and 1025 INT32
    # values (> LAYER_ARRAY_MAX 1024), then a UINT8 key. Offsets: header 24; "k" at 24, its
    # items from 24 + 8 + 1 + 4 + 4 + 8 = 49, 65 x (8 + 1) = 585 bytes -> "n" at 634; its
    # items from 634 + 25 = 659, 1025 x 4 = 4100 bytes -> "z" at 4759
    strings = b"".join((1).to_bytes(8, "little") + b"a" for _ in range(65))
    data = (_kv_header(3) + _array_field(b"k", 8, 65, strings)
            + _array_field(b"n", 5, 1025, (7).to_bytes(4, "little") * 1025)
            + (1).to_bytes(8, "little") + b"z" + (0).to_bytes(4, "little") + b"\x05")
    path = tmp_path / "long.gguf"
    path.write_bytes(data)
    rows = {r["key"]: r for r in parse(path)}
    assert rows["k"]["value"] == '{"len": 65}' and rows["k"]["source_line"] == 24
    assert rows["n"] == {"key": "n", "value_type": "ARRAY[INT32]", "value": '{"len": 1025}',
                         "source_line": 634}
    assert rows["z"] == {"key": "z", "value_type": "UINT8", "value": "5", "source_line": 4759}


@pytest.mark.parametrize("cut, item_type, n, items, offset", [
    # ten whole strings and the 11th's length: its byte would be at 49 + 10 x 9 + 8 = 147
    ("string", 8, 65, b"".join((1).to_bytes(8, "little") + b"a" for _ in range(10))
     + (1).to_bytes(8, "little"), 147),
    # 1025 INT32 values from byte 49, only 100 bytes there
    ("int32", 5, 1025, b"\x00" * 100, 49),
])
def test_a_cut_long_array_names_where_it_ends(tmp_path, cut, item_type, n, items, offset):
    path = tmp_path / f"cut-{cut}.gguf"
    data = _kv_header(1) + _array_field(b"k", item_type, n, items)
    path.write_bytes(data)
    with pytest.raises(ParseError) as info:
        parse(path)
    assert info.value.line == offset
    assert f"end of file at byte {len(data)}" in str(info.value)


def test_arrays_exactly_at_the_limits_are_kept_whole(tmp_path):
    # 64 strings (= ARRAY_SUMMARY_OVER) and 1024 INT32 values (= LAYER_ARRAY_MAX): kept in
    # full, only longer ones become {"len": n}
    strings = b"".join((1).to_bytes(8, "little") + b"a" for _ in range(64))
    data = (_kv_header(2) + _array_field(b"k", 8, 64, strings)
            + _array_field(b"n", 5, 1024, (7).to_bytes(4, "little") * 1024))
    path = tmp_path / "limits.gguf"
    path.write_bytes(data)
    rows = {r["key"]: r for r in parse(path)}
    assert json.loads(rows["k"]["value"]) == ["a"] * 64
    assert json.loads(rows["n"]["value"]) == [7] * 1024
