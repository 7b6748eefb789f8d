"""Which campaign models read a set of tables, worked out from the plan's upstreams: what a
change to those tables (an edited model, the reference data, the raw tables) makes a build run
again (pipeline/warehouse/keep.py)."""
from __future__ import annotations


def readers_of(layout, tables: set[str]) -> set[str]:
    """The campaign models that read one of ``tables``, directly or through another model."""
    found: set[str] = set()
    for model in layout.plan.campaign:          # dependency order: upstreams come first
        if (set(tables) | found) & set(model.upstreams):
            found.add(model.name)
    return found


def closure(layout, name: str) -> set[str]:
    """``name`` and every campaign model that reads it, directly or not."""
    return {name} | readers_of(layout, {name})
