"""The campaign models: one asset per model, made by one graph with a step per campaign.

Each campaign's step builds that campaign's models and checks in its own DuckDB file
(pipeline/warehouse/campaign_files.py) and nothing else, so campaigns need no shared writer and
the multiprocess or Celery executors build them side by side, as they parse them
(pipeline/orchestration/scale_out.py). One more step builds the template (every model on no
data), and a last one reports each model's rows over the run's campaigns and each check's
outcome. The models' dependencies on the raw tables, the reference tables and each other are
declared one by one, as for the other SQL assets.
"""

import inspect
import sys

from dagster import (
    AssetKey,
    AssetsDefinition,
    DynamicOut,
    DynamicOutput,
    GraphOut,
    In,
    Nothing,
    OpExecutionContext,
    Out,
    Output,
    graph,
    op,
)

from pipeline.orchestration.model_specs import check_result, check_specs, column_schemas, description
from pipeline.orchestration.partitions import CAMPAIGNS, run_campaigns
from pipeline.orchestration.raw_assets import OWNERS, mapping_key
from pipeline.orchestration.resources import Warehouse
from pipeline.warehouse.campaign_files import read_summary, scratch_attached
from pipeline.warehouse.schemas import TEMPLATE
from pipeline.warehouse.steps import Layout, build_one_healing

NAME = "campaign_models"


def healed_log(context):
    """A line for the build's own output as well as the run's log (a file set aside)."""
    def log(line: str) -> None:
        context.log.warning(line)
        print(line, file=sys.stderr)
    return log


def _as_dict(out) -> dict:
    return {"campaign": out.campaign, "status": out.status, "reasons": out.reasons,
            "rows": out.rows, "kept": out.kept, "checks": out.checks}


def _ops(inputs: list[str], outs: list[str]):
    nothing = {name: In(Nothing) for name in inputs}

    @op(name="campaigns_of_model_run", ins=nothing, out=DynamicOut(str),
        description="One output per campaign partition of the run, once the raw tables and the "
                    "reference data are built.")
    def campaigns(context: OpExecutionContext):
        taken: set[str] = set()
        for campaign in run_campaigns(context):
            yield DynamicOutput(campaign, mapping_key=mapping_key(campaign, taken))

    @op(name="campaign_template", ins=nothing,
        description="Every campaign model on no data, in the template's own file: it gives the "
                    "unions their columns and proves each model runs on no rows.")
    def template(context: OpExecutionContext, warehouse: Warehouse) -> dict:
        with warehouse.building(None):
            return _as_dict(build_one_healing(warehouse.layout, None, healed_log(context)))

    @op(name="campaign_model_step",
        description="One campaign's models and checks, in its own DuckDB file (no shared "
                    "writer): a model whose inputs are those its table was built from is kept.")
    def build(context: OpExecutionContext, warehouse: Warehouse, campaign: str) -> dict:
        with warehouse.building(campaign):
            out = build_one_healing(warehouse.layout, campaign, healed_log(context))
        for reason in out.reasons if out.status == "withheld" else []:
            context.log.warning(f"campaign {campaign} withheld: {reason['subject']}: "
                                f"{reason['detail']}")
        return _as_dict(out)

    @op(name="campaign_models_summary", out={name: Out(Nothing) for name in outs},
        description="Each campaign model's rows over the run's campaigns, and each campaign "
                    "check's outcome.")
    def summary(context: OpExecutionContext, warehouse: Warehouse, built: dict,
                results: list[dict]):
        yield from _summary(context, warehouse, results)

    return campaigns, template, build, summary


def _outside(layout, results: list[dict]) -> list[dict]:
    """The tables of the campaigns outside the run's range, as their files' summaries say: kept
    as they are (a run over some campaigns builds no other's)."""
    ran = {r["campaign"] for r in results}
    found = []
    for _, campaign in layout.campaigns():
        summary = None if campaign in ran else read_summary(layout.project.warehouse, campaign)
        if summary is not None:
            found.append(summary["tables"])
    return found


def _summary(context, warehouse: Warehouse, results: list[dict]):
    layout = warehouse.layout
    plan = layout.plan
    names = set(plan.campaign_tables)
    with scratch_attached(layout.project.warehouse, [None]) as con:
        schemas = column_schemas(con, layout, names, TEMPLATE)
    outside = _outside(layout, results)
    for m in plan.campaign:
        held = sum(m.name in tables for tables in outside)
        yield Output(None, m.name, metadata={
            "rows": sum(r["rows"].get(m.name, 0) for r in results),
            "campaigns": len(results) + held, "outside_run": held,
            "kept": sum(m.name in r["kept"] for r in results) + held, **schemas.get(m.name, {})})
    specs = check_specs(plan.tests.get("campaign", []), list(names), [m.name for m in layout.models])
    tests = {t.name: t for t in layout.tests}
    checks = [c for r in results for c in r["checks"]]
    for spec in specs:
        yield check_result(spec, tests[spec.name], [c for c in checks if c["check_name"] == spec.name])


def campaign_models_asset(layout: Layout, all_tables: dict[str, list[str]]) -> AssetsDefinition:
    plan = layout.plan
    names = [m.name for m in plan.campaign]
    internal = set(names)
    order = [m.name for m in layout.models]
    specs = check_specs(plan.tests.get("campaign", []), names, order)
    deps = {m.name: {AssetKey(k) for t in m.upstreams
                     for k in ([t] if t in internal else all_tables.get(t, []))} for m in plan.campaign}
    inputs = sorted({k.path[-1] for ks in deps.values() for k in ks if k.path[-1] not in internal})
    check_outs = [s.get_python_identifier() for s in specs]
    campaigns, template, build, summary = _ops(inputs, [*names, *check_outs])

    def body(**upstream):
        made = template(**upstream)
        outs = summary(made, campaigns(**upstream).map(build).collect())
        return dict(zip([*names, *check_outs], outs))

    body.__signature__ = inspect.Signature(
        [inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD) for n in inputs])
    body.__name__ = NAME
    graph_def = graph(name=NAME, description="Every campaign model, a step per campaign.",
                      out={n: GraphOut() for n in [*names, *check_outs]})(body)
    return AssetsDefinition.from_graph(
        graph_def, keys_by_input_name={n: AssetKey(n) for n in inputs},
        keys_by_output_name={n: AssetKey(n) for n in names}, internal_asset_deps=deps,
        partitions_def=CAMPAIGNS, check_specs=specs,
        group_names_by_output_name={m.name: m.layer for m in plan.campaign},
        descriptions_by_output_name={m.name: description(m) for m in plan.campaign},
        metadata_by_output_name={m.name: {"sql_file": f"sql/{m.layer}/{m.path.name}"}
                                 for m in plan.campaign},
        tags_by_output_name={m.name: {"dagster/kind/duckdb": "", "dagster/kind/sql": ""}
                             for m in plan.campaign},
        owners_by_output_name={m.name: OWNERS for m in plan.campaign})
