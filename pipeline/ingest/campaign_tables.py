"""A campaign's manifest and file list as raw tables (``raw_campaigns``, ``raw_files``).

Written into the campaign's folder of the raw store on every scan (they are small), so a
campaign's context lives beside its parsed rows and moves with them.
"""
from __future__ import annotations

import json
from typing import TYPE_CHECKING

from pipeline.ingest.scan import Scan
from pipeline.ingest.store import CAMPAIGN_COLUMNS, FILE_COLUMNS, RawStore, write_parquet
from pipeline.project import KIND_OF_AREA

if TYPE_CHECKING:  # imported where it is used: importing the definitions does not load it
    import pandas as pd


def _json(value) -> str:
    return json.dumps(value, sort_keys=True, default=str)


def campaign_frame(scan: Scan) -> pd.DataFrame:
    import pandas as pd
    c = scan.campaign
    row = {"campaign": scan.name, "area": scan.area, "kind": KIND_OF_AREA[scan.area],
           "title": c.title if c else None, "date": c.date if c else None,
           "provenance": c.provenance if c else None,
           "hosts": _json(c.hosts if c else {}), "links": _json(c.links if c else {}),
           "params": _json(c.params if c else {}),
           "manifest_file": f"{scan.area}/{scan.name}/manifest.yaml",
           "manifest_status": "ok" if c else (
               "no_manifest" if "no manifest.yaml" in (scan.problem or "") else "bad_manifest"),
           "manifest_problem": scan.problem, "content_sha256": scan.content_sha256,
           "manifest_sha256": scan.manifest_sha256}
    return pd.DataFrame([row])


def files_frame(scan: Scan) -> pd.DataFrame:
    import pandas as pd
    rows = [{"source_file": f.source_file, "campaign": scan.name, "format": f.format,
             "manifest_status": f.status, "reason": f.reason, "context": _json(f.context),
             "size_bytes": f.size_bytes, "sha256": f.sha256} for f in scan.files]
    return pd.DataFrame(rows, columns=list(FILE_COLUMNS))


def write_campaign(store: RawStore, scan: Scan) -> None:
    write_parquet(store.table_dir(scan.name, "raw_campaigns") / "manifest.parquet",
                  CAMPAIGN_COLUMNS, campaign_frame(scan))
    write_parquet(store.table_dir(scan.name, "raw_files") / "manifest.parquet",
                  FILE_COLUMNS, files_frame(scan))
