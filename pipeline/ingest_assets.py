"""Dagster assets for the raw layer: manifests, one asset per raw format, one per reference CSV."""

from dagster import AssetExecutionContext, AssetSpec, MaterializeResult, asset, multi_asset

from .ingest import discover_formats, reference
from .ingest.base import Format
from .ingest.manifest import scan, write_tables
from .ingest.runner import REGISTRY_DDL, ensure_table, ingest_format
from .project import Project
from .resources import Warehouse

GROUP_RAW = "raw"
GROUP_REFERENCE = "reference"


def manifests_asset(formats: dict[str, Format]):
    @multi_asset(
        specs=[AssetSpec("raw_campaigns", group_name=GROUP_RAW, kinds={"duckdb", "yaml"},
                         description="One row per campaign manifest."),
               AssetSpec("raw_files", group_name=GROUP_RAW, kinds={"duckdb", "yaml"},
                         description="One row per raw file found or listed, with its context.")],
        name="raw_manifests",
    )
    def raw_manifests(context: AssetExecutionContext, warehouse: Warehouse):
        campaigns, files = scan(warehouse.project.raw_data)
        for f in files:
            if f.status == "listed" and f.format not in formats:
                f.status = "unknown_format"
                f.reason = (f"{f.source_file}: manifest format '{f.format}' has no parser "
                            f"(known: {', '.join(sorted(formats))})")
        with warehouse.connect() as con:
            write_tables(con, campaigns, files)
            con.execute(REGISTRY_DDL)
        bad = [f for f in files if f.status not in ("listed",)]
        for f in bad:
            context.log.warning(f"{f.status}: {f.reason}")
        yield MaterializeResult(asset_key="raw_campaigns", metadata={"campaigns": len(campaigns)})
        yield MaterializeResult(asset_key="raw_files",
                                metadata={"files": len(files), "not_ingestable": len(bad)})

    return raw_manifests


def format_asset(fmt: Format):
    @asset(name=fmt.table, group_name=GROUP_RAW, kinds={"duckdb", "python"},
           deps=["raw_files"], description=fmt.description or f"Rows parsed from {fmt.name} files.")
    def _ingest(context: AssetExecutionContext, warehouse: Warehouse) -> MaterializeResult:
        with warehouse.connect() as con:
            ensure_table(con, fmt)
            summary = ingest_format(con, fmt, warehouse.project.raw_data, log=context.log)
            total = con.execute(f'select count(*) from "{fmt.table}"').fetchall()[0][0]
        return MaterializeResult(metadata={
            "parsed_files": summary.parsed, "unchanged_files": summary.skipped,
            "quarantined_files": summary.quarantined, "removed_files": summary.removed,
            "rows": total})

    return _ingest


def reference_asset(path):
    name = reference.table_name(path)

    @asset(name=name, group_name=GROUP_REFERENCE, kinds={"duckdb", "csv"},
           description=f"Declared parameters from raw_data/reference/{path.name}.")
    def _load(warehouse: Warehouse) -> MaterializeResult:
        with warehouse.connect() as con:
            rows = reference.load(con, warehouse.project.reference / path.name)
        return MaterializeResult(metadata={"rows": rows})

    return _load


def raw_assets(project: Project):
    """Assets plus the map from each table they write to the assets that write it."""
    formats = discover_formats()
    assets = [manifests_asset(formats)]
    tables: dict[str, list[str]] = {"raw_campaigns": ["raw_campaigns"], "raw_files": ["raw_files"]}
    for fmt in formats.values():
        assets.append(format_asset(fmt))
        tables[fmt.table] = [fmt.table]
    # Every format asset writes its files' outcome into the shared registry.
    tables["ingest_registry"] = ["raw_files", *sorted(f.table for f in formats.values())]
    for path in reference.reference_files(project.reference):
        assets.append(reference_asset(path))
        tables[reference.table_name(path)] = [reference.table_name(path)]
    return assets, tables
