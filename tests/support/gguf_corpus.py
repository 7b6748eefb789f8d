"""llama.cpp's vocabulary GGUFs (tests/corpora/gguf/README.md), installed by `make corpora`: the
names the corpus holds and the path of one, failing with what to run when it is missing."""
from __future__ import annotations

import json

import pytest

from paths import TESTS

CORPUS = TESTS / "corpora" / "gguf"
FILES = CORPUS / "llama.cpp"
EXPECTED = json.loads((CORPUS / "llama.cpp.expected.json").read_text())
SUMS = [line.split()[1] for line in (CORPUS / "llama.cpp.SHA256SUMS").read_text().splitlines()]
NAMES = sorted(EXPECTED)


def installed(name: str):
    path = FILES / name
    if not path.is_file():
        pytest.fail(f"{path} is missing: run `make corpora` (scripts/install_corpora.py)")
    return path
