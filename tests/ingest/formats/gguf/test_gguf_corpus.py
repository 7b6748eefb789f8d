"""Real GGUF headers of 19 model families, llama.cpp's vocabulary files (tests/corpora/gguf/README.md):
each parses to the shape its model's published config gives, checked by hand
(llama.cpp.expected.json), and the parser's fast path (arrays past their limit stepped over, not
built item by item) reads every key exactly as the plain path, gguf-py's stock GGUFReader on the
whole file, does: the same keys in the same order, the same type, the same value.

The files are installed by `make corpora` (scripts/install_corpora.py), checked against the
committed SHA256SUMS; without them this test fails and says so."""
from __future__ import annotations

import json

import numpy as np
import pytest
from gguf import GGUFReader, GGUFValueType

from paths import TESTS
from pipeline.ingest.formats import gguf

CORPUS = TESTS / "corpora" / "gguf"
FILES = CORPUS / "llama.cpp"
EXPECTED = json.loads((CORPUS / "llama.cpp.expected.json").read_text())
SUMS = [line.split()[1] for line in (CORPUS / "llama.cpp.SHA256SUMS").read_text().splitlines()]
NAMES = sorted(EXPECTED)


def _installed(name: str):
    path = FILES / name
    if not path.is_file():
        pytest.fail(f"{path} is missing: run `make corpora` (scripts/install_corpora.py)")
    return path


def test_the_corpus_names_every_vocabulary_file_once():
    # 19 GGUFs and llama.cpp's licence in SHA256SUMS; every GGUF has its expected shape
    assert sorted(n for n in SUMS if n.endswith(".gguf")) == NAMES
    assert len(NAMES) == 19 and "LICENSE" in SUMS


@pytest.mark.parametrize("name", NAMES)
def test_each_header_parses_to_its_models_published_shape(name):
    rows = {r["key"]: (r["value_type"], r["value"]) for r in gguf.parse(_installed(name))}
    want = EXPECTED[name]
    arch = want["architecture"]
    assert rows["general.architecture"] == ("STRING", arch)
    for key in ("block_count", "embedding_length", "context_length", "feed_forward_length"):
        assert int(rows[f"{arch}.{key}"][1]) == want[key], key
    assert int(rows[f"{arch}.attention.head_count"][1]) == want["head_count"]
    kv = rows.get(f"{arch}.attention.head_count_kv")
    if want["head_count_kv"] is None:
        assert kv is None                       # the format then means "as many as head_count"
    elif want["head_count_kv"] == "per-layer":
        assert kv[0].startswith("ARRAY[")       # one value per layer, all kept
        assert len(json.loads(kv[1])) == want["block_count"]
    else:
        assert int(kv[1]) == want["head_count_kv"]
    assert rows["tokenizer.ggml.model"] == ("STRING", want["tokenizer_model"])
    # a vocabulary is past ARRAY_SUMMARY_OVER: only its length is stored
    assert rows["tokenizer.ggml.tokens"] == ("ARRAY[STRING]",
                                             json.dumps({"len": want["tokens"]}))


def _plain(field) -> tuple[str, object]:
    """(type, value) from the stock reader's own decoding (ReaderField.contents)."""
    main = field.types[0]
    if main == GGUFValueType.ARRAY:
        return f"ARRAY[{field.types[-1].name}]", field.contents()
    return main.name, field.contents()


def _item_same(held, vtype: str, plain) -> bool:
    """One value as the parser stored it (JSON item, or the text of a scalar) against the stock
    reader's. Floats compare at the width the file stores them."""
    if vtype == "BOOL":
        return held in (True, "true") if plain else held in (False, "false")
    if vtype.startswith("FLOAT"):
        width = np.float32 if vtype == "FLOAT32" else np.float64
        return width(float(held)) == width(plain)
    if vtype == "STRING":
        return held == plain
    return int(held) == int(plain)


def _same(ours: str, vtype: str, plain) -> bool:
    if not vtype.startswith("ARRAY["):
        return _item_same(ours, vtype, plain)
    held = json.loads(ours)
    if isinstance(held, dict):                  # stored as its length only
        return held == {"len": len(plain)}
    item = vtype[6:-1]
    return len(held) == len(plain) and all(_item_same(h, item, p) for h, p in zip(held, plain))


@pytest.mark.parametrize("name", NAMES)
def test_the_fast_path_reads_what_the_stock_reader_reads_on_the_whole_file(name):
    path = _installed(name)
    plain = [(f.name, *_plain(f)) for f in GGUFReader(path).fields.values()
             if not f.name.startswith("GGUF.")]
    ours = [(r["key"], r["value_type"], r["value"]) for r in gguf.parse(path)]
    assert [(k, t) for k, t, _ in ours] == [(k, t) for k, t, _ in plain]
    wrong = [k for (k, t, v), (_, _, p) in zip(ours, plain) if not _same(v, t, p)]
    assert wrong == []
