"""Dagster assets for ``sql/``: one asset per model, one asset check per ``sql/tests`` file."""

from dagster import (AssetCheckExecutionContext, AssetCheckResult, AssetCheckSeverity,
                     AssetExecutionContext, AssetKey, MaterializeResult, asset, asset_check)

from . import models
from .project import Project
from .resources import Warehouse


def model_asset(model: models.Model, tables: dict[str, list[str]]):
    deps = sorted({key for t in model.upstreams for key in tables.get(t, [])})

    @asset(name=model.name, group_name=model.layer, kinds={"duckdb", "sql"}, deps=deps,
           description=(model.grain or "") + ("\n\n" + model.description if model.description else ""),
           metadata={"sql_file": str(model.path.relative_to(model.path.parents[2]))})
    def _build(context: AssetExecutionContext, warehouse: Warehouse) -> MaterializeResult:
        with warehouse.connect() as con:
            rows = models.run_model(con, model)
        return MaterializeResult(metadata={"rows": rows})

    return _build


def sql_check(test: models.Model, tables: dict[str, list[str]], model_names: list[str]):
    """Attach the test to the most downstream model it reads."""
    readers = [t for t in test.upstreams if t in model_names]
    target_table = max(readers, key=model_names.index) if readers else None
    if target_table is None:
        candidates = [k for t in test.upstreams for k in tables.get(t, [])]
        target_table = candidates[0] if candidates else None
    if target_table is None:
        raise models.ModelError(f"{test.path}: reads no known table, so it checks nothing")

    @asset_check(asset=AssetKey(target_table), name=test.name, blocking=test.blocking,
                 description=test.check_sentence)
    def _check(context: AssetCheckExecutionContext, warehouse: Warehouse) -> AssetCheckResult:
        with warehouse.connect() as con:
            rows = models.run_test(con, test)
        severity = AssetCheckSeverity.ERROR if test.blocking else AssetCheckSeverity.WARN
        return AssetCheckResult(passed=not rows, severity=severity,
                                metadata={"failing_rows": len(rows),
                                          "first_rows": repr(rows[:5]),
                                          "sql_file": f"sql/tests/{test.path.name}"})

    return _check


def sql_assets(project: Project, tables: dict[str, list[str]]):
    found = models.discover(project.sql)
    models.check_upstreams(found, set(tables))
    ordered = [m.name for m in models.topological(found)]
    all_tables = dict(tables)
    for m in found:
        all_tables[m.name] = [m.name]
    tests = models.discover_tests(project.sql)
    models.check_upstreams(tests, set(all_tables))
    assets = [model_asset(m, all_tables) for m in found]
    checks = [sql_check(t, all_tables, ordered) for t in tests]
    return assets, checks, all_tables
