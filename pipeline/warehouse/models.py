"""SQL files under ``sql/`` become models: one table each, named after the file.

The upstream tables of a model are read from its SQL by DuckDB's own parser
(``json_serialize_sql``), which walks the parse tree without binding, so a model
can be analysed before its inputs exist. CTE names are local and not upstreams.
"""
from __future__ import annotations

import json
import re
import weakref
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path

import duckdb

from pipeline.util import scratch
from pipeline.warehouse import column_notes

LAYERS = ("staging", "intermediate", "marts")
_GRAIN = re.compile(r"^\s*--\s*grain:\s*(.+)$", re.IGNORECASE | re.MULTILINE)
_CHECK = re.compile(r"^\s*--\s*check:\s*(.+)$", re.IGNORECASE | re.MULTILINE)
_BLOCKING = re.compile(r"^\s*--\s*blocking:\s*true\s*$", re.IGNORECASE | re.MULTILINE)
_FIX = re.compile(r"^\s*--\s*fix:\s*(.+)$", re.IGNORECASE | re.MULTILINE)
_SCOPE = re.compile(r"^\s*--\s*scope:\s*(\S+)", re.IGNORECASE | re.MULTILINE)
# The columns that identify a row of a mart (``-- key: campaign, link_id``; empty for a one-row
# mart): a published figure's id is its page, table, row key and column (pipeline/publish/figures/).
_KEY = re.compile(r"^\s*--\s*key:[ \t]*(.*)$", re.IGNORECASE | re.MULTILINE)
# What a model may see (see pipeline/warehouse/scopes.py): one campaign at a time, every published
# campaign side by side (an explicit comparison), or every campaign including withheld ones
# (the site's own inventory: data sources, quality, dictionary).
SCOPES = ("campaign", "comparison", "inventory")


class ModelError(Exception):
    """A model that cannot be loaded: the message names the file."""


@dataclass(frozen=True)
class Model:
    path: Path
    sql: str

    @property
    def name(self) -> str:
        return self.path.stem

    @property
    def layer(self) -> str:
        return self.path.parent.name

    @cached_property
    def grain(self) -> str | None:
        m = _GRAIN.search(self.sql)
        return m.group(1).strip() if m else None

    @cached_property
    def key(self) -> tuple[str, ...] | None:
        """The declared row key (``-- key: a, b``); ``()`` for a one-row mart, None if undeclared."""
        m = _KEY.search(self.sql)
        if not m:
            return None
        return tuple(c.strip() for c in m.group(1).split(",") if c.strip())

    @cached_property
    def upstreams(self) -> tuple[str, ...]:
        return tuple(sorted(referenced_tables(self.sql, self.path)))

    @cached_property
    def upstreams_in_order(self) -> tuple[str, ...]:
        return referenced_tables_in_order(self.sql, self.path)

    @cached_property
    def column_notes(self) -> dict[str, str]:
        """``{column: description}`` from the ``-- column <name>: ...`` lines (column_notes.py)."""
        return column_notes.parse(self.sql, self.path)

    @property
    def description(self) -> str:
        lines, in_note = [], False
        for ln in self.sql.splitlines():
            if not ln.startswith("--"):
                in_note = False
                continue
            in_note = column_notes.is_note_line(ln, in_note)
            if not in_note:
                text = ln[2:].strip()
                # "-- why: ..." opens the prose of a theory mart: the words are the description
                lines.append(text[4:].lstrip() if text.lower().startswith("why:") else text)
        return " ".join(ln for ln in lines
                        if not ln.lower().startswith(("grain:", "check:", "blocking:", "fix:", "scope:", "key:")))

    @property
    def check_sentence(self) -> str:
        """A test's one-line statement of what must hold (``-- check: …``)."""
        m = _CHECK.search(self.sql)
        if m:
            return m.group(1).strip()
        first = next((ln[2:].strip() for ln in self.sql.splitlines() if ln.startswith("--")), "")
        return first or f"{self.path.name} returns no rows"

    @property
    def fix_sentence(self) -> str | None:
        """A test's advice on what makes a failing row pass (``-- fix: …``), if stated."""
        m = _FIX.search(self.sql)
        return m.group(1).strip() if m else None

    @cached_property
    def declared_scope(self) -> str | None:
        """``-- scope: comparison`` or ``-- scope: inventory`` (or ``campaign``), if stated."""
        m = _SCOPE.search(self.sql)
        if not m:
            return None
        scope = m.group(1).strip().lower()
        if scope not in SCOPES:
            raise ModelError(f"{self.path}: '-- scope: {scope}' is not one of {', '.join(SCOPES)}")
        return scope

    @property
    def blocking(self) -> bool:
        """``-- blocking: true``: a failure stops what is downstream from being published."""
        return bool(_BLOCKING.search(self.sql))


def referenced_tables(sql: str, path: Path | str = "<sql>") -> set[str]:
    return set(_referenced_tables(sql, str(path)))


def referenced_tables_in_order(sql: str, path: Path | str = "<sql>") -> tuple[str, ...]:
    """The tables a model reads, in the order its parse tree names them (first reading first)."""
    return _referenced_tables(sql, str(path))


@lru_cache(maxsize=2048)
def _parse_tree(sql: str) -> str:
    # Parsing needs no data: a cursor of the process's scratch database (opening a database per
    # file cost ~30 ms each at start-up; pipeline/util/scratch.py is safe across fork and threads)
    cur = scratch.cursor()
    try:
        return cur.execute("select json_serialize_sql(?)", [sql]).fetchall()[0][0]
    finally:
        cur.close()


