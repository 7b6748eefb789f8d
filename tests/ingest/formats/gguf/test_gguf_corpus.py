"""Real GGUF headers of 19 model families, llama.cpp's vocabulary files (tests/corpora/gguf/README.md):
each parses to the shape its model's published config gives, checked by hand
(llama.cpp.expected.json). The fast path against gguf-py's stock reader on the whole file:
test_gguf_corpus_stock_reader.py.

The files are installed by `make corpora` (scripts/install_corpora.py), checked against the
committed SHA256SUMS; without them this test fails and says so."""
from __future__ import annotations

import json

import pytest

from gguf_corpus import EXPECTED, NAMES, SUMS, installed
from pipeline.ingest.formats import gguf


def test_the_corpus_names_every_vocabulary_file_once():
    # 19 GGUFs and llama.cpp's licence in SHA256SUMS; every GGUF has its expected shape
    assert sorted(n for n in SUMS if n.endswith(".gguf")) == NAMES
    assert len(NAMES) == 19 and "LICENSE" in SUMS


@pytest.mark.parametrize("name", NAMES)
def test_each_header_parses_to_its_models_published_shape(name):
    rows = {r["key"]: (r["value_type"], r["value"]) for r in gguf.parse(installed(name))}
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
