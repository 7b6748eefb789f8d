"""DuckDB schemas of the warehouse: one per campaign, and the views that join them.

- ``"campaign:<name>"``: the campaign's raw tables (views of its Parquet files), its registry
  and every campaign model built from them. Its search path is that schema alone, with views
  of the reference tables it may read, so a name that is not there is an error, never a
  silent fall-through to another campaign's rows.
- ``"campaign template"``: the same tables built from empty inputs. It gives every union view
  its columns even when no campaign exists, and proves each model runs on no data.
- ``"every campaign"``: each campaign table as the union of all campaigns (inventory scope).
- ``main``: references, comparison and inventory models, and each campaign table as the
  union of the *published* campaigns only (a withheld campaign is absent from it).
"""
from __future__ import annotations

from pipeline.util.sql import literal, q

TEMPLATE = "campaign template"
EVERY = "every campaign"
_PREFIX = "campaign:"


def campaign_schema(campaign: str | None) -> str:
    return TEMPLATE if campaign is None else _PREFIX + campaign


def campaign_of_schema(schema: str) -> str | None:
    return schema[len(_PREFIX):] if schema.startswith(_PREFIX) else None


def set_search_path(con, *schemas: str) -> None:
    con.execute(f"set search_path = {literal(','.join(q(s) for s in schemas))}")


def reset_search_path(con) -> None:
    con.execute("set search_path = 'main'")


def objects(con, schema: str) -> dict[str, str]:
    """name -> 'table' | 'view' of the schema's objects."""
    rows = con.execute(
        "select table_name, 'table' from duckdb_tables() where schema_name = ? "
        "union all select view_name, 'view' from duckdb_views() "
        "where schema_name = ? and not internal", [schema, schema]).fetchall()
    return dict(rows)


def drop(con, schema: str, name: str, kinds: dict[str, str] | None = None) -> None:
    kind = (kinds if kinds is not None else objects(con, schema)).get(name)
    if kind:
        con.execute(f"drop {kind} {q(schema)}.{q(name)}")


def replace_view(con, schema: str, name: str, sql: str, kinds=None) -> None:
    drop(con, schema, name, kinds)
    con.execute(f"create view {q(schema)}.{q(name)} as {sql}")


def replace_table(con, schema: str, name: str, sql: str, kinds=None) -> None:
    drop(con, schema, name, kinds)
    con.execute(f"create table {q(schema)}.{q(name)} as {sql}")


def fresh_schema(con, schema: str) -> None:
    con.execute(f"drop schema if exists {q(schema)} cascade")
    con.execute(f"create schema {q(schema)}")


def campaign_schemas(con) -> list[str]:
    """Campaigns that have a schema in the warehouse."""
    rows = con.execute("select schema_name from duckdb_schemas() where database_name = "
                       "current_database()").fetchall()
    return sorted({c for (s,) in rows if (c := campaign_of_schema(s))})


def union_views(con, target: str, tables: list[str], campaigns: list[str]) -> None:
    """``target.<t>`` = the template's columns plus the rows of each campaign's ``t``. A
    campaign whose model failed (withheld, so only the inventory reads it) has no table of that
    model or of the models after it: it adds no rows to those, and its other tables still count."""
    con.execute(f"create schema if not exists {q(target)}")
    kinds = objects(con, target)
    held = {c: objects(con, campaign_schema(c)) for c in campaigns}
    for table in tables:
        parts = [f"select * from {q(TEMPLATE)}.{q(table)}"]
        parts += [f"select * from {q(campaign_schema(c))}.{q(table)}" for c in campaigns
                  if table in held[c]]
        replace_view(con, target, table, " union all by name ".join(parts), kinds)
