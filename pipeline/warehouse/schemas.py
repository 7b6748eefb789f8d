"""Where a campaign's tables are, and the schemas of the warehouse that join them.

- ``"campaign:<name>"``: the campaign's own DuckDB file (pipeline/warehouse/campaign_files.py),
  attached READ_ONLY under this name by whoever reads it: its raw tables (views of its Parquet
  files), its registry and every campaign model built from them. A model runs with the search
  path on that file alone, with views of the reference tables it may read, so a name that is
  not there is an error, never a silent fall-through to another campaign's rows.
- ``"campaign template"``: the template's file, the same tables built from empty inputs. It
  gives every union its columns even when no campaign exists, and proves each model runs on no
  data.
- ``"every campaign"`` (in the warehouse): each campaign table as the union of all campaigns
  (inventory scope), each campaign's rows copied in when they change (pipeline/warehouse/unions.py).
- ``main``: references, comparison and inventory models, and each campaign table as the rows
  of the *published* campaigns only (a withheld campaign is absent from it).
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


def home(con) -> str:
    """The warehouse's own database (not a campaign's attached file), whatever the search path."""
    rows = con.execute("select database_name from duckdb_databases() where not internal "
                       "order by database_name").fetchall()
    found = [n for (n,) in rows if n != TEMPLATE and not n.startswith(_PREFIX)]
    return found[0] if len(found) == 1 else con.execute("select current_database()").fetchone()[0]


def home_main(con) -> str:
    """``"<warehouse>".main``: the warehouse's main schema, even while a campaign's file is the
    default database (a page's render)."""
    return f"{q(home(con))}.main"


def reset_search_path(con) -> None:
    """Back to the warehouse's main schema (a search path on an attached file makes that file
    the default database until then)."""
    con.execute(f"set search_path = {literal(q(home(con)) + '.main')}")


def located(con, schema: str) -> tuple[str, str]:
    """(database, schema) that ``schema`` names: an attached database's ``main`` (a campaign's
    file), else that schema of the current database."""
    attached = con.execute("select count(*) from duckdb_databases() where database_name = ?",
                           [schema]).fetchone()[0]
    if attached:
        return schema, "main"
    return home(con), schema


def objects(con, schema: str) -> dict[str, str]:
    """name -> 'table' | 'view' of the schema's objects (``schema`` may name an attached file)."""
    database, name = located(con, schema)
    rows = con.execute(
        "select table_name, 'table' from duckdb_tables() where database_name = ? and "
        "schema_name = ? union all select view_name, 'view' from duckdb_views() "
        "where database_name = ? and schema_name = ? and not internal",
        [database, name, database, name]).fetchall()
    return dict(rows)


def drop(con, schema: str, name: str, kinds: dict[str, str] | None = None) -> None:
    kind = (kinds if kinds is not None else objects(con, schema)).get(name)
    if kind:
        con.execute(f"drop {kind} {q(schema)}.{q(name)}")


def replace_view(con, schema: str, name: str, sql: str, kinds=None) -> None:
    if (kinds if kinds is not None else objects(con, schema)).get(name) == "view":
        con.execute(f"create or replace view {q(schema)}.{q(name)} as {sql}")
        return
    drop(con, schema, name, kinds)
    con.execute(f"create view {q(schema)}.{q(name)} as {sql}")


def replace_table(con, schema: str, name: str, sql: str, kinds=None) -> None:
    drop(con, schema, name, kinds)
    con.execute(f"create table {q(schema)}.{q(name)} as {sql}")


def fresh_schema(con, schema: str) -> None:
    con.execute(f"drop schema if exists {q(schema)} cascade")
    con.execute(f"create schema {q(schema)}")


def campaign_schemas(con) -> list[str]:
    """Campaigns that have a schema in the warehouse itself: left by a build before campaigns
    had their own files (the join drops them)."""
    rows = con.execute("select schema_name from duckdb_schemas() where database_name = ?",
                       [home(con)]).fetchall()
    return sorted({c for (s,) in rows if (c := campaign_of_schema(s))})


def drop_legacy_schemas(con) -> None:
    """Drop the campaign schemas (and the template's) a build before campaigns had their own
    files left in the warehouse: their names are the names the campaigns' files are attached
    under, and a name both would be is ambiguous."""
    for schema in [*map(campaign_schema, campaign_schemas(con)), TEMPLATE]:
        con.execute(f"drop schema if exists {q(schema)} cascade")
