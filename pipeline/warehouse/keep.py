"""Which of a campaign's model tables a build can keep: a content digest per model.

A campaign model's digest covers everything its table is computed from: its SQL, the macros,
the warehouse code that runs it, and the digest of each table it reads: another campaign model's
digest, the campaign's raw inputs (the manifest, the file list and each parsed file's store key,
which names its content and parser version) or the reference data (the reference CSVs and the
reference models' SQL). A model whose digest equals the one recorded in the campaign's schema
when its table was last built is kept; any other is built again, and so is everything
downstream of it, whose digest changes with it. The decision never looks at file times.
``INTERCONNECT_REBUILD=all`` (``make docs`` with ``--force``) keeps nothing.
"""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from pipeline.util.sql import q

DIGESTS = "meta_model_digests"
REBUILD_ENV = "INTERCONNECT_REBUILD"
_CODE = Path(__file__).resolve().parent


def rebuild_all() -> bool:
    return os.environ.get(REBUILD_ENV, "") == "all"


def _sha(*parts: str) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()


def code_digest() -> str:
    """The warehouse package's own source (how a model is run, how a schema is laid out)."""
    return _sha(*(p.name + p.read_text(encoding="utf-8") for p in sorted(_CODE.glob("*.py"))))


def reference_digest(reference_files: list[Path], reference_models) -> str:
    """The reference CSVs' bytes and the reference models' SQL."""
    files = [p.name + hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(reference_files)]
    return _sha(*files, *(m.name + m.sql for m in sorted(reference_models, key=lambda m: m.name)))


def raw_digest(con, schema: str) -> str:
    """The campaign's raw inputs as its schema's views show them: the manifest row, the file
    list and the registry of parsed files (source, sha256, store key, parser version)."""
    parts = []
    for table in ("raw_campaigns", "raw_files", "ingest_registry"):
        rows = con.execute(f"select * from {q(schema)}.{q(table)}").fetchall()
        parts.append(table + json.dumps(sorted(map(repr, rows))))
    return _sha(*parts)


def model_digests(models, macros: str, raw: str, reference: str, reference_names: set[str]) -> dict[str, str]:
    """name -> digest of each campaign model (``models`` in dependency order)."""
    code = code_digest()
    out: dict[str, str] = {}
    for model in models:
        ups = []
        for up in sorted(model.upstreams):
            source = out.get(up) or (reference if up in reference_names else raw)
            ups.append(f"{up}={source}")
        out[model.name] = _sha(model.sql, macros, code, *ups)
    return out


def recorded(con, schema: str) -> dict[str, str]:
    """The digests recorded when each table of the schema was last built."""
    exists = con.execute("select count(*) from duckdb_tables() where schema_name = ? and "
                         "table_name = ?", [schema, DIGESTS]).fetchall()[0][0]
    if not exists:
        return {}
    return dict(con.execute(f"select model, digest from {q(schema)}.{q(DIGESTS)}").fetchall())


def record(con, schema: str, digests: dict[str, str]) -> None:
    con.execute(f"create or replace table {q(schema)}.{q(DIGESTS)} (model varchar, digest varchar)")
    if digests:
        con.executemany(f"insert into {q(schema)}.{q(DIGESTS)} values (?, ?)", sorted(digests.items()))
