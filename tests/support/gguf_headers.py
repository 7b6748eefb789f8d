"""GGUF headers for tests, written with gguf-py's GGUFWriter (the writer llama.cpp ships)."""
from __future__ import annotations

from pathlib import Path

from gguf import GGUFWriter


def write_header(path: Path, arch: str, keys: dict, name: str | None = None) -> None:
    """A header-only GGUF: ``general.name`` and ``<arch>.<key>`` = uint32 for each key."""
    w = GGUFWriter(path, arch=arch)
    w.add_string("general.name", name or f"fixture {arch}")
    for key, value in keys.items():
        w.add_uint32(f"{arch}.{key}", value)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
