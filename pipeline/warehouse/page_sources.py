"""``meta_page_sources``: for every published page, the raw files behind each table it shows.

Recorded by the render that publishes the page (publish/page_render.py), one page at a time,
so no page is rendered a second time to learn its sources; the models that read the table
(Data sources' "used by") are built after those pages (warehouse/scopes.py, ``after_pages``).
A page's rows are replaced whenever it renders, and rows of pages no longer published (a
campaign withheld or removed, a template gone) are pruned before the models read them.
"""
from __future__ import annotations

from pipeline.util.sql import insert_frame
from pipeline.warehouse.schemas import home_main
from pipeline.warehouse.scopes import PAGE_SOURCES

COLUMNS = ("page", "page_title", "mart", "source_file", "sha256", "kind")


def ensure_table(con) -> None:
    cols = ", ".join(f"{c} varchar" for c in COLUMNS)
    con.execute(f"create table if not exists {home_main(con)}.{PAGE_SOURCES} ({cols})")


def replace_rows(con, page: str, rows: list[tuple]) -> None:
    """The rows of ``page`` (each a tuple in ``COLUMNS`` order) in place of the ones it had."""
    ensure_table(con)
    con.execute(f"delete from {home_main(con)}.{PAGE_SOURCES} where page = ?", [page])
    unique = sorted(set(rows), key=lambda r: tuple("" if v is None else v for v in r))
    if unique:
        import pandas as pd
        insert_frame(con, f"{home_main(con)}.{PAGE_SOURCES}",
                     pd.DataFrame(unique, columns=list(COLUMNS), dtype=object))


def prune(con, live_pages: set[str]) -> int:
    """Remove the rows of pages not in ``live_pages``; returns how many rows are left."""
    ensure_table(con)
    have = {p for (p,) in con.execute(f"select distinct page from {home_main(con)}.{PAGE_SOURCES}").fetchall()}
    for page in sorted(have - live_pages):
        con.execute(f"delete from {home_main(con)}.{PAGE_SOURCES} where page = ?", [page])
    return con.execute(f"select count(*) from {home_main(con)}.{PAGE_SOURCES}").fetchall()[0][0]