@lru_cache(maxsize=2048)
def _referenced_tables(sql: str, path: str) -> tuple[str, ...]:
    tree = json.loads(_parse_tree(sql))
    if tree.get("error"):
        raise ModelError(f"{path}: DuckDB cannot parse this SQL: {tree.get('error_message')}")
    if len(tree["statements"]) != 1:
        raise ModelError(f"{path}: a model holds exactly one select statement, "
                         f"found {len(tree['statements'])}")
    tables: list[str] = []
    ctes: set[str] = set()

    def walk(node):
        if isinstance(node, dict):
            cte_map = node.get("cte_map")
            if isinstance(cte_map, dict):
                for entry in cte_map.get("map", []):
                    ctes.add(entry["key"].lower())
            if node.get("type") == "BASE_TABLE" and node.get("table_name"):
                tables.append(node["table_name"].lower())
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(tree["statements"][0])
    return tuple(dict.fromkeys(t for t in tables if t not in ctes))


def discover(sql_dir: Path) -> list[Model]:
    """Every ``sql/<layer>/*.sql`` model, in a stable order (tests/ excluded)."""
    models = []
    for layer in LAYERS:
        for path in sorted((sql_dir / layer).glob("*.sql")):
            models.append(Model(path, path.read_text(encoding="utf-8")))
    names = [m.name for m in models]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise ModelError(f"{sql_dir}: two models share the name(s) {', '.join(dupes)}")
    return models


def discover_tests(sql_dir: Path) -> list[Model]:
    """``sql/tests/assert_*.sql``: each must return no rows."""
    return [Model(p, p.read_text(encoding="utf-8"))
            for p in sorted((sql_dir / "tests").glob("assert_*.sql"))]


def check_upstreams(models: list[Model], known_tables: set[str]) -> None:
    """Fail at load time, naming the file, when a model reads a table nothing makes."""
    available = set(known_tables) | {m.name for m in models}
    for model in models:
        missing = [t for t in model.upstreams if t not in available]
        if missing:
            raise ModelError(f"{model.path}: reads table(s) {', '.join(missing)} that no raw "
                             f"format, reference file or model produces")


def topological(models: list[Model]) -> list[Model]:
    by_name = {m.name: m for m in models}
    order: list[Model] = []
    state: dict[str, int] = {}

    def visit(m: Model, chain: tuple[str, ...]):
        if state.get(m.name) == 2:
            return
        if state.get(m.name) == 1:
            raise ModelError(f"{m.path}: dependency cycle {' -> '.join(chain + (m.name,))}")
        state[m.name] = 1
        for up in m.upstreams:
            if up in by_name:
                visit(by_name[up], chain + (m.name,))
        state[m.name] = 2
        order.append(m)

    for m in models:
        visit(m, ())
    return order


MACROS_FILE = "macros.sql"


# the macros text each open connection has run: every model and check asks, once is enough
_LOADED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def load_macros(con: duckdb.DuckDBPyConnection, sql_dir: Path) -> None:
    """The unit conversions of ``sql/macros.sql`` as the connection's temporary macros (a tree
    without the file has none); run again on a connection only when the file's text changed."""
    path = Path(sql_dir) / MACROS_FILE
    if not path.is_file():
        return
    text = path.read_text(encoding="utf-8")
    done = _LOADED.setdefault(con, set())
    if text not in done:
        con.execute(text)
        done.add(text)


def run_model(con: duckdb.DuckDBPyConnection, model: Model, schema: str | None = None) -> int:
    """(Re)build one model's table (in ``schema`` when given); returns its row count."""
    load_macros(con, model.path.parent.parent)
    body = model.sql.strip().rstrip(";")
    target = f'"{model.name}"' if schema is None else f'"{schema}"."{model.name}"'
    try:
        try:
            con.execute(f"create or replace table {target} as {body}")
        except duckdb.CatalogException as exc:
            # a model whose scope changed (a campaign model's union view becoming a
            # comparison table) finds a view of its name from the last build
            if "of type View" not in str(exc):
                raise
            con.execute(f"drop view {target}")
            con.execute(f"create table {target} as {body}")
    except duckdb.Error as exc:
        raise ModelError(f"{model.path}: {exc}") from exc
    return con.execute(f"select count(*) from {target}").fetchall()[0][0]


def run_test(con: duckdb.DuckDBPyConnection, test: Model) -> list[tuple]:
    return run_test_named(con, test)[1]


def run_test_named(con: duckdb.DuckDBPyConnection, test: Model) -> tuple[list[str], list[tuple]]:
    """A test's failing rows, with its column names."""
    load_macros(con, test.path.parent.parent)
    cur = con.execute(test.sql.strip().rstrip(";"))
    return [d[0] for d in cur.description], cur.fetchall()


def build_all(con: duckdb.DuckDBPyConnection, sql_dir: Path,
              only: set[str] | None = None) -> dict[str, int]:
    """Build every model (or the named ones, with what they need) in dependency order.

    Used by tests on fixture tables and by the plain-Python build; Dagster runs
    the same ``run_model`` one asset at a time.
    """
    models = topological(discover(sql_dir))
    if only is not None:
        by_name = {m.name: m for m in models}
        wanted: set[str] = set()
        stack = list(only)
        while stack:
            name = stack.pop()
            if name in wanted or name not in by_name:
                continue
            wanted.add(name)
            stack.extend(by_name[name].upstreams)
        models = [m for m in models if m.name in wanted]
    return {m.name: run_model(con, m) for m in models}
