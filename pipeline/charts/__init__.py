"""Charts: SVG files the pipeline draws from marts, committed beside the pages.

A module here exposes ``CHARTS = [Chart(...)]``; each chart becomes one asset that
writes ``docs/<path>`` (deterministic bytes, rewritten only when they change).
"""
from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass
from typing import Callable


@dataclass(frozen=True)
class Chart:
    name: str                     # asset name part: chart_<name>
    path: str                     # relative to docs/, e.g. "point-to-point/delay-matrix.svg"
    marts: list                   # tables the chart reads
    render: Callable              # render(con) -> str (SVG text)


def discover_charts() -> list[Chart]:
    charts: list[Chart] = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        charts.extend(getattr(module, "CHARTS", []))
    names = [c.name for c in charts]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise RuntimeError(f"two charts share the name(s) {', '.join(dupes)}")
    return charts
