"""Dagster assets for ``sql/``: one asset per model, run the way dbt runs them.

The models of a group run in one step with one connection, in dependency order (one asset per
model in the graph, one step per group): the reference models; the campaign models, once per
campaign partition in the campaign's own schema; and the comparison and inventory models with
the catalog. ``sql/tests`` checks are asset checks on the most downstream model they read; a
campaign check runs for each campaign, and a blocking one that fails withholds that campaign
(its page says why) without stopping the others, which is why none is blocking in Dagster's
sense: Dagster would skip every page downstream, the notice included.
"""

import sys

from dagster import (
    AssetCheckResult,
    AssetCheckSeverity,
    AssetCheckSpec,
    AssetExecutionContext,
    AssetSpec,
    MaterializeResult,
    MetadataValue,
    TableColumn,
    TableSchema,
    multi_asset,
)

from pipeline.orchestration.partitions import CAMPAIGNS, run_campaigns
from pipeline.orchestration.raw_assets import OWNERS
from pipeline.orchestration.resources import Warehouse
from pipeline.publish import pages as pages_mod
from pipeline.publish.charts import discover_charts
from pipeline.publish.page_render import reads_any
from pipeline.warehouse import column_notes, page_sources
from pipeline.warehouse.catalog import write_catalog
from pipeline.warehouse.schemas import TEMPLATE
from pipeline.warehouse.scopes import PAGE_SOURCES
from pipeline.warehouse.steps import (
    META_TABLES,
    Layout,
    build_campaigns,
    build_reference_models,
    build_shared,
    join_campaigns,
    run_tests,
    statuses,
)

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


def _column_schemas(con, layout, names, schema: str = "main") -> dict[str, dict]:
    """``{model: {"dagster/column_schema": ...}}``: each built table's columns with their DuckDB
    type and what they hold (the SQL's ``-- column`` lines, column_notes.py), so the asset's
    page in ``dagster dev`` shows what the Data dictionary shows. A table not built: nothing."""
    rows = con.execute("select table_name, column_name, data_type from duckdb_columns() "
                       "where schema_name = ? order by table_name, column_index", [schema]).fetchall()
    rows = [r for r in rows if r[0] in set(names)]
    notes = column_notes.describe(layout.models, [(t, c) for t, c, _ in rows],
                                  column_notes.glossary(layout.project.sql))
    out: dict[str, list] = {}
    for t, c, typ in rows:
        out.setdefault(t, []).append(TableColumn(c, typ, description=notes.get((t, c.lower()), (None,))[0]))
    return {t: {"dagster/column_schema": TableSchema(columns=cols)} for t, cols in out.items()}


def _description(model) -> str:
    """What the model is (its description comment) and its grain (one row per …)."""
    grain = f"Grain: {model.grain}." if model.grain else ""
    return (model.description + ("\n\n" + grain if grain else "")) if model.description else \
        (grain or model.name)


def _spec(model, tables, internal: set[str], group: str) -> AssetSpec:
    deps = sorted({key for t in model.upstreams for key in
                   ([t] if t in internal else tables.get(t, []))})
    return AssetSpec(model.name, group_name=group, kinds={"duckdb", "sql"}, deps=deps,
                     owners=OWNERS, description=_description(model),
                     metadata={"sql_file": f"sql/{model.layer}/{model.path.name}"})


def _check_specs(tests, asset_names: list[str], order: list[str]) -> list[AssetCheckSpec]:
    specs = []
    for test in tests:
        readers = [t for t in test.upstreams if t in asset_names]
        if not readers:
            continue
        target = max(readers, key=order.index)
        note = (" A failure withholds the campaign." if test.blocking else "")
        if test.fix_sentence:
            note += f" To fix: {test.fix_sentence}."
        # checks take no owners in Dagster: the owner is in the metadata, beside the SQL file
        specs.append(AssetCheckSpec(test.name, asset=target, description=test.check_sentence + note,
                                    metadata={"owner": OWNERS[0],
                                              "sql_file": MetadataValue.path(f"sql/tests/{test.path.name}")}))
    return specs


def _check_result(spec: AssetCheckSpec, test, results: list[dict]) -> AssetCheckResult:
    failing = [r for r in results if not r["passed"]]
    severity = AssetCheckSeverity.ERROR if test.blocking else AssetCheckSeverity.WARN
    return AssetCheckResult(
        asset_key=spec.asset_key, check_name=spec.name, passed=not failing, severity=severity,
        metadata={"failing_campaigns": ", ".join(str(r["campaign"]) for r in failing if r["campaign"]),
                  "failing_rows": sum(r["failing_rows"] for r in failing),
                  "first_rows": "; ".join(r["first_rows"] for r in failing)[:2000],
                  "sql_file": f"sql/tests/{test.path.name}"})


def _model_results(models, rows: dict, schemas: dict):
    for m in models:
        yield MaterializeResult(asset_key=m.name, metadata={"rows": rows[m.name],
                                                            **schemas.get(m.name, {})})


