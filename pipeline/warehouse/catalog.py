"""The warehouse describing itself, written in main by the shared step:

- ``meta_models``: each SQL model with its grain sentence, layer, scope and upstreams (the data
  dictionary's backbone); ``meta_columns``: the columns of every model built before the catalog
  (campaign models as the campaign template has them, so the dictionary never depends on which
  campaigns exist), each with the description its SQL comments give it (column_notes.py);
- ``meta_check_results``: every ``sql/tests`` check's outcome, per campaign for campaign checks;
- ``meta_campaign_status``: every campaign, published or withheld, with the reasons;
- ``meta_declared_files``: each declared-parameter CSV and campaign manifest with size, sha256
  and rows;
- ``meta_rejected_paths``: what under an area folder cannot be a campaign (never read);
- ``meta_build_inputs``: the content digest of every campaign folder (as its last scan saw it)
  and of ``raw_data/reference/`` that this build covered: the raw_data sensor's memory.
"""
from __future__ import annotations

import json
from typing import TYPE_CHECKING

from pipeline.ingest import reference
from pipeline.ingest.scan import rejected_folders
from pipeline.util.sql import insert_frame, new_table, q
from pipeline.warehouse import column_notes, unions
from pipeline.warehouse.campaign import CHECK_COLUMNS, STATUS_COLUMNS
from pipeline.warehouse.lineage import file_sha
from pipeline.warehouse.schemas import EVERY

if TYPE_CHECKING:  # imported where it is used: importing the definitions does not load it
    import pandas as pd


def _insert_frame(con, table: str, frame: pd.DataFrame, columns: dict[str, str]) -> None:
    new_table(con, f"main.{q(table)}", columns)
    insert_frame(con, f"main.{q(table)}", frame.reindex(columns=list(columns)))


def _insert_rows(con, table: str, rows: list[dict], columns: dict[str, str]) -> None:
    import pandas as pd
    _insert_frame(con, table, pd.DataFrame(rows), columns)


def write_models(con, layout) -> None:
    import pandas as pd
    rows = [{"model": m.name, "layer": m.layer, "scope": layout.plan.group(m.name),
             "grain": m.grain, "description": m.description,
             "sql_file": f"sql/{m.layer}/{m.path.name}", "upstreams": ", ".join(m.upstreams)}
            for m in layout.models]
    _insert_rows(con, "meta_models", rows,
                  {"model": "VARCHAR", "layer": "VARCHAR", "scope": "VARCHAR", "grain": "VARCHAR",
                   "description": "VARCHAR", "sql_file": "VARCHAR", "upstreams": "VARCHAR"})
    built = {m.name: ("main" if layout.plan.group(m.name) != "campaign" else EVERY)
             for m in layout.models if layout.plan.group(m.name) in ("reference", "campaign",
                                                                      "comparison", "inventory")
             and m not in layout.plan.after_catalog and m not in layout.plan.after_pages}
    parts = []
    for name, schema in sorted(built.items()):
        parts.append(con.execute(
            "select table_name, column_name, column_index, data_type from duckdb_columns() "
            "where database_name = current_database() and schema_name = ? and table_name = ?",
            [schema, name]).df())
    frame = pd.concat(parts) if parts else pd.DataFrame()
    if len(frame):
        notes = column_notes.describe(layout.models, list(zip(frame.table_name, frame.column_name)),
                                      column_notes.glossary(layout.project.sql))
        found = [notes.get((t, c.lower()), (None, None))
                 for t, c in zip(frame.table_name, frame.column_name)]
        frame = frame.assign(description=[d for d, _ in found], described_in=[w for _, w in found])
    _insert_frame(con, "meta_columns", frame, {"table_name": "VARCHAR", "column_name": "VARCHAR",
                                               "column_index": "BIGINT", "data_type": "VARCHAR",
                                               "description": "VARCHAR", "described_in": "VARCHAR"})


def write_checks_and_status(con, shared_results: list[dict]) -> None:
    import pandas as pd
    results = q(unions.RESULTS)
    parts = [pd.DataFrame(shared_results, columns=list(CHECK_COLUMNS)),
             con.execute(f"select * from {results}.{unions.CHECKS_TABLE} order by campaign, rowid").df()]
    checks = pd.concat([p for p in parts if len(p)]) if any(len(p) for p in parts) else parts[0]
    _insert_frame(con, "meta_check_results", checks, CHECK_COLUMNS)
    frame = pd.DataFrame([{"campaign": c, "area": s["area"], "status": s["status"],
                           "reasons": json.dumps(s["reasons"], ensure_ascii=False)}
                          for c, s in unions.statuses(con).items()], columns=list(STATUS_COLUMNS))
    _insert_frame(con, "meta_campaign_status", frame, STATUS_COLUMNS)


def write_declared_files(con, project) -> None:
    rows = []
    for path in reference.reference_files(project.reference):
        name = reference.table_name(path)
        n = con.execute(f"select count(*) from main.{q(name)}").fetchall()[0][0]
        rows.append({"source_file": path.relative_to(project.raw_data).as_posix(),
                     "kind": "reference", "table_name": name, "size_bytes": path.stat().st_size,
                     "sha256": file_sha(path), "rows_ingested": n})
    for (manifest,) in con.execute(
            f"select manifest_file from {q(EVERY)}.raw_campaigns order by 1").fetchall():
        path = project.raw_data / manifest
        if path.is_file() and not path.is_symlink():
            rows.append({"source_file": manifest, "kind": "manifest", "table_name": "raw_campaigns",
                         "size_bytes": path.stat().st_size, "sha256": file_sha(path),
                         "rows_ingested": 1})
    _insert_rows(con, "meta_declared_files", rows,
                  {"source_file": "VARCHAR", "kind": "VARCHAR", "table_name": "VARCHAR",
                   "size_bytes": "BIGINT", "sha256": "VARCHAR", "rows_ingested": "BIGINT"})


def write_rejected(con, project) -> None:
    rows = [{"source_file": f.source_file, "status": f.status, "reason": f.reason}
            for f in rejected_folders(project.raw_data)]
    _insert_rows(con, "meta_rejected_paths", rows,
                  {"source_file": "VARCHAR", "status": "VARCHAR", "reason": "VARCHAR"})


BUILD_INPUT_COLUMNS = {"folder": "VARCHAR", "campaign": "VARCHAR", "content_sha256": "VARCHAR"}
REFERENCE_FOLDER = "reference"


def write_build_inputs(con, project) -> None:
    from pipeline.ingest.digest import folder_digest
    rows = [{"folder": f"{area}/{c}", "campaign": c, "content_sha256": d}
            for c, area, d in con.execute(
                f"select campaign, area, content_sha256 from {q(EVERY)}.raw_campaigns").fetchall()]
    rows.append({"folder": REFERENCE_FOLDER, "campaign": None,
                 "content_sha256": folder_digest(project.reference)})
    _insert_rows(con, "meta_build_inputs", rows, BUILD_INPUT_COLUMNS)


def write_catalog(con, layout, shared_results: list[dict], statuses) -> dict:
    project = layout.project
    write_models(con, layout)
    write_rejected(con, project)
    write_checks_and_status(con, shared_results)
    write_declared_files(con, project)
    write_build_inputs(con, project)
    return {"models": len(layout.models), "campaigns": len(statuses)}

