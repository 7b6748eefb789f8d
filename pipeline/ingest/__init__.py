"""Raw-format parsers, discovered: every module here with a ``FORMAT`` is one format."""
from __future__ import annotations

import importlib
import pkgutil

from .base import Format, ParseError  # noqa: F401

_SKIP = {"base", "runner", "manifest", "reference"}


def discover_formats() -> dict[str, Format]:
    formats: dict[str, Format] = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        if info.name in _SKIP or info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        fmt = getattr(module, "FORMAT", None)
        if isinstance(fmt, Format):
            if fmt.name in formats:
                raise RuntimeError(f"two parser modules declare format {fmt.name!r}")
            formats[fmt.name] = fmt
    return formats
