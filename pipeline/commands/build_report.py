"""What a build did, in a few lines: one per phase, then a summary naming what needs attention.

``make docs`` prints this instead of Dagster's event log (``V=1`` shows that log in full). The
figures come from the run's own materialization metadata (what each asset reported) and from
the warehouse's catalog (quarantined files, checks, withheld campaigns), so the lines say what
this run did, not what a previous one left behind.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

import duckdb


@dataclass
class Report:
    phases: list[str] = field(default_factory=list)
    quarantined: list[tuple[str, str]] = field(default_factory=list)   # (file, reason)
    not_ingestable: list[tuple[str, str, str]] = field(default_factory=list)  # (file, status, reason)
    failed_checks: list[tuple[str | None, str, str]] = field(default_factory=list)
    withheld: dict[str, list[dict]] = field(default_factory=dict)
    published: list[str] = field(default_factory=list)
    warnings: list[tuple[str, str]] = field(default_factory=list)   # (subject, detail)

    def lines(self) -> list[str]:
        out = list(self.phases)
        if self.quarantined:
            out.append(f"quarantined ({len(self.quarantined)}), each named on Data quality:")
            out += [f"  - {reason}" if reason.startswith(f) else f"  - {f}: {reason}"
                    for f, reason in self.quarantined]
        if self.not_ingestable:
            out.append(f"not ingested ({len(self.not_ingestable)}):")
            out += [f"  - {f} ({status}): {reason}" for f, status, reason in self.not_ingestable]
        if self.failed_checks:
            out.append(f"failed checks ({len(self.failed_checks)}):")
            out += [f"  - {name}" + (f" [{c}]" if c else "") + f": {first}"
                    for c, name, first in self.failed_checks]
        if self.warnings:
            out.append(f"warnings ({len(self.warnings)}), choices the figures make, each on Data quality:")
            out += [f"  - {subject}: {detail}" for subject, detail in self.warnings]
        for campaign, reasons in self.withheld.items():
            out.append(f"withheld campaign {campaign}:")
            out += [f"  - {r['subject']}: {r['detail']}" for r in reasons]
        out.append(self.summary())
        return out

    def summary(self) -> str:
        parts = [f"published {len(self.published)} campaign(s)"]
        parts.append(f"withheld {len(self.withheld)}: {', '.join(self.withheld)}" if self.withheld
                     else "withheld none")
        parts.append(f"quarantined {len(self.quarantined)} file(s)" if self.quarantined
                     else "quarantined none")
        return "done: " + "; ".join(parts)


def _materializations(result) -> dict[str, list[dict]]:
    """Asset key -> the metadata of each step's materialization of it in this run.

    A step over a range of campaign partitions reports once for the whole range, and Dagster
    records that metadata on every partition's event: it is counted once per step."""
    found: dict[str, list[dict]] = defaultdict(list)
    seen = set()
    for event in result.all_events:
        if event.event_type_value != "ASSET_MATERIALIZATION":
            continue
        m = event.event_specific_data.materialization
        key = m.asset_key.to_user_string()
        if (key, event.step_key) in seen:
            continue
        seen.add((key, event.step_key))
        found[key].append({k: getattr(v, "value", v) for k, v in (m.metadata or {}).items()})
    return found


def _check_evaluations(result) -> list[tuple[str, bool, dict]]:
    """The Dagster asset checks this run evaluated: (name, passed, metadata)."""
    out = []
    for event in result.all_events:
        if event.event_type_value == "ASSET_CHECK_EVALUATION":
            e = event.event_specific_data
            out.append((e.check_name, e.passed,
                        {k: getattr(v, "value", v) for k, v in (e.metadata or {}).items()}))
    return out


def _sum(entries: list[dict], key: str) -> int:
    return sum(int(e.get(key) or 0) for e in entries)


