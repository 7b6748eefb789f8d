"""What the SQL assets tell Dagster about a model or a check: its spec (description, grain,
upstreams, SQL file), its columns with what they hold, and a check's result over campaigns."""

from dagster import (
    AssetCheckResult,
    AssetCheckSeverity,
    AssetCheckSpec,
    AssetSpec,
    MaterializeResult,
    MetadataValue,
    TableColumn,
    TableSchema,
)

from pipeline.orchestration.raw_assets import OWNERS
from pipeline.warehouse import column_notes


def column_schemas(con, layout, names, database: str | None = None) -> dict[str, dict]:
    """``{model: {"dagster/column_schema": ...}}``: each built table's columns with their DuckDB
    type and what they hold (the SQL's ``-- column`` lines, column_notes.py), so the asset's
    page in ``dagster dev`` shows what the Data dictionary shows. A table not built: nothing.
    ``database``: an attached file's (its main schema), else the warehouse's main."""
    rows = con.execute("select table_name, column_name, data_type from duckdb_columns() where "
                       "database_name = coalesce(?, current_database()) and schema_name = 'main' "
                       "order by table_name, column_index", [database]).fetchall()
    rows = [r for r in rows if r[0] in set(names)]
    notes = column_notes.describe(layout.models, [(t, c) for t, c, _ in rows],
                                  column_notes.glossary(layout.project.sql))
    out: dict[str, list] = {}
    for t, c, typ in rows:
        out.setdefault(t, []).append(TableColumn(c, typ, description=notes.get((t, c.lower()), (None,))[0]))
    return {t: {"dagster/column_schema": TableSchema(columns=cols)} for t, cols in out.items()}


def description(model) -> str:
    """What the model is (its description comment) and its grain (one row per …)."""
    grain = f"Grain: {model.grain}." if model.grain else ""
    return (model.description + ("\n\n" + grain if grain else "")) if model.description else \
        (grain or model.name)


def spec(model, tables, internal: set[str], group: str) -> AssetSpec:
    deps = sorted({key for t in model.upstreams for key in
                   ([t] if t in internal else tables.get(t, []))})
    return AssetSpec(model.name, group_name=group, kinds={"duckdb", "sql"}, deps=deps,
                     owners=OWNERS, description=description(model),
                     metadata={"sql_file": f"sql/{model.layer}/{model.path.name}"})


def check_specs(tests, asset_names: list[str], order: list[str]) -> list[AssetCheckSpec]:
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


def check_result(spec: AssetCheckSpec, test, results: list[dict]) -> AssetCheckResult:
    failing = [r for r in results if not r["passed"]]
    severity = AssetCheckSeverity.ERROR if test.blocking else AssetCheckSeverity.WARN
    return AssetCheckResult(
        asset_key=spec.asset_key, check_name=spec.name, passed=not failing, severity=severity,
        metadata={"failing_campaigns": ", ".join(str(r["campaign"]) for r in failing if r["campaign"]),
                  "failing_rows": sum(r["failing_rows"] for r in failing),
                  "first_rows": "; ".join(r["first_rows"] for r in failing)[:2000],
                  "sql_file": f"sql/tests/{test.path.name}"})


def model_results(models, rows: dict, schemas: dict):
    for m in models:
        yield MaterializeResult(asset_key=m.name, metadata={"rows": rows[m.name],
                                                            **schemas.get(m.name, {})})


def check_results(specs, tests: dict, results: list[dict]):
    for spec in specs:
        yield check_result(spec, tests[spec.name],
                            [r for r in results if r["check_name"] == spec.name])
