"""The whole SQL side of a build in one connection, without Dagster: the same steps the
assets run (pipeline/warehouse/steps.py), in the same order.

Tests use it to get a real warehouse from a tree in seconds; the benchmark uses it as the
orchestration-free baseline a Dagster build is compared with.
"""
from __future__ import annotations

from pipeline.util.sql import insert_frame, new_table
from pipeline.warehouse import page_sources
from pipeline.warehouse.campaign import raw_tables
from pipeline.warehouse.campaign_files import attach_all
from pipeline.warehouse.catalog import write_catalog
from pipeline.warehouse.schemas import replace_view
from pipeline.warehouse.steps import (
    Layout,
    build_campaigns,
    build_reference_models,
    build_shared,
    ingest,
    join_campaigns,
    load_references,
    run_tests,
    scan,
)
from pipeline.warehouse.unions import statuses


def ingest_tree(layout: Layout, log=None) -> list[str]:
    """Scan and parse every campaign into the raw store; returns the campaign names."""
    names = [name for _, name in layout.campaigns()]
    for name in names:
        scan(layout, name)
        for fmt in layout.formats.values():
            ingest(layout, name, fmt, log=log)
    return names


def raw_views(con, layout: Layout, campaigns: list[str]) -> None:
    """``main.raw_*`` as the rows of ``campaigns`` (for tests of the raw layer alone)."""
    for table, columns in raw_tables(layout.formats).items():
        parts = [layout.store.relation(c, table, columns) for c in campaigns]
        replace_view(con, "main", table, " union all by name ".join(parts) or "select 1 where false")
    entries = [e for c in campaigns
               for e in layout.store.registry(c, [f.table for f in layout.formats.values()])]
    import pandas as pd

    from pipeline.ingest.store import REGISTRY_COLUMNS
    frame = pd.DataFrame(entries).reindex(columns=list(REGISTRY_COLUMNS))
    new_table(con, "ingest_registry", REGISTRY_COLUMNS)
    insert_frame(con, "ingest_registry", frame)


def build_before_pages(con, layout: Layout) -> dict:
    """Every table a page reads except those built from what the pages showed; returns each
    campaign's outcome."""
    names = ingest_tree(layout)
    load_references(con, layout)
    build_reference_models(con, layout)
    run_tests(con, layout, "reference")
    outcomes = build_campaigns(con, layout, names)
    join_campaigns(con, layout)
    build_shared(con, layout, layout.plan.shared)
    results = run_tests(con, layout, "shared")
    write_catalog(con, layout, results, statuses(con))
    build_shared(con, layout, layout.plan.after_catalog)
    return outcomes


def build_after_pages(con, layout: Layout) -> None:
    """The models that read ``meta_page_sources``, from the rows the page renders recorded
    (none when no page was rendered: Data sources then lists no page using a file)."""
    page_sources.ensure_table(con)
    build_shared(con, layout, layout.plan.after_pages)


def build_warehouse(con, layout: Layout) -> dict:
    """Every table the site reads, built in ``con`` without rendering a page, with each
    campaign's file attached to it after (campaign_files.attach_all); returns each campaign's
    outcome."""
    outcomes = build_before_pages(con, layout)
    build_after_pages(con, layout)
    attach_all(con, layout.project.warehouse)
    return outcomes
