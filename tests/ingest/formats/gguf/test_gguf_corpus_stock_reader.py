"""The GGUF parser's fast path (arrays past their limit stepped over, not built item by item)
against the plain path, gguf-py's stock GGUFReader on the whole file, on every file of
llama.cpp's vocabulary corpus (tests/corpora/gguf/README.md): the same keys in the same order,
the same type, the same value. Apart from the shapes test because the stock reader takes about
a minute over the corpus (the reason the fast path exists), too slow to run for each mutant."""
from __future__ import annotations

import json

import numpy as np
import pytest
from gguf import GGUFReader, GGUFValueType

from gguf_corpus import NAMES, installed
from pipeline.ingest.formats import gguf


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
    path = installed(name)
    plain = [(f.name, *_plain(f)) for f in GGUFReader(path).fields.values()
             if not f.name.startswith("GGUF.")]
    ours = [(r["key"], r["value_type"], r["value"]) for r in gguf.parse(path)]
    assert [(k, t) for k, t, _ in ours] == [(k, t) for k, t, _ in plain]
    wrong = [k for (k, t, v), (_, _, p) in zip(ours, plain) if not _same(v, t, p)]
    assert wrong == []
