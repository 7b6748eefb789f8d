"""The site's ledger, assembled from the pages a build rendered and the ones it kept.

Each page render stages its figures (``.docs-staging/<run>/.figures/<slug>.csv``) and the raw
files behind each table they come from (``<slug>.sources.csv``). The ledger of the build is
those of every page rendered in this run, plus, for a page this run did not render (a campaign
outside the run's partitions), its rows from the published ledger; a page that no longer exists
contributes nothing.
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from pipeline.publish.figures.baseline import LEDGER
from pipeline.publish.figures.ledger import COLUMNS, SOURCE_COLUMNS, from_csv, to_csv
from pipeline.warehouse import models

FIGURES_DIR = ".figures"
SOURCES = "what-changed/data/figure_sources.csv"


@lru_cache(maxsize=8)
def _keys(sql_dir: str, stamp: tuple) -> dict[str, tuple[str, ...]]:
    return {m.name: m.key for m in models.discover(Path(sql_dir)) if m.key is not None}


def row_keys(sql_dir: Path) -> dict[str, tuple[str, ...]]:
    """Each mart's declared ``-- key:`` columns."""
    stamp = tuple(sorted((p.name, p.stat().st_mtime_ns) for p in Path(sql_dir).rglob("*.sql")))
    return _keys(str(sql_dir), stamp)


def figure_sources(con, lineage, raw_data: Path, slug: str, figures: list[dict],
                   campaign: str | None) -> list[dict]:
    from pipeline.warehouse.lineage import sources
    rows = []
    for table in sorted({f["table"] for f in figures}):
        for src in sources(con, lineage, table, raw_data, campaign=campaign):
            rows.append({"page": slug, "table": table, "source_file": src.source_file,
                         "sha256": src.sha256})
    return rows


def _staged_path(staged: Path, slug: str, suffix: str) -> Path:
    return staged / FIGURES_DIR / f"{slug}{suffix}"


def stage_figures(staged: Path, slug: str, figures: list[dict], sources: list[dict]) -> None:
    for suffix, data in ((".csv", to_csv(figures)),
                         (".sources.csv", to_csv(sources, SOURCE_COLUMNS))):
        path = _staged_path(staged, slug, suffix)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


def unstage_figures(staged: Path, slug: str) -> None:
    for suffix in (".csv", ".sources.csv"):
        _staged_path(staged, slug, suffix).unlink(missing_ok=True)


def staged_pages(staged: Path) -> set[str]:
    """Every page (slug) this run rendered, with figures or without (withheld notices)."""
    return {p.relative_to(staged).as_posix()[: -len(".md")] for p in staged.rglob("*.md")
            if FIGURES_DIR not in p.relative_to(staged).parts}


def assemble(staged: Path, published: tuple[list[dict], list[dict]],
             pages: set[str]) -> tuple[list[dict], list[dict]]:
    """(figures, sources) of the build: staged pages' own, the published rows of the other
    pages in ``pages`` (every page that exists after this build)."""
    rendered = staged_pages(staged)
    figures, sources = [], []
    old_figures, old_sources = published
    for slug in sorted(pages):
        if slug in rendered:
            figures += from_csv(_read(_staged_path(staged, slug, ".csv")))
            sources += from_csv(_read(_staged_path(staged, slug, ".sources.csv")),
                                SOURCE_COLUMNS)
        else:
            figures += [r for r in old_figures if r["page"] == slug]
            sources += [r for r in old_sources if r["page"] == slug]
    return figures, sources


def _read(path: Path) -> bytes | None:
    return path.read_bytes() if path.is_file() else None


def published(docs: Path) -> tuple[list[dict], list[dict]]:
    return (from_csv(_read(docs / LEDGER)), from_csv(_read(docs / SOURCES), SOURCE_COLUMNS))


__all__ = ["COLUMNS", "LEDGER", "SOURCES", "assemble", "figure_sources", "published",
           "row_keys", "stage_figures", "staged_pages", "unstage_figures"]
