"""Dagster assets of the raw layer: each campaign's manifest and file list, one asset per raw
format (all partitioned by campaign, made by one graph that runs a step per campaign), and the
declared-parameter CSVs."""

import re

from dagster import (
    AssetOut,
    AssetSpec,
    DynamicOut,
    DynamicOutput,
    MaterializeResult,
    Nothing,
    OpExecutionContext,
    Out,
    Output,
    graph_multi_asset,
    multi_asset,
    op,
)

from pipeline.ingest.base import Format
from pipeline.orchestration.partitions import CAMPAIGNS, run_campaigns
from pipeline.orchestration.resources import Warehouse
from pipeline.warehouse.steps import Layout, ingest, load_references, scan

GROUP_RAW = "raw"
GROUP_REFERENCE = "reference"
OWNERS = ["team:interconnect-docs"]


def mapping_key(campaign: str, taken: set[str]) -> str:
    """A Dagster mapping key for ``campaign`` (letters, digits and ``_`` only), unique in the
    run: a campaign whose spelling collides with another's takes a number."""
    key = re.sub(r"[^A-Za-z0-9_]", "_", campaign)
    base, n = key, 1
    while key in taken:
        n += 1
        key = f"{base}_{n}"
    taken.add(key)
    return key


@op(out=DynamicOut(str), description="One output per campaign partition of the run.")
def campaigns_of_run(context: OpExecutionContext):
    taken: set[str] = set()
    for campaign in run_campaigns(context):
        yield DynamicOutput(campaign, mapping_key=mapping_key(campaign, taken))


@op(description="One campaign's raw layer: its folder scanned (manifest, file list) and every "
                "file of every format parsed into its own part of the raw store. Campaigns share "
                "no writer, so they run in parallel steps (multiprocess, Celery or Kubernetes "
                "executors).")
def ingest_campaign(context: OpExecutionContext, warehouse: Warehouse, campaign: str) -> dict:
    with warehouse.ingesting(campaign):
        return _ingest_campaign(context, warehouse.layout, campaign)


def _ingest_campaign(context: OpExecutionContext, layout, campaign: str) -> dict:
    result = scan(layout, campaign)
    not_ingestable = 0
    for f in result.files:
        if f.status != "listed":
            not_ingestable += 1
            context.log.warning(f"{f.status}: {f.reason}")
    if result.problem:
        context.log.warning(f"campaign {campaign} withheld: {result.problem}")
    formats = {}
    for fmt in layout.formats.values():
        s = ingest(layout, campaign, fmt, log=context.log)
        formats[fmt.table] = {"parsed_files": s.parsed, "unchanged_files": s.skipped,
                              "quarantined_files": s.quarantined, "removed_files": s.removed,
                              "rows_parsed": s.rows}
    return {"campaign": campaign, "files": len(result.files), "not_ingestable": not_ingestable,
            "formats": formats}


def summary_op(formats: list[Format]):
    outs = {"raw_campaigns": Out(Nothing), "raw_files": Out(Nothing),
            **{fmt.table: Out(Nothing) for fmt in formats}}

    @op(name="raw_layer_summary", out=outs,
        description="The raw layer's totals over the run's campaigns, one materialization per "
                    "raw table.")
    def _summary(context: OpExecutionContext, results: list[dict]):
        results = sorted(results, key=lambda r: r["campaign"])
        yield Output(None, "raw_campaigns", metadata={"campaigns": len(results)})
        yield Output(None, "raw_files", metadata={
            "files": sum(r["files"] for r in results),
            "not_ingestable": sum(r["not_ingestable"] for r in results)})
        for fmt in formats:
            totals = {k: sum(r["formats"][fmt.table][k] for r in results)
                      for k in ("parsed_files", "unchanged_files", "quarantined_files",
                                "removed_files", "rows_parsed")}
            yield Output(None, fmt.table, metadata=totals)

    return _summary


def raw_layer_asset(formats: list[Format]):
    """Every raw table of the run's campaigns from one graph: a step per campaign (scan, then
    each format), then one step that reports each table. One asset per raw table still."""
    def out(kinds: set[str], description: str) -> AssetOut:
        return AssetOut(kinds=kinds, owners=OWNERS, dagster_type=Nothing, description=description)

    outs = {
        "raw_campaigns": out({"yaml", "parquet"},
                             "The campaign's manifest.yaml, checked field by field: one row per "
                             "campaign with its hosts, links and params, or why the manifest is "
                             "unusable (the campaign is then withheld)."),
        "raw_files": out({"yaml", "parquet"},
                         "Every file in the campaign folder with its context and status "
                         "(listed, unlisted, missing, refused symlink, duplicate …), size and "
                         "sha256. Links are never followed."),
        **{fmt.table: out({"python", "parquet"},
                          (fmt.description or f"Rows parsed from {fmt.name} files.")
                          + f" One Parquet file per raw file (parser {fmt.name} v{fmt.version}); "
                            f"an unchanged file is not parsed again, a bad one is quarantined "
                            f"with its file:line reason.")
           for fmt in formats},
    }
    summary = summary_op(formats)

    @graph_multi_asset(name="raw_layer", outs=outs, partitions_def=CAMPAIGNS, group_name=GROUP_RAW)
    def raw_layer():
        return summary(campaigns_of_run().map(ingest_campaign).collect())

    return raw_layer


def reference_asset(layout: Layout):
    specs = [AssetSpec(name, group_name=GROUP_REFERENCE, kinds={"csv", "duckdb"}, owners=OWNERS,
                       description=f"Declared parameters from raw_data/reference/{path.name}: not "
                                   f"measurements, each row cites its source.")
             for name, path in zip(layout.reference_tables, layout.reference_files)]

    @multi_asset(name="reference_tables", specs=specs)
    def _load(warehouse: Warehouse):
        with warehouse.connect() as con:
            rows = load_references(con, warehouse.layout)
        for name in layout.reference_tables:
            yield MaterializeResult(asset_key=name, metadata={"rows": rows.get(name, 0)})

    return _load


def raw_assets(layout: Layout) -> tuple[list, dict[str, list[str]]]:
    """Assets plus the map from each table to the asset keys that make it."""
    assets = [raw_layer_asset(list(layout.formats.values()))]
    tables: dict[str, list[str]] = {"raw_campaigns": ["raw_campaigns"], "raw_files": ["raw_files"]}
    for fmt in layout.formats.values():
        tables[fmt.table] = [fmt.table]
    tables["ingest_registry"] = sorted(f.table for f in layout.formats.values())
    if layout.reference_files:
        assets.append(reference_asset(layout))
    for name in layout.reference_tables:
        tables[name] = [name]
    return assets, tables
