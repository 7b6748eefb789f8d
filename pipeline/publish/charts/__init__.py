"""Charts: SVG files the pipeline draws from marts, committed beside the pages.

A module here exposes ``CHARTS = [Chart(...)]``. A chart belongs to a page (its template's
name) and is drawn with that page, from the same scope: a per-campaign page's charts read that
campaign's tables only. The file lands at ``docs/<page slug>/<file>``; the bytes are
deterministic, so an unchanged chart is not rewritten. A chart with a ``narrow`` renderer is
also drawn at most 340 px wide beside it (``x-narrow.svg``), its text still 11 px, for a phone
(docs/javascripts/charts.js shows that one on a narrow screen).
"""
from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass
from typing import Callable


@dataclass(frozen=True)
class Chart:
    name: str
    page: str                     # the template it belongs to, e.g. "deployment"
    file: str                     # relative to the page's folder, e.g. "delay-matrix.svg"
    marts: list                   # tables the chart reads
    render: Callable              # render(con) -> str (SVG text)
    what: str = ""                # what it shows, in words (the page asset's description)
    narrow: Callable | None = None  # narrow(con) -> SVG at most 340 px wide, for a phone

    def path(self, slug: str) -> str:
        return f"{slug}/{self.file}"

    @property
    def narrow_file(self) -> str:
        """Where the phone variant goes beside the chart (``x.svg`` -> ``x-narrow.svg``)."""
        return self.file[:-4] + "-narrow.svg"


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
