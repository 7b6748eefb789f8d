"""Which of a campaign's model tables a build can keep: a content digest per model.

A campaign model's digest covers everything its table is computed from: its SQL, the macros,
the warehouse code that runs it, and the digest of each table it reads: another campaign model's
digest, the campaign's raw inputs (the manifest, the file list and each parsed file's store key,
which names its content and parser version) or the reference data (the reference CSVs and the
reference models' SQL). A model whose digest equals the one recorded in the campaign's schema
when its table was last built is kept; any other is built again, and so is everything
downstream of it, whose digest changes with it. The decision never looks at file times.
``INTERCONNECT_REBUILD=all`` (``make docs`` with ``--force``) keeps nothing.

A campaign whose every model digest, and the digest of its checks (their SQL and the models'
digests, ``CHECKS``), equal the recorded ones is kept whole: its tables, check results and
status stand as they are, and no model or check runs (``unchanged``). The template (every
campaign model on no data, in its own file: the unions' columns) is kept the same way; what it
reads of the raw layer is its raw tables' columns, as it holds no rows.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

from pipeline.util.hashing import sha256_of, sha256_of_parts
from pipeline.util.sql import q
from pipeline.warehouse.schemas import located

DIGESTS = "meta_model_digests"
CHECKS = "#checks"          # the row of the campaign's checks in DIGESTS
RAW = "#raw"                # the campaign's raw inputs (raw_digest), in an outcome's digests
REBUILD_ENV = "INTERCONNECT_REBUILD"
_CODE = Path(__file__).resolve().parent


def rebuild_all() -> bool:
    return os.environ.get(REBUILD_ENV, "") == "all"


def code_digest() -> str:
    """The warehouse package's own source (how a model is run, how a schema is laid out)."""
    return sha256_of_parts(*(p.name + p.read_text(encoding="utf-8") for p in sorted(_CODE.glob("*.py"))))


def reference_digest(reference_files: list[Path], reference_models) -> str:
    """The reference CSVs' bytes and the reference models' SQL."""
    files = [p.name + sha256_of(p) for p in sorted(reference_files)]
    return sha256_of_parts(*files, *(m.name + m.sql for m in sorted(reference_models, key=lambda m: m.name)))


def raw_digest(con, schema: str) -> str:
    """The campaign's raw inputs as its schema's views show them: the manifest row, the file
    list and the registry of parsed files (source, sha256, store key, parser version)."""
    parts = []
    for table in ("raw_campaigns", "raw_files", "ingest_registry"):
        rows = con.execute(f"select * from {q(schema)}.{q(table)}").fetchall()
        parts.append(table + json.dumps(sorted(map(repr, rows))))
    return sha256_of_parts(*parts)


def model_digests(models, macros: str, raw: str, reference: str, reference_names: set[str]) -> dict[str, str]:
    """name -> digest of each campaign model (``models`` in dependency order)."""
    code = code_digest()
    out: dict[str, str] = {}
    for model in models:
        ups = []
        for up in sorted(model.upstreams):
            source = out.get(up) or (reference if up in reference_names else raw)
            ups.append(f"{up}={source}")
        out[model.name] = sha256_of_parts(model.sql, macros, code, *ups)
    return out


def checks_digest(tests, digests: dict[str, str]) -> str:
    """The campaign's checks: their SQL and the digest of every model (a check may read any)."""
    return sha256_of_parts(*(t.name + t.sql for t in sorted(tests, key=lambda t: t.name)),
                *(f"{n}={d}" for n, d in sorted(digests.items())))


def recorded(con, schema: str) -> dict[str, tuple[str, int | None]]:
    """model -> (digest, rows) recorded when each table of the schema was last built."""
    database, name = located(con, schema)
    cols = {r[0] for r in con.execute("select column_name from duckdb_columns() where "
                                      "database_name = ? and schema_name = ? and table_name = ?",
                                      [database, name, DIGESTS]).fetchall()}
    if not cols:
        return {}
    rows = "rows" if "rows" in cols else "null"
    return {m: (d, n) for m, d, n in con.execute(
        f"select model, digest, {rows} from {q(schema)}.{q(DIGESTS)}").fetchall()}


def unchanged(before: dict[str, tuple[str, int | None]], digests: dict[str, str]) -> bool:
    """Whether every model and the checks were built from exactly these inputs last time."""
    return bool(digests) and set(before) == set(digests) and all(
        before[n][0] == d and (n == CHECKS or before[n][1] is not None) for n, d in digests.items())


def record(con, schema: str, digests: dict[str, str], rows: dict[str, int]) -> None:
    con.execute(f"create or replace table {q(schema)}.{q(DIGESTS)} "
                f"(model varchar, digest varchar, rows bigint)")
    if digests:
        con.executemany(f"insert into {q(schema)}.{q(DIGESTS)} values (?, ?, ?)",
                        [(n, d, rows.get(n)) for n, d in sorted(digests.items())])