def report(result, con, layout, campaigns: list[str]) -> Report:
    """The report of ``result`` (an ExecuteInProcessResult) against warehouse ``con``."""
    mats = _materializations(result)
    r = Report()
    raw = [e for t in layout.formats.values() for e in mats.get(t.table, [])]
    files = _sum(mats.get("raw_files", []), "files")
    r.phases.append(
        f"raw files: {files} data file(s) in {len(campaigns)} campaign(s); {_sum(raw, 'parsed_files')} parsed, "
        f"{_sum(raw, 'unchanged_files')} unchanged, {_sum(raw, 'quarantined_files')} quarantined, "
        f"{_sum(mats.get('raw_files', []), 'not_ingestable')} not ingestable")
    models = {m.name for m in layout.models}
    built = [k for k in mats if k in models]
    per_campaign = [e for m in layout.plan.campaign for e in mats.get(m.name, [])]
    tables, kept = _sum(per_campaign, "campaigns"), _sum(per_campaign, "kept")
    r.phases.append(f"models: {len(built)} SQL models built (in {len(campaigns)} campaign "
                    f"file(s) and the shared tables); campaign tables: {tables - kept} built, "
                    f"{kept} kept (inputs unchanged)")
    checks = con.execute("select campaign, check_name, passed, first_rows from meta_check_results "
                         "order by campaign nulls first, check_name").fetchall()
    failed = [(c, n, first or "") for c, n, ok, first in checks if not ok]
    r.phases.append(f"checks: {len(checks) - len(failed)} passed, {len(failed)} failed")
    r.failed_checks = failed
    pages = [k for k in mats if k.startswith("page_")]
    written = {p for k in pages for e in mats[k]
               for p in [*str(e.get("pages", "")).split(", "), str(e.get("page", ""))] if p}
    notices = {c for k in pages for e in mats[k] for c in str(e.get("withheld", "")).split(", ") if c}
    kept_pages = {p for k in pages for e in mats[k] for p in str(e.get("kept", "")).split(", ") if p}
    r.phases.append(f"pages: {len(written)} rendered, {len(kept_pages)} kept (inputs and docs/ "
                    f"unchanged), {len(notices)} withheld notice(s)")
    if "what_changed" in mats:
        w = mats["what_changed"][-1]
        failing = [f"{name}: {int(m.get('regressions') or 0)}"
                   for name, passed, m in _check_evaluations(result) if not passed]
        r.phases.append(f"what changed: {w.get('changed_since_baseline', 0)} measured figure(s) "
                        f"changed since {w.get('baseline', '')} (build {w.get('build', '')}), "
                        f"{w.get('pipeline_figures_changed', 0)} of the pipeline's own timings; "
                        f"regressions: {'; '.join(failing) or 'none'}")
    if "docs" in mats:
        d = mats["docs"][-1]
        r.phases.append(f"docs/: {d.get('written', 0)} file(s) written, {d.get('removed', 0)} removed"
                        + (f", {d['recovered']} interrupted publication(s) finished"
                           if d.get("recovered") else ""))
    if "site" in mats:
        site = mats["site"][-1]
        r.phases.append(f"site/: swapped in ({site.get('build', '')})"
                        + (f"; pages: {site['pages_converted']} converted, {site['pages_kept']} "
                           "kept (page cache)" if "pages_kept" in site else ""))
    rows = con.execute("select source_file, reason from ingest_registry where status <> 'ok' "
                       "order by source_file").fetchall()
    r.quarantined = [(f, reason or "") for f, reason in rows]
    rows = con.execute("select source_file, manifest_status, reason from raw_files "
                       "where manifest_status <> 'listed' "
                       "order by source_file").fetchall()
    r.not_ingestable = [(f, s, reason or "") for f, s, reason in rows]
    status = con.execute("select campaign, status from meta_campaign_status "
                         "order by campaign").fetchall()
    r.published = [c for c, s in status if s == "published"]
    r.warnings = _choices(con)
    return r


def _choices(con) -> list[tuple[str, str]]:
    """Data quality's warnings: choices the figures make (none when it was not built)."""
    try:
        return [(subject, detail or "") for subject, detail in con.execute(
            "select subject, detail from fct_data_quality where finding_kind = 'choice' "
            "order by subject, detail").fetchall()]
    except duckdb.CatalogException:  # a build that stopped before Data quality has none to tell
        return []
