"""Dagster assets of the raw layer: each campaign's manifest, one asset per raw format (both
partitioned by campaign), and the declared-parameter CSVs."""

from dagster import (AssetExecutionContext, AssetSpec, Definitions, MaterializeResult, asset,
                     definitions, multi_asset)

from ..project import Project
from ..build_steps import Layout, ingest, load_references, scan
from ..ingest.base import Format
from .partitions import CAMPAIGNS, run_campaigns
from .resources import Warehouse

GROUP_RAW = "raw"
GROUP_REFERENCE = "reference"
OWNERS = ["team:interconnect-docs"]


def manifest_asset():
    @multi_asset(
        name="raw_manifest", partitions_def=CAMPAIGNS,
        specs=[AssetSpec("raw_campaigns", group_name=GROUP_RAW, kinds={"yaml", "parquet"},
                         owners=OWNERS,
                         description="The campaign's manifest.yaml, checked field by field: one "
                                     "row per campaign with its hosts, links and params, or why "
                                     "the manifest is unusable (the campaign is then withheld)."),
               AssetSpec("raw_files", group_name=GROUP_RAW, kinds={"yaml", "parquet"},
                         owners=OWNERS,
                         description="Every file in the campaign folder with its context and "
                                     "status (listed, unlisted, missing, refused symlink, "
                                     "duplicate …), size and sha256. Links are never followed.")])
    def raw_manifest(context: AssetExecutionContext, warehouse: Warehouse):
        warehouse.lock()
        layout = warehouse.layout
        counts = {"campaigns": 0, "files": 0, "not_ingestable": 0}
        for campaign in run_campaigns(context):
            result = scan(layout, campaign)
            counts["campaigns"] += 1
            counts["files"] += len(result.files)
            for f in result.files:
                if f.status != "listed":
                    counts["not_ingestable"] += 1
                    context.log.warning(f"{f.status}: {f.reason}")
            if result.problem:
                context.log.warning(f"campaign {campaign} withheld: {result.problem}")
        yield MaterializeResult(asset_key="raw_campaigns", metadata={"campaigns": counts["campaigns"]})
        yield MaterializeResult(asset_key="raw_files", metadata={
            "files": counts["files"], "not_ingestable": counts["not_ingestable"]})

    return raw_manifest


def format_asset(fmt: Format):
    @asset(name=fmt.table, group_name=GROUP_RAW, kinds={"python", "parquet"}, deps=["raw_files"],
           partitions_def=CAMPAIGNS, owners=OWNERS,
           description=(fmt.description or f"Rows parsed from {fmt.name} files.")
           + f" One Parquet file per raw file (parser {fmt.name} v{fmt.version}); an unchanged "
             f"file is not parsed again, a bad one is quarantined with its file:line reason.")
    def _ingest(context: AssetExecutionContext, warehouse: Warehouse) -> MaterializeResult:
        warehouse.lock()
        totals = {"parsed_files": 0, "unchanged_files": 0, "quarantined_files": 0,
                  "removed_files": 0, "rows_parsed": 0}
        for campaign in run_campaigns(context):
            s = ingest(warehouse.layout, campaign, fmt, log=context.log)
            totals["parsed_files"] += s.parsed
            totals["unchanged_files"] += s.skipped
            totals["quarantined_files"] += s.quarantined
            totals["removed_files"] += s.removed
            totals["rows_parsed"] += s.rows
        return MaterializeResult(metadata=totals)

    return _ingest


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
    assets = [manifest_asset()]
    tables: dict[str, list[str]] = {"raw_campaigns": ["raw_campaigns"], "raw_files": ["raw_files"]}
    for fmt in layout.formats.values():
        assets.append(format_asset(fmt))
        tables[fmt.table] = [fmt.table]
    tables["ingest_registry"] = sorted(f.table for f in layout.formats.values())
    if layout.reference_files:
        assets.append(reference_asset(layout))
    for name in layout.reference_tables:
        tables[name] = [name]
    return assets, tables


@definitions
def defs() -> Definitions:
    """The raw layer of the code location's tree (autoloaded by ``dg``)."""
    from ..assembly import loaded_graph
    graph = loaded_graph(str(Project.from_env().root))
    return Definitions(assets=graph.raw)
