"""Regression checks: the declared thresholds applied to what changed since the baseline.

``raw_data/reference/regression_thresholds.csv`` declares, for each check, which published
figures it watches (table and column) and by how much they may move::

    check,table,column,direction,threshold_fraction,source
    link_rtt_regression,fct_measured_links,rtt_avg_s,increase,0.20,"…"

``increase``: the figure rose by more than the threshold (relative); ``decrease``: it fell by
more; ``worse``: a class moved to a later class of ``dim_feasibility_thresholds`` (its label,
symbol or code). A figure shown on several pages is judged once.
"""
from __future__ import annotations

from dataclasses import dataclass

CHECKS = {
    "link_rtt_regression": "A measured link's round trip rose by more than its declared "
                           "threshold since the previous published build.",
    "link_throughput_regression": "A measured link's throughput fell by more than its declared "
                                  "threshold since the previous published build.",
    "feasibility_regression": "A feasibility class got worse since the previous published build.",
}
DIRECTIONS = ("increase", "decrease", "worse")
RULES_FILE = "raw_data/reference/regression_thresholds.csv"


class RuleError(ValueError):
    pass


@dataclass(frozen=True)
class Rule:
    check: str
    table: str
    column: str
    direction: str
    threshold: float | None
    note: str
    line: int


def rules_from_rows(rows: list[dict]) -> list[Rule]:
    """Rows of ``ref_regression_thresholds`` (line numbers count the header as line 1)."""
    out = []
    for i, r in enumerate(rows, start=2):
        where = f"{RULES_FILE}:{i}"
        if r.get("check") not in CHECKS:
            raise RuleError(f"{where}: expected a check, one of {', '.join(CHECKS)}, "
                            f"found {r.get('check')!r}")
        if r.get("direction") not in DIRECTIONS:
            raise RuleError(f"{where}: expected a direction, one of {', '.join(DIRECTIONS)}, "
                            f"found {r.get('direction')!r}")
        threshold = r.get("threshold_fraction")
        if r["direction"] != "worse" and (threshold is None or threshold == ""):
            raise RuleError(f"{where}: expected a threshold_fraction for direction "
                            f"{r['direction']!r}, found nothing")
        out.append(Rule(r["check"], str(r["table"]), str(r["column"]), r["direction"],
                        None if threshold in (None, "") else float(threshold),
                        str(r.get("source") or ""), i))
    return out


def _violates(rule: Rule, change: dict, ranks: dict[str, int]) -> bool:
    if (change["table"], change["column"]) != (rule.table, rule.column):
        return False
    if rule.direction == "worse":
        if change["kind"] != "text":
            return False
        old, new = ranks.get(change["old_value"]), ranks.get(change["new_value"])
        return old is not None and new is not None and new > old
    if change["kind"] != "moved" or change["relative_change"] == "":
        return False
    rel = float(change["relative_change"])
    return rel > rule.threshold if rule.direction == "increase" else rel < -rule.threshold


def evaluate(changes: list[dict], rules: list[Rule], ranks: dict[str, int]) -> dict[str, list[dict]]:
    """Each check's violations: the changes past a threshold, one per figure (not per page)."""
    found: dict[str, list[dict]] = {name: [] for name in CHECKS}
    seen: dict[str, set] = {name: set() for name in CHECKS}
    for rule in rules:
        for change in changes:
            ident = (change["table"], change["row_key"], change["column"])
            if ident in seen[rule.check] or not _violates(rule, change, ranks):
                continue
            seen[rule.check].add(ident)
            found[rule.check].append({**change, "threshold": rule.threshold, "note": rule.note})
    return found
