"""What a build of the shipped tree produced, as one digest per relation and per docs/ file.

The SQL mutation harness compares a mutant's build with the original's: a mutant whose build
leaves every relation and every page as it was cannot be caught by a test that reads that build,
so those tests are not run for it (the tests on hand-made tables still are).

A relation's digest is its row count and the sum of its rows' hashes (order-blind, duplicates
counted). Two builds of the same tree give the same digests (checked once per run by the
harness: a relation that differs between them is reported and always counts as changed).
"""
from __future__ import annotations

import hashlib
from pathlib import Path

import duckdb


def relations(db: Path) -> dict[str, str]:
    """``schema.name`` -> digest of every table and view in the warehouse at ``db``."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        rels = con.execute(
            "select schema_name, table_name from duckdb_tables() where not internal union all "
            "select schema_name, view_name from duckdb_views() where not internal "
            "and schema_name not in ('information_schema', 'pg_catalog')").fetchall()
        out = {}
        for schema, name in rels:
            qualified = f'"{schema}"."{name}"'
            try:
                count, total = con.execute(
                    f"select count(*), coalesce(sum(hash(x)::hugeint), 0) from {qualified} as x"
                ).fetchone()
                out[f"{schema}.{name}"] = f"{count}:{total}"
            except duckdb.Error as exc:      # a view the mutant broke: its error is its digest
                out[f"{schema}.{name}"] = f"error: {type(exc).__name__}"
        return out
    finally:
        con.close()


def pages(docs: Path) -> dict[str, str]:
    """``path`` -> sha256 of every file under ``docs``."""
    return {p.relative_to(docs).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(docs.rglob("*")) if p.is_file()}


def differences(before: dict[str, str], after: dict[str, str]) -> list[str]:
    """The keys whose digest differs, or that only one side has."""
    return sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
