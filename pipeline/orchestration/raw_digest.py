"""What the raw layer holds, in a form two runs can be compared by (pipeline/orchestration/scale_out.py, the
bench's parallel target, tests/orchestration/test_scale_out.py)."""
from __future__ import annotations

from pipeline.ingest.runner import columns_of
from pipeline.ingest.store import CAMPAIGN_COLUMNS, FILE_COLUMNS
from pipeline.project import Project
from pipeline.util import scratch
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
