"""What changed between two ledgers, figure by figure.

- a page only in one ledger: ``page_added`` / ``page_removed`` (a campaign's page, or a new
  shared page), one entry, not one per figure;
- a row (page, table, row key) only in one: ``row_added`` / ``row_removed``;
- a figure only in one, its row in both: ``shown`` (newly printed) / ``missing`` (no longer:
  the page shows it as missing or not at all);
- a number whose value differs (relative 1e-9, so a float's last bit is not a change):
  ``moved``, with the relative change; the text alone changing (a format) is not a change;
- a text figure (a class, a label, a date) whose value differs: ``text``;
- a campaign's status: ``campaign_added`` / ``campaign_removed`` / ``campaign_withheld`` /
  ``campaign_published``.

Entries are ordered by kind, then by the size of the relative change, then by id.
"""
from __future__ import annotations

import math
from collections import Counter

from pipeline.publish.figures.ledger import number

CHANGE_COLUMNS = ("kind", "figure_id", "page", "anchor", "table", "row_key", "column",
                  "old_value", "new_value", "old_text", "new_text", "unit", "relative_change",
                  "figures")
KIND_ORDER = ("campaign_added", "campaign_removed", "campaign_withheld", "campaign_published",
              "text", "moved", "missing", "shown", "row_added", "row_removed", "page_added",
              "page_removed")
FIGURE_KINDS = ("text", "moved", "missing", "shown")
# each campaign's status is in the ledger too, as a row of its own
STATUS_PAGE, STATUS_TABLE = "data-quality", "meta_campaign_status"


def _entry(kind: str, old: dict | None, new: dict | None, **extra) -> dict:
    ref = new or old
    out = {c: "" for c in CHANGE_COLUMNS}
    out.update(kind=kind, figure_id=ref["figure_id"], page=ref["page"], anchor=ref["anchor"],
               table=ref["table"], row_key=ref["row_key"], column=ref["column"],
               unit=ref["unit"])
    if old is not None:
        out.update(old_value=old["value"], old_text=old["text"])
    if new is not None:
        out.update(new_value=new["value"], new_text=new["text"])
    out.update({k: str(v) for k, v in extra.items()})
    return out


def relative_change(old: float, new: float) -> float | None:
    if old == new:
        return 0.0
    if old == 0:
        return None                                   # from zero: no finite ratio
    return (new - old) / abs(old)


def _figure_change(old: dict, new: dict) -> dict | None:
    a, b = number(old), number(new)
    if a is not None and b is not None:
        if math.isclose(a, b, rel_tol=1e-9, abs_tol=0.0):
            return None
        rel = relative_change(a, b)
        return _entry("moved", old, new, relative_change="" if rel is None else repr(rel))
    if old["value"] == new["value"] and old["kind"] == new["kind"]:
        return None
    return _entry("text", old, new)


def _campaign_changes(old: dict[str, str], new: dict[str, str]) -> list[dict]:
    out = []
    for name in sorted(set(old) | set(new)):
        before, after = old.get(name), new.get(name)
        if before == after:
            continue
        kind = ("campaign_added" if before is None else "campaign_removed" if after is None
                else "campaign_withheld" if after == "withheld" else "campaign_published")
        entry = {c: "" for c in CHANGE_COLUMNS}
        entry.update(kind=kind, figure_id=f"campaign:{name}", row_key=f"campaign={name}",
                     old_value=before or "", new_value=after or "")
        out.append(entry)
    return out


def _sort_key(e: dict):
    rel = e["relative_change"]
    size = math.inf if e["kind"] == "moved" and rel == "" else (abs(float(rel)) if rel else 0.0)
    return (KIND_ORDER.index(e["kind"]), -size, e["figure_id"])


def campaign_rows(statuses: list[tuple[str, str]]) -> list[dict]:
    """The ledger's rows for the campaigns and their status (published or withheld)."""
    from pipeline.publish.figures.ledger import figure_id
    return [{"figure_id": figure_id(STATUS_PAGE, STATUS_TABLE, f"campaign={c}", "status"),
             "page": STATUS_PAGE, "anchor": "", "table": STATUS_TABLE, "row_key": f"campaign={c}",
             "column": "status", "kind": "text", "value": s, "unit": "", "text": s}
            for c, s in sorted(statuses)]


def _statuses(rows: list[dict]) -> dict[str, str]:
    return {r["row_key"][len("campaign="):]: r["value"] for r in rows if r["table"] == STATUS_TABLE}


def compare(old_rows: list[dict], new_rows: list[dict]) -> list[dict]:
    old_campaigns, new_campaigns = _statuses(old_rows), _statuses(new_rows)
    old_rows = [r for r in old_rows if r["table"] != STATUS_TABLE]
    new_rows = [r for r in new_rows if r["table"] != STATUS_TABLE]
    old = {r["figure_id"]: r for r in old_rows}
    new = {r["figure_id"]: r for r in new_rows}
    old_row_ids = Counter((r["page"], r["table"], r["row_key"]) for r in old_rows)
    new_row_ids = Counter((r["page"], r["table"], r["row_key"]) for r in new_rows)
    old_pages = Counter(r["page"] for r in old_rows)
    new_pages = Counter(r["page"] for r in new_rows)
    changes = _campaign_changes(old_campaigns, new_campaigns)
    for page in sorted(set(new_pages) - set(old_pages)):
        changes.append(_page_entry("page_added", page, new_pages[page]))
    for page in sorted(set(old_pages) - set(new_pages)):
        changes.append(_page_entry("page_removed", page, old_pages[page]))
    rows_seen: set[tuple] = set()
    for fid in sorted(set(old) | set(new)):
        a, b = old.get(fid), new.get(fid)
        ref = a or b
        rid = (ref["page"], ref["table"], ref["row_key"])
        if ref["page"] not in old_pages or ref["page"] not in new_pages:
            continue
        if rid not in old_row_ids or rid not in new_row_ids:
            if rid not in rows_seen:
                rows_seen.add(rid)
                n = new_row_ids[rid] or old_row_ids[rid]
                kind = "row_added" if rid in new_row_ids else "row_removed"
                entry = _entry(kind, None if kind == "row_added" else a, b, figures=n)
                entry.update(figure_id=f"{rid[0]}#{rid[1]}[{rid[2]}]", column="",
                             old_value="", new_value="", old_text="", new_text="", unit="")
                changes.append(entry)
            continue
        if a is None:
            changes.append(_entry("shown", None, b))
        elif b is None:
            changes.append(_entry("missing", a, None))
        else:
            found = _figure_change(a, b)
            if found:
                changes.append(found)
    return sorted(changes, key=_sort_key)


def _page_entry(kind: str, page: str, n: int) -> dict:
    entry = {c: "" for c in CHANGE_COLUMNS}
    entry.update(kind=kind, figure_id=f"{page}#", page=page, figures=str(n))
    return entry


def figures_changed(changes: list[dict]) -> int:
    """How many figures differ: every figure-level entry plus the figures of rows and pages
    that appeared or disappeared."""
    return sum(1 if e["kind"] in FIGURE_KINDS else int(e["figures"] or 0) for e in changes)
