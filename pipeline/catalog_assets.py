"""The warehouse describing itself: models, checks, reference files and page provenance.

One asset, run after every model that does not itself read these tables, writes:

- ``meta_models``: each SQL model with its grain sentence, layer and upstreams (the
  data dictionary's backbone), and ``meta_columns``: the columns of every model built
  before the catalog (the models that read the catalog are described by their grain only,
  so the dictionary never depends on what an earlier build left in the warehouse);
- ``meta_check_results``: every ``sql/tests`` check's outcome (the Data quality page;
  Dagster runs the same SQL as asset checks);
- ``meta_declared_files``: each declared-parameter CSV and campaign manifest with size,
  sha256 and rows;
- ``meta_page_sources``: for every page, the raw files behind each table it shows that is
  built from measurements (the Data sources page's "used by").
"""
import json

import pandas as pd

from dagster import AssetExecutionContext, AssetSpec, MaterializeResult, multi_asset

from . import models
from . import pages as pages_mod
from .ingest import reference
from .project import Project
from .provenance import Lineage, file_sha, sources
from .resources import Warehouse

META_TABLES = ("meta_models", "meta_columns", "meta_check_results", "meta_declared_files",
               "meta_page_sources")
GROUP = "catalog"


def _reads_meta(lineage: Lineage, table: str) -> bool:
    return any(t in META_TABLES for t in lineage.leaves(table))


def write_catalog(con, project: Project, lineage: Lineage, pages) -> dict:
    found = models.discover(project.sql)
    con.execute("""create or replace table meta_models (model varchar, layer varchar,
        grain varchar, description varchar, sql_file varchar, upstreams varchar)""")
    con.executemany("insert into meta_models values (?,?,?,?,?,?)", [
        (m.name, m.layer, m.grain, m.description, f"sql/{m.layer}/{m.path.name}",
         ", ".join(m.upstreams)) for m in found])
    documented = [m.name for m in found if not _reads_meta(lineage, m.name)]
    con.execute("""create or replace table meta_columns as
        select table_name, column_name, column_index, data_type
        from duckdb_columns()
        where schema_name = 'main' and list_contains(?, table_name)
        order by table_name, column_index""", [documented])

    con.execute("""create or replace table meta_check_results (check_name varchar,
        statement varchar, blocking boolean, passed boolean, failing_rows bigint,
        first_rows varchar, sql_file varchar)""")
    for test in models.discover_tests(project.sql):
        if _reads_meta(lineage, test.name):
            continue
        try:
            rows = models.run_test(con, test)
            first = json.dumps([[str(v) for v in r] for r in rows[:3]])
        except Exception as exc:  # a check that cannot run is a failed check, shown as such
            rows, first = [("error",)], f"could not run: {exc}"
        con.execute("insert into meta_check_results values (?,?,?,?,?,?,?)",
                    [test.name, test.check_sentence, test.blocking, not rows, len(rows), first,
                     f"sql/tests/{test.path.name}"])

    con.execute("""create or replace table meta_declared_files (source_file varchar,
        kind varchar, table_name varchar, size_bytes bigint, sha256 varchar, rows_ingested bigint)""")
    for path in reference.reference_files(project.reference):
        name = reference.table_name(path)
        exists = con.execute("select count(*) from duckdb_tables() where table_name = ?",
                             [name]).fetchall()[0][0]
        n = con.execute(f'select count(*) from "{name}"').fetchall()[0][0] if exists else None
        con.execute("insert into meta_declared_files values (?,?,?,?,?,?)",
                    [path.relative_to(project.raw_data).as_posix(), "reference", name,
                     path.stat().st_size, file_sha(path), n])
    for (manifest,) in con.execute("select manifest_file from raw_campaigns order by 1").fetchall():
        path = project.raw_data / manifest
        if path.is_file():
            con.execute("insert into meta_declared_files values (?,?,?,?,?,?)",
                        [manifest, "manifest", "raw_campaigns", path.stat().st_size,
                         file_sha(path), 1])

    rows = [(page.slug, page.title, mart, src.source_file, src.sha256, src.kind)
            for page in pages for mart in page.marts if not _reads_meta(lineage, mart)
            for src in sources(con, lineage, mart, project.raw_data)]
    frame = pd.DataFrame(rows, columns=["page", "page_title", "mart", "source_file", "sha256", "kind"])
    con.register("_page_sources", frame)
    try:
        con.execute("create or replace table meta_page_sources as "
                    "select page::varchar as page, page_title::varchar as page_title, "
                    "mart::varchar as mart, source_file::varchar as source_file, "
                    "sha256::varchar as sha256, kind::varchar as kind from _page_sources")
    finally:
        con.unregister("_page_sources")
    count = len(rows)
    return {"models": len(found), "page_source_rows": count}


def catalog_asset(project: Project, tables: dict[str, list[str]]):
    """The catalog asset, depending on every model and page input that does not read it."""
    lineage = Lineage(project.sql)
    deps = sorted({key for t, keys in tables.items() if t not in META_TABLES
                   and not _reads_meta(lineage, t) for key in keys})
    all_pages = pages_mod.discover_pages(project.templates)

    @multi_asset(name="meta_catalog", specs=[
        AssetSpec(t, group_name=GROUP, kinds={"duckdb", "python"}, deps=deps) for t in META_TABLES])
    def _catalog(context: AssetExecutionContext, warehouse: Warehouse):
        proj = warehouse.project
        with warehouse.connect() as con:
            stats = write_catalog(con, proj, Lineage(proj.sql), all_pages)
        for t in META_TABLES:
            yield MaterializeResult(asset_key=t, metadata=stats)

    return _catalog
