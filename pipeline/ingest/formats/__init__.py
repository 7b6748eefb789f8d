"""Raw-format parsers, discovered: every module here with a ``FORMAT`` is one format.

A module without one is a helper of a format (``llama_server_fields`` parses the fields of
llama-server's log lines for ``journal``). Each format's history of the tool versions it
reads is in raw_data/FORMATS.md.
"""
from __future__ import annotations

import importlib
import pkgutil

from pipeline.ingest.base import Format


def discover_formats() -> dict[str, Format]:
    formats: dict[str, Format] = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        fmt = getattr(module, "FORMAT", None)
        if isinstance(fmt, Format):
            if fmt.name in formats:
                raise RuntimeError(f"two parser modules declare format {fmt.name!r}")
            formats[fmt.name] = fmt
    return formats
