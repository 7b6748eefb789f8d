"""The package layout holds (README, "How it fits together"): imports run one way, from the
entry points down to the utilities; no import circle; no private name imported across modules;
no module of ``pipeline/`` over 300 lines. Each failure names the modules (and lines) at fault."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from paths import REPO

PIPELINE = REPO / "pipeline"
MAX_LINES = 300

# Higher imports lower, never the other way; packages of one rank do not import each other.
RANKS = {
    "pipeline.project": 0,
    "pipeline.util": 1,
    "pipeline.ingest": 2,
    "pipeline.warehouse": 3,
    "pipeline.collect": 3,
    "pipeline.publish": 4,
    "pipeline.orchestration": 5,
    "pipeline.defs": 6,
    "pipeline.definitions": 7,
    "pipeline.commands": 8,
}


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules(root: Path = PIPELINE) -> dict[str, Path]:
    return {module_name(p, root): p for p in sorted(root.rglob("*.py"))}


def _resolve(name: str, path: Path, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    base = package[: len(package) - node.level + 1]
    return ".".join(base + ([node.module] if node.module else []))


def imports(known: dict[str, Path]) -> dict[str, list[tuple[str, int, str | None]]]:
    """For each module, every pipeline module it imports (anywhere in it, functions too):
    (imported module, line, the imported name when it is not a module)."""
    found: dict[str, list[tuple[str, int, str | None]]] = {}
    for name, path in known.items():
        edges = found.setdefault(name, [])
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                edges += [(a.name, node.lineno, None) for a in node.names
                          if a.name.split(".")[0] == "pipeline"]
            elif isinstance(node, ast.ImportFrom):
                source = _resolve(name, path, node)
                if source.split(".")[0] != "pipeline":
                    continue
                for alias in node.names:
                    full = f"{source}.{alias.name}"
                    edges.append((full, node.lineno, None) if full in known
                                 else (source, node.lineno, alias.name))
    return found


def layer(name: str) -> str:
    for prefix in sorted(RANKS, key=len, reverse=True):
        if name == prefix or name.startswith(prefix + "."):
            return prefix
    return name


def wrong_way(graph) -> list[str]:
    bad = []
    for name, edges in graph.items():
        here = layer(name)
        for target, line, _ in edges:
            there = layer(target)
            if there == here:
                continue
            if here not in RANKS or there not in RANKS:
                bad.append(f"{name}:{line} imports {target}: a module outside the layers "
                           f"(put it in a package of README's 'How it fits together')")
            elif there == "pipeline.defs" or RANKS[there] >= RANKS[here]:
                bad.append(f"{name}:{line} imports {target}: {here} may not import {there}")
    return bad


def cycles(graph) -> list[list[str]]:
    """The import circles: strongly connected groups of more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    succ = {n: sorted({t for t, _, _ in e if t in graph and t != n}) for n, e in graph.items()}

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in succ[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                out.append(sorted(group))

    for v in sorted(succ):
        if v not in index:
            visit(v)
    return out


def private_imports(graph) -> list[str]:
    return [f"{name}:{line} imports {item} from {source}" for name, edges in graph.items()
            for source, line, item in edges
            if item and item.startswith("_") and not item.startswith("__") and source != name]


def too_long(known: dict[str, Path], limit: int = MAX_LINES) -> list[str]:
    return [f"{name}: {n} lines" for name, p in known.items()
            if (n := len(p.read_text().splitlines())) > limit]


# -- the checks on the tree ------------------------------------------------------------------

@pytest.fixture(scope="module")
def graph():
    return imports(modules())


def test_every_module_is_in_a_layer(graph):
    assert [n for n in graph if layer(n) not in RANKS and n != "pipeline"] == []


def test_imports_run_from_the_entry_points_down(graph):
    assert wrong_way(graph) == []


def test_no_import_circle(graph):
    assert cycles(graph) == []


def test_no_private_name_is_imported_across_modules(graph):
    assert private_imports(graph) == []


def test_no_module_over_300_lines():
    assert too_long(modules()) == []


# -- the checks themselves, on a hand-made tree ----------------------------------------------

def _tree(tmp_path: Path, files: dict[str, str]) -> dict[str, Path]:
    for rel, text in files.items():
        path = tmp_path / "pipeline" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return modules(tmp_path / "pipeline")


def test_the_checks_name_what_breaks_the_layout(tmp_path):
    known = _tree(tmp_path, {
        "__init__.py": "",
        "util/__init__.py": "",
        "util/a.py": "def f():\n    from pipeline.ingest.b import g\n",   # up, in a function
        "ingest/__init__.py": "",
        "ingest/b.py": "from pipeline.util.a import f\nfrom .c import _hidden\n",
        "ingest/c.py": "_hidden = 1\n" + "x = 1\n" * 300,
        "warehouse/__init__.py": "",
        "warehouse/d.py": "from pipeline.collect import e\n",              # a sibling layer
        "collect/__init__.py": "",
        "collect/e.py": "",
        "stray.py": "",
    })
    graph = imports(known)
    assert wrong_way(graph) == [
        "pipeline.util.a:2 imports pipeline.ingest.b: pipeline.util may not import pipeline.ingest",
        "pipeline.warehouse.d:1 imports pipeline.collect.e: "
        "pipeline.warehouse may not import pipeline.collect",
    ]
    assert cycles(graph) == [["pipeline.ingest.b", "pipeline.util.a"]]
    assert private_imports(graph) == [
        "pipeline.ingest.b:2 imports _hidden from pipeline.ingest.c"]
    # 1 line of _hidden + 300 of x
    assert [t.split(": ")[1] for t in too_long(known)] == ["301 lines"]
    assert "pipeline.stray" in graph and layer("pipeline.stray") not in RANKS
