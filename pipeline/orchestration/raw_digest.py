"""What the raw layer and the campaigns' models hold, in a form two runs can be compared by
(pipeline/orchestration/scale_out.py, the bench's parallel target, tests/orchestration/test_scale_out.py)."""
from __future__ import annotations

from pipeline.ingest.runner import columns_of
from pipeline.ingest.store import CAMPAIGN_COLUMNS, FILE_COLUMNS
from pipeline.project import Project
from pipeline.util import scratch
from pipeline.util.sql import q
from pipeline.warehouse import campaign_files
from pipeline.warehouse.schemas import campaign_schema
from pipeline.warehouse.steps import Layout


def raw_digest(project: Project) -> dict[str, tuple]:
    """What the raw layer holds, comparable across runs: per campaign and raw table, the row
    count and an order-free digest of the rows (DuckDB ``hash`` of each row, xor-ed), and each
    registry entry (file, status, rows, reason)."""
    layout = Layout(project)
    store = layout.store
    tables = {"raw_campaigns": CAMPAIGN_COLUMNS, "raw_files": FILE_COLUMNS,
              **{f.table: columns_of(f) for f in layout.formats.values()}}
    con = scratch.cursor()
    out = {}
    try:
        for campaign in store.campaigns():
            for table, columns in tables.items():
                relation = store.relation(campaign, table, columns)
                out[f"{campaign}/{table}"] = tuple(con.execute(
                    f"select count(*), bit_xor(hash(t)) from ({relation}) t").fetchall()[0])
            for e in store.registry(campaign, [f.table for f in layout.formats.values()]):
                out[f"{campaign}/registry/{e['source_file']}"] = (
                    e["status"], e.get("rows_ingested"), e.get("reason"), e.get("parser_version"))
    finally:
        con.close()
    return out


def models_digest(project: Project) -> dict[str, tuple]:
    """What each campaign's file holds, comparable across runs: per campaign and model, the row
    count and an order-free digest of the rows; and the campaign's status."""
    layout = Layout(project)
    warehouse = project.warehouse
    out = {}
    for campaign in campaign_files.on_disk(warehouse):
        with campaign_files.scratch_attached(warehouse, [campaign]) as con:
            schema = q(campaign_schema(campaign))
            for model in layout.plan.campaign:
                out[f"{campaign}/{model.name}"] = tuple(con.execute(
                    f"select count(*), bit_xor(hash(t)) from {schema}.{q(model.name)} t").fetchall()[0])
            out[f"{campaign}/status"] = con.execute(
                f"select status, reasons from {schema}.meta_campaign_status").fetchall()[0]
    return out
