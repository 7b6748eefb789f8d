"""Running one SQL model of sql/ on a hand-made DuckDB connection, and reading a table back as
dicts: the helpers of the warehouse tests that build a model on fixtures worked by hand."""
from __future__ import annotations

from pipeline.warehouse import models

from paths import REPO


def run_sql_model(con, rel: str) -> None:
    """Build ``sql/<rel>`` (e.g. ``marts/fct_lab_hop_bytes.sql``) in ``con``."""
    path = REPO / "sql" / rel
    models.run_model(con, models.Model(path, path.read_text()))


def dict_rows(con, sql, args=()) -> list[dict]:
    cur = con.execute(sql, list(args))
    names = [d[0] for d in cur.description]
    return [dict(zip(names, r)) for r in cur.fetchall()]