def _check_results(specs, tests: dict, results: list[dict]):
    for spec in specs:
        yield _check_result(spec, tests[spec.name],
                            [r for r in results if r["check_name"] == spec.name])


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
        ref_checks = _check_specs(plan.tests.get("reference", []), list(ref_names), order)

        @multi_asset(name="reference_models", check_specs=ref_checks,
                     specs=[_spec(m, all_tables, ref_names, m.layer) for m in plan.reference])
        def _reference(context: AssetExecutionContext, warehouse: Warehouse):
            with warehouse.connect() as con:
                rows = build_reference_models(con, warehouse.layout)
                results = run_tests(con, warehouse.layout, "reference")
                schemas = _column_schemas(con, warehouse.layout, ref_names)
            yield from _model_results(plan.reference, rows, schemas)
            yield from _check_results(ref_checks, tests, results)

        assets.append(_reference)

    def _healed(context):
        def log(line: str) -> None:     # in the build's own output as well as the run's log
            context.log.warning(line)
            print(line, file=sys.stderr)
        return log

    # ---- campaign models (partitioned)
    camp_names = set(plan.campaign_tables)
    camp_checks = _check_specs(plan.tests.get("campaign", []), list(camp_names), order)

    @multi_asset(name="campaign_models", partitions_def=CAMPAIGNS, check_specs=camp_checks,
                 specs=[_spec(m, all_tables, camp_names, m.layer) for m in plan.campaign])
    def _campaigns(context: AssetExecutionContext, warehouse: Warehouse):
        campaigns = run_campaigns(context)
        with warehouse.connect() as con:
            outcomes = build_campaigns(con, warehouse.layout, campaigns, log=_healed(context))
            # every campaign's tables have the template's columns
            schemas = _column_schemas(con, warehouse.layout, camp_names, TEMPLATE)
        for campaign, out in outcomes.items():
            if campaign is not None and out.status == "withheld":
                for reason in out.reasons:
                    context.log.warning(f"campaign {campaign} withheld: {reason['subject']}: "
                                        f"{reason['detail']}")
        for m in plan.campaign:
            yield MaterializeResult(asset_key=m.name, metadata={
                "rows": sum(o.rows.get(m.name, 0) for c, o in outcomes.items() if c),
                "campaigns": len(campaigns),
                "kept": sum(m.name in o.kept for c, o in outcomes.items() if c),
                **schemas.get(m.name, {})})
        results = [r for c, o in outcomes.items() if c for r in o.checks]
        yield from _check_results(camp_checks, tests, results)

    assets.append(_campaigns)

    # ---- comparison and inventory models, the catalog
    shared = [*plan.shared, *plan.after_catalog]
    catalog_tables = [t for t in META_TABLES if t != PAGE_SOURCES]
    shared_names = {m.name for m in shared} | set(catalog_tables)
    shared_checks = _check_specs([*plan.tests.get("shared", []), *plan.tests.get("after_catalog", [])],
                                 list(shared_names), order)
    late = {m.name for m in [*plan.after_catalog, *plan.after_pages]}
    meta_deps = sorted(m.name for m in layout.models if m.name not in late)
    specs = [_spec(m, all_tables, shared_names, m.layer) for m in plan.shared]
    specs += [AssetSpec(t, group_name="catalog", kinds={"duckdb", "python"}, deps=meta_deps,
                        owners=OWNERS, description=META_DESCRIPTIONS[t]) for t in catalog_tables]
    specs += [_spec(m, all_tables, shared_names, m.layer) for m in plan.after_catalog]

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
            schemas = _column_schemas(con, lay, shared_names)
        yield from _model_results(plan.shared, rows, schemas)
        for t in catalog_tables:
            yield MaterializeResult(asset_key=t, metadata={**stats, "published": len(published)})
        yield from _model_results(plan.after_catalog, rows, schemas)
        yield from _check_results(shared_checks, tests, results)

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
    checks = _check_specs(plan.tests.get("after_pages", []), list(names), order)
    specs = [AssetSpec(PAGE_SOURCES, group_name="catalog", kinds={"duckdb", "python"},
                       deps=sorted(p.asset_name for p in recorders), owners=OWNERS,
                       description=META_DESCRIPTIONS[PAGE_SOURCES])]
    specs += [_spec(m, all_tables, names, m.layer) for m in plan.after_pages]

    @multi_asset(name="page_sourced_models", specs=specs, check_specs=checks)
    def _after_pages(context: AssetExecutionContext, warehouse: Warehouse):
        lay = warehouse.layout
        with warehouse.connect() as con:
            published = [(c, s["area"]) for c, s in statuses(con).items()
                         if s["status"] == "published"]
            kept = page_sources.prune(con, pages_mod.page_slugs(recorders, published))
            rows = build_shared(con, lay, plan.after_pages)
            results = run_tests(con, lay, "after_pages")
            schemas = _column_schemas(con, lay, names)
        yield MaterializeResult(asset_key=PAGE_SOURCES, metadata={"rows": kept})
        yield from _model_results(plan.after_pages, rows, schemas)
        yield from _check_results(checks, tests, results)

    return _after_pages
