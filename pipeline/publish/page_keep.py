"""Which campaign pages a build can keep as docs/ has them: a content digest per page.

A published campaign's page is a function of its template and every template that template
includes or imports (found by Jinja's own ``meta.find_referenced_templates``; all of
``templates/`` when a name is computed), the code that renders it (the ``pipeline`` package), the
abbreviations every page ends with, and the tables it and its charts read in the campaign's
schema, each named by the digest its table was built from (pipeline/warehouse/keep.py). After a
render, that *inputs* digest is recorded in ``main.meta_page_digests`` with the digest of the
files the page staged (its Markdown, CSVs and charts). A later build keeps the page, renders
nothing and stages nothing for it, when both still hold: the inputs are the same, and docs/ has
exactly the files recorded (so a docs/ restored from git, or a publication that failed, is
rendered again). docs/ then keeps the page as it is (pipeline/publish/docs_swap.py) and the
figures ledger keeps its published rows (pipeline/publish/figures/site_ledger.py). A page with
a table whose digest is not recorded, a withheld campaign's notice and every shared page are
always rendered; ``INTERCONNECT_REBUILD=all`` keeps nothing. File times are never looked at.
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from pipeline.publish.docs_swap import group_files
from pipeline.publish.partials import references
from pipeline.util.hashing import package_digest, sha256_of_parts
from pipeline.util.sql import q
from pipeline.warehouse import keep
from pipeline.warehouse.schemas import home_main

DIGESTS = "meta_page_digests"
_PACKAGE = Path(__file__).resolve().parent.parent


@lru_cache(maxsize=4)
def _code(package: Path) -> str:
    """The pipeline's code but the collectors (nothing a page renders with)."""
    return package_digest(package, skip=("collect",))


WITHHELD_NOTICE = "partials/withheld.md.j2"     # a withheld campaign's page (page_render.py)


def templates_digest(root: Path, name: str) -> str:
    """The template ``name`` and the closure of the templates it names."""
    seen, todo, dynamic = set(), [name], False
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen.add(current)
        source = (root / current).read_text(encoding="utf-8")
        for ref in references(source):
            if ref is None:
                dynamic = True
            else:
                todo.append(ref)
    files = sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()) \
        if dynamic else sorted(seen)
    return sha256_of_parts(*(f + "\0" + (root / f).read_text(encoding="utf-8") for f in files))


def inputs_digest(con, schema: str, marts: list[str], template: str, appendix: str,
                  slug: str, rows: list[str] = ()) -> str | None:
    """The digest of everything a campaign page is rendered from; None when one of its tables
    has no recorded digest (then it is always rendered). ``rows``: '<mart>=<digest>' of the
    comparison tables whose campaign rows it reads (pipeline/publish/campaign_rows.py)."""
    recorded = keep.recorded(con, schema)
    scoped = {part.partition("=")[0] for part in rows}
    tables = list(rows)
    for mart in sorted(set(marts) - scoped):
        if mart not in recorded:
            return None
        tables.append(f"{mart}={recorded[mart][0]}")
    return sha256_of_parts(slug, template, appendix, _code(_PACKAGE), *tables)


def files_digest(root: Path, slug: str) -> str:
    """The page's files under ``root`` (docs/ or a staging folder), as docs_swap groups them:
    ``<slug>.md`` and its CSVs and charts under ``<slug>/``, names and bytes."""
    files = group_files(root, slug)
    return sha256_of_parts(*(rel.encode() + b"\0" + files[rel].read_bytes() for rel in sorted(files)))


def _ensure(con) -> None:
    con.execute(f"create table if not exists {home_main(con)}.{q(DIGESTS)} "
                f"(page varchar primary key, inputs varchar, files varchar)")


def can_keep(con, docs: Path, slug: str, inputs: str | None) -> bool:
    if inputs is None or keep.rebuild_all():
        return False
    _ensure(con)
    row = con.execute(f"select inputs, files from {home_main(con)}.{q(DIGESTS)} where page = ?",
                      [slug]).fetchone()
    return row is not None and row[0] == inputs and row[1] == files_digest(docs, slug)


def record(con, slug: str, inputs: str | None, staged: Path) -> None:
    """After ``slug`` rendered into ``staged``: what it was rendered from and what it wrote
    (nothing is recorded without an inputs digest, so it is never kept)."""
    _ensure(con)
    con.execute(f"delete from {home_main(con)}.{q(DIGESTS)} where page = ?", [slug])
    if inputs is not None:
        con.execute(f"insert into {home_main(con)}.{q(DIGESTS)} values (?, ?, ?)",
                    [slug, inputs, files_digest(staged, slug)])
