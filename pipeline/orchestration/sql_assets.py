"""Dagster assets for ``sql/``: one asset per model, run the way dbt runs them.

The models of a group run in one step with one connection, in dependency order (one asset per
model in the graph, one step per group): the reference models; the campaign models, a step per
campaign partition, each in the campaign's own file (campaign_model_assets.py); and the
comparison and inventory models with the catalog. ``sql/tests`` checks are asset checks on the most downstream model they read; a
campaign check runs for each campaign, and a blocking one that fails withholds that campaign
(its page says why) without stopping the others, which is why none is blocking in Dagster's
sense: Dagster would skip every page downstream, the notice included.
"""

from dagster import AssetExecutionContext, AssetSpec, MaterializeResult, multi_asset

from pipeline.orchestration.campaign_model_assets import campaign_models_asset
from pipeline.orchestration.model_specs import (
    check_results,
    check_specs,
    column_schemas,
    model_results,
    spec,
)
from pipeline.orchestration.raw_assets import OWNERS
from pipeline.orchestration.resources import Warehouse
from pipeline.publish import pages as pages_mod
from pipeline.publish.charts import discover_charts
from pipeline.publish.page_render import reads_any
from pipeline.warehouse import page_sources
from pipeline.warehouse.catalog import write_catalog
from pipeline.warehouse.scopes import PAGE_SOURCES
from pipeline.warehouse.steps import (
    META_TABLES,
    Layout,
    build_reference_models,
    build_shared,
    join_campaigns,
    run_tests,
)
from pipeline.warehouse.unions import statuses

META_DESCRIPTIONS = {
    "meta_models": "Every SQL model: grain, layer, scope and upstreams (the data dictionary's backbone).",
    "meta_columns": "The columns and types of every model built before the catalog.",
    "meta_check_results": "Every sql/tests check's outcome, per campaign for campaign checks.",
    "meta_declared_files": "Declared-parameter CSVs and campaign manifests with size, sha256 and rows.",
    "meta_page_sources": "For every page, the raw files behind each table it shows, recorded by "
                         "the render that publishes it.",
    "meta_campaign_status": "Every campaign: published, or withheld with the reasons.",
    "meta_build_inputs": "The content digest of each campaign folder and of raw_data/reference/ "
                         "this build covered; the raw_data sensor compares the tree with it.",
    "meta_rejected_paths": "Entries under raw_data/deployments and raw_data/p2p that cannot be "
                           "campaigns (symbolic links, bad names, stray files), never read.",
}


def sql_assets(layout: Layout, tables: dict[str, list[str]]):
    plan = layout.plan
    order = [m.name for m in layout.models]
    tests = {t.name: t for t in layout.tests}
    all_tables = dict(tables)
    for m in layout.models:
        all_tables[m.name] = [m.name]
    for t in META_TABLES:
        all_tables[t] = [t]
    assets = []

    # ---- reference models
    ref_names = {m.name for m in plan.reference}
    if plan.reference:
        ref_checks = check_specs(plan.tests.get("reference", []), list(ref_names), order)

        @multi_asset(name="reference_models", check_specs=ref_checks,
                     specs=[spec(m, all_tables, ref_names, m.layer) for m in plan.reference])
        def _reference(context: AssetExecutionContext, warehouse: Warehouse):
            with warehouse.connect() as con:
                rows = build_reference_models(con, warehouse.layout)
                results = run_tests(con, warehouse.layout, "reference")
                schemas = column_schemas(con, warehouse.layout, ref_names)
            yield from model_results(plan.reference, rows, schemas)
            yield from check_results(ref_checks, tests, results)

        assets.append(_reference)

    # ---- campaign models (partitioned): a step per campaign, each in its own file
    assets.append(campaign_models_asset(layout, all_tables))

    # ---- comparison and inventory models, the catalog
    shared = [*plan.shared, *plan.after_catalog]
    catalog_tables = [t for t in META_TABLES if t != PAGE_SOURCES]
    shared_names = {m.name for m in shared} | set(catalog_tables)
    shared_checks = check_specs([*plan.tests.get("shared", []), *plan.tests.get("after_catalog", [])],
                                 list(shared_names), order)
    late = {m.name for m in [*plan.after_catalog, *plan.after_pages]}
    meta_deps = sorted(m.name for m in layout.models if m.name not in late)
    specs = [spec(m, all_tables, shared_names, m.layer) for m in plan.shared]
    specs += [AssetSpec(t, group_name="catalog", kinds={"duckdb", "python"}, deps=meta_deps,
                        owners=OWNERS, description=META_DESCRIPTIONS[t]) for t in catalog_tables]
    specs += [spec(m, all_tables, shared_names, m.layer) for m in plan.after_catalog]

    @multi_asset(name="shared_models", specs=specs, check_specs=shared_checks)
    def _shared(context: AssetExecutionContext, warehouse: Warehouse):
        lay = warehouse.layout
        with warehouse.connect() as con:
            published = join_campaigns(con, lay)
            rows = build_shared(con, lay, plan.shared)
            results = run_tests(con, lay, "shared")
            stats = write_catalog(con, lay, results, statuses(con))
            rows.update(build_shared(con, lay, plan.after_catalog))
            results += run_tests(con, lay, "after_catalog")
            schemas = column_schemas(con, lay, shared_names)
        yield from model_results(plan.shared, rows, schemas)
        for t in catalog_tables:
            yield MaterializeResult(asset_key=t, metadata={**stats, "published": len(published)})
        yield from model_results(plan.after_catalog, rows, schemas)
        yield from check_results(shared_checks, tests, results)

    assets.append(_shared)
    assets.append(_after_pages_asset(layout, all_tables, order, tests))
    return assets, all_tables


def _after_pages_asset(layout: Layout, all_tables: dict[str, list[str]], order, tests):
    """``meta_page_sources`` as the page renders recorded it, and the models that read it
    (Data sources' "used by"), after every page that does not read them."""
    plan = layout.plan
    pages = pages_mod.discover_pages(layout.project.templates)
    charts = discover_charts()
    late = {m.name for m in plan.after_pages}
    recorders = [p for p in pages if not reads_any(p, charts, late)]
    names = {m.name for m in plan.after_pages} | {PAGE_SOURCES}
    checks = check_specs(plan.tests.get("after_pages", []), list(names), order)
    specs = [AssetSpec(PAGE_SOURCES, group_name="catalog", kinds={"duckdb", "python"},
                       deps=sorted(p.asset_name for p in recorders), owners=OWNERS,
                       description=META_DESCRIPTIONS[PAGE_SOURCES])]
    specs += [spec(m, all_tables, names, m.layer) for m in plan.after_pages]

    @multi_asset(name="page_sourced_models", specs=specs, check_specs=checks)
    def _after_pages(context: AssetExecutionContext, warehouse: Warehouse):
        lay = warehouse.layout
        with warehouse.connect() as con:
            published = [(c, s["area"]) for c, s in statuses(con).items()
                         if s["status"] == "published"]
            kept = page_sources.prune(con, pages_mod.page_slugs(recorders, published))
            rows = build_shared(con, lay, plan.after_pages)
            results = run_tests(con, lay, "after_pages")
            schemas = column_schemas(con, lay, names)
        yield MaterializeResult(asset_key=PAGE_SOURCES, metadata={"rows": kept})
        yield from model_results(plan.after_pages, rows, schemas)
        yield from check_results(checks, tests, results)

    return _after_pages
