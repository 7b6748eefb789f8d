"""The marts a page reads through its partials: every template under ``templates/`` opens
with the same front matter (``{#--- marts: [...] ---#}``), a partial included from a page (or
from another partial) declaring the marts it reads itself, so a page lists only its own.
Includes are found by Jinja's own parser (``jinja2.meta``), never by a regular expression."""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from jinja2 import Environment, meta

_PARSER = Environment()     # parsing needs no loader: the includes are read, not resolved


@lru_cache(maxsize=256)
def references(source: str) -> tuple[str | None, ...]:
    """The templates a template's text includes or imports, in the order they appear; None for
    one named by an expression (known only when rendering). A text is parsed once per process,
    however many pages, steps and digests ask (the build's key and its page steps alike)."""
    return tuple(meta.find_referenced_templates(_PARSER.parse(source)))


def included(templates: Path, name: str) -> list[str]:
    """The templates ``name`` includes or imports by name, in the order they appear."""
    source = (Path(templates) / name).read_text(encoding="utf-8")
    return [t for t in references(source) if t is not None]


def partial_marts(templates: Path, name: str, front_matter, seen: frozenset = frozenset()) -> list[str]:
    """The marts declared by the partials ``name`` uses, transitively, in include order
    (``front_matter(path)`` reads a template's front matter; a partial without any declares
    none; a circle of includes is Jinja's error at render time, stopped here)."""
    out: list[str] = []
    for child in included(templates, name):
        if child in seen:
            continue
        path = Path(templates) / child
        if path.read_text(encoding="utf-8").startswith("{#---"):
            out += [str(m) for m in front_matter(path).get("marts", [])]
        out += partial_marts(templates, child, front_matter, seen | {name, child})
    return out
