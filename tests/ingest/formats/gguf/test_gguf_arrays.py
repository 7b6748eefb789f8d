"""GGUF metadata arrays as stored (pipeline/ingest/formats/gguf.py): per-layer numbers, bools and floats
kept item by item, strings kept as UTF-8 (not \\u escapes), arrays past their limit and nested
arrays stored as their length only. Headers written with gguf-py's GGUFWriter."""
from __future__ import annotations

import json

from gguf import GGUFValueType, GGUFWriter

from pipeline.ingest.formats.gguf import ARRAY_SUMMARY_OVER, LAYER_ARRAY_MAX, parse


def _header(path, arrays: dict) -> dict:
    w = GGUFWriter(path, arch="llama")
    w.add_string("general.name", "arrays")
    for key, value in arrays.items():
        w.add_array(f"test.{key}", value)
    w.add_bool("test.flag", True)
    w.add_float32("test.eps", 1e-5)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return {r["key"]: (r["value_type"], r["value"]) for r in parse(path)}


def test_numbers_bools_floats_and_strings_are_kept_item_by_item(tmp_path):
    rows = _header(tmp_path / "a.gguf", {
        "heads_kv": [8, 0, 8], "sliding": [True, False, True], "scale": [0.5, 1.25],
        "names": ["é", "日本"]})
    assert rows["test.heads_kv"] == ("ARRAY[INT32]", "[8, 0, 8]")
    assert rows["test.sliding"] == ("ARRAY[BOOL]", "[true, false, true]")
    assert rows["test.scale"] == ("ARRAY[FLOAT32]", "[0.5, 1.25]")
    assert rows["test.names"] == ("ARRAY[STRING]", '["é", "日本"]')
    assert json.loads(rows["test.names"][1]) == ["é", "日本"]
    assert rows["test.flag"][0] == "BOOL" and rows["test.eps"][0] == "FLOAT32"


def test_arrays_past_their_limit_keep_their_length_only(tmp_path):
    strings = [f"t{i}" for i in range(ARRAY_SUMMARY_OVER + 1)]
    rows = _header(tmp_path / "b.gguf", {
        "vocab": strings, "vocab_at_limit": strings[:ARRAY_SUMMARY_OVER],
        "layers": list(range(LAYER_ARRAY_MAX + 1)), "layers_at_limit": list(range(LAYER_ARRAY_MAX))})
    assert rows["test.vocab"] == ("ARRAY[STRING]", json.dumps({"len": ARRAY_SUMMARY_OVER + 1}))
    assert json.loads(rows["test.vocab_at_limit"][1]) == strings[:ARRAY_SUMMARY_OVER]
    assert rows["test.layers"][1] == json.dumps({"len": LAYER_ARRAY_MAX + 1})
    assert json.loads(rows["test.layers_at_limit"][1]) == list(range(LAYER_ARRAY_MAX))


def test_a_nested_array_keeps_its_length_only(tmp_path):
    path = tmp_path / "n.gguf"
    w = GGUFWriter(path, arch="llama")
    w.add_key_value("test.nested", [[1, 2], [3, 4], [5, 6]], GGUFValueType.ARRAY,
                    sub_type=GGUFValueType.ARRAY)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    rows = {r["key"]: (r["value_type"], r["value"]) for r in parse(path)}
    assert rows["test.nested"] == ("ARRAY[ARRAY]", '{"len": 3}')
