"""Build one campaign's tables in its own file and decide whether it is published.

In the campaign's own DuckDB file (pipeline/warehouse/campaign_files.py), whose ``main`` schema
the models see alone, the raw tables are views of that campaign's Parquet files, every campaign
model is rebuilt in dependency order with one connection, then the campaign's checks run. The campaign is *withheld* (absent from every cross-campaign table and page, its own page
a notice saying why) when its manifest is unusable, a model fails on its data, or a blocking
check fails; otherwise it is published.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field

from pipeline.ingest.base import Format
from pipeline.ingest.runner import columns_of
from pipeline.ingest.store import (
    CAMPAIGN_COLUMNS,
    FILE_COLUMNS,
    REGISTRY_COLUMNS,
    RawStore,
    typed_empty,
)
from pipeline.util.hashing import sha256_of_parts
from pipeline.util.sql import insert_frame, literal, new_table, q
from pipeline.warehouse import check_report, keep
from pipeline.warehouse import models as models_mod
from pipeline.warehouse.schemas import (
    drop,
    objects,
    replace_view,
    reset_search_path,
    set_search_path,
)
from pipeline.warehouse.scopes import Plan

CHECK_COLUMNS = {
    "campaign": "VARCHAR", "check_name": "VARCHAR", "statement": "VARCHAR",
    "blocking": "BOOLEAN", "passed": "BOOLEAN", "failing_rows": "BIGINT",
    "first_rows": "VARCHAR", "sql_file": "VARCHAR",
}
STATUS_COLUMNS = {"campaign": "VARCHAR", "area": "VARCHAR", "status": "VARCHAR",
                  "reasons": "JSON"}


@dataclass
class Outcome:
    campaign: str | None
    status: str = "published"
    reasons: list[dict] = field(default_factory=list)   # {kind, subject, detail}
    rows: dict[str, int] = field(default_factory=dict)
    failed_models: dict[str, str] = field(default_factory=dict)
    checks: list[dict] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)       # models whose table was kept as it was
    digests: dict[str, str] = field(default_factory=dict)   # keep.py's, when computed

    def withhold(self, kind: str, subject: str, detail: str) -> None:
        self.status = "withheld"
        self.reasons.append({"kind": kind, "subject": subject, "detail": detail})


def raw_tables(formats: dict[str, Format]) -> dict[str, dict[str, str]]:
    """Every campaign raw table with its columns."""
    tables = {"raw_campaigns": CAMPAIGN_COLUMNS, "raw_files": FILE_COLUMNS}
    for fmt in formats.values():
        tables[fmt.table] = columns_of(fmt)
    return tables


def _load_raw(con, store: RawStore, schema: str, campaign: str | None,
              formats: dict[str, Format]) -> None:
    import pandas as pd
    held = objects(con, schema)     # none in a fresh schema; a kept one's views from last time
    for table, columns in raw_tables(formats).items():
        sql = typed_empty(columns) if campaign is None else \
            store.relation(campaign, table, columns, relative=True)
        replace_view(con, schema, table, sql, held)
    entries = [] if campaign is None else store.registry(campaign, [f.table for f in formats.values()])
    new_table(con, f"{q(schema)}.ingest_registry", REGISTRY_COLUMNS)
    if entries:
        insert_frame(con, f"{q(schema)}.ingest_registry",
                     pd.DataFrame(entries).reindex(columns=list(REGISTRY_COLUMNS)))


def _reference_views(con, schema: str, reference_tables: list[str], parquet) -> None:
    """A view of each reference table's Parquet file (written by the reference step), named from
    the folder beside it, as the raw views name the raw store's files (campaign_files.py)."""
    for name in reference_tables:
        path = f"{parquet.name}/{name}.parquet"
        con.execute(f"create or replace view {q(schema)}.{q(name)} as "
                    f"select * from read_parquet({literal(path)})")


def _manifest_problem(con, schema: str) -> tuple[str | None, str | None]:
    rows = con.execute(f"select manifest_status, manifest_problem, manifest_file "
                       f"from {q(schema)}.raw_campaigns").fetchall()
    if not rows:
        return None, None
    status, problem, manifest = rows[0]
    return (problem, manifest) if status != "ok" else (None, None)


SCHEMA = "main"      # a campaign's tables in its own file


def build_campaign(con, store: RawStore, plan: Plan, formats: dict[str, Format],
                   reference_tables: list[str], campaign: str | None, reference_parquet,
                   reference_digest: str | None = None) -> Outcome:
    """(Re)build ``campaign``'s tables (the template's when None) in ``con``, its own file;
    returns its outcome. Given the reference data's digest, a model whose inputs are those its
    table was built from is kept (pipeline/warehouse/keep.py), the template's as a campaign's;
    without it, the caller opens a new file and every table is new."""
    schema = SCHEMA
    out = Outcome(campaign)
    digests: dict[str, str] = {}
    fresh = reference_digest is None
    before = {} if fresh or keep.rebuild_all() else keep.recorded(con, schema)
    _load_raw(con, store, schema, campaign, formats)
    # (again) each time, as the raw views: the files they name change with the reference data
    _reference_views(con, schema, reference_tables, reference_parquet)
    if not fresh:
        macros = plan.campaign[0].path.parent.parent / models_mod.MACROS_FILE if plan.campaign else None
        raw = keep.raw_digest(con, schema)
        if campaign is None:    # the template reads no rows: its raw tables' columns instead
            raw = sha256_of_parts(raw, json.dumps(raw_tables(formats), sort_keys=True))
        digests = keep.model_digests(plan.campaign, macros.read_text(encoding="utf-8")
                                     if macros is not None and macros.is_file() else "",
                                     raw, reference_digest, set(reference_tables))
        digests[keep.CHECKS] = keep.checks_digest(plan.tests.get("campaign", []), digests)
        if keep.unchanged(before, digests) and _all_held(con, schema, plan, reference_tables):
            out = _kept_whole(con, schema, campaign, before)
            out.digests = {**digests, keep.RAW: raw}
            return out
        _drop_strays(con, schema, plan, formats, reference_tables)
    problem, manifest = _manifest_problem(con, schema)
    if problem:
        out.withhold("manifest", manifest, problem)
    set_search_path(con, schema)
    try:
        held = objects(con, schema)
        for model in plan.campaign:
            failed_up = [u for u in model.upstreams if u in out.failed_models]
            if failed_up:
                out.failed_models[model.name] = f"not built: {', '.join(failed_up)} failed"
                drop(con, schema, model.name, held)
                continue
            if digests and before.get(model.name, ("",))[0] == digests[model.name] \
                    and held.get(model.name) == "table":
                out.rows[model.name] = con.execute(
                    f"select count(*) from {q(schema)}.{q(model.name)}").fetchall()[0][0]
                out.kept.append(model.name)
                continue
            try:
                out.rows[model.name] = models_mod.run_model(con, model, schema=schema)
            except models_mod.ModelError as exc:
                if campaign is None:        # fails on no data at all: a bug in the SQL itself
                    raise
                out.failed_models[model.name] = str(exc)
                out.withhold("model", f"sql/{model.layer}/{model.path.name}", str(exc))
                drop(con, schema, model.name)     # no table from an earlier build stands in
                continue
            if campaign is None:
                _require_campaign_column(con, schema, model)
        for test in plan.tests.get("campaign", []):
            out.checks.append(_run_check(con, test, campaign, out))
    finally:
        reset_search_path(con)
    _write_results(con, schema, out)
    if digests:
        keep.record(con, schema, {name: digests[name] for name in [*out.rows, keep.CHECKS]},
                    out.rows)
        out.digests = {**digests, keep.RAW: raw}
    return out


def _all_held(con, schema: str, plan: Plan, reference_tables: list[str]) -> bool:
    held = objects(con, schema)
    return all(held.get(m.name) == "table" for m in plan.campaign) and \
        all(held.get(name) == "view" for name in reference_tables) and \
        all(held.get(name) == "table" for name in ("meta_check_results", "meta_campaign_status"))


def _kept_whole(con, schema: str, campaign: str, before: dict) -> Outcome:
    """The outcome of a campaign none of whose inputs changed, read from its schema: no model
    or check runs. A withholding for a page that failed to render is dropped: the page is
    rendered again (its template may have been mended since)."""
    out = Outcome(campaign)
    out.rows = {name: rows for name, (_, rows) in before.items() if name != keep.CHECKS}
    out.kept = sorted(out.rows)
    cur = con.execute(f"select * from {q(schema)}.meta_check_results")
    names = [d[0] for d in cur.description]
    out.checks = [dict(zip(names, row)) for row in cur.fetchall()]
    status = status_in(con, schema) or {"status": "published", "reasons": []}
    kept_reasons = [r for r in status["reasons"] if r.get("kind") != "page"]
    for reason in kept_reasons:
        out.withhold(reason["kind"], reason["subject"], reason["detail"])
    if len(kept_reasons) != len(status["reasons"]):
        _write_results(con, schema, out)
    return out


def _drop_strays(con, schema: str, plan: Plan, formats, reference_tables: list[str]) -> None:
    """Drop what a build of today's models would not make (a model removed from sql/)."""
    wanted = {*raw_tables(formats), "ingest_registry", *reference_tables,
              *(m.name for m in plan.campaign), "meta_check_results", "meta_campaign_status",
              keep.DIGESTS}
    held = objects(con, schema)
    for name in sorted(set(held) - wanted):
        drop(con, schema, name, held)


def _require_campaign_column(con, schema: str, model) -> None:
    """Every campaign table carries its campaign, so a union of campaigns stays separable."""
    cols = [r[0] for r in con.execute(
        "select column_name from duckdb_columns() where database_name = current_database() "
        "and schema_name = ? and table_name = ?", [schema, model.name]).fetchall()]
    if "campaign" not in cols:
        raise models_mod.ModelError(f"{model.path}: a campaign model must output a 'campaign' "
                                    f"column (it has {', '.join(cols)})")


def _run_check(con, test, campaign, out: Outcome) -> dict:
    missing = [u for u in test.upstreams if u in out.failed_models]
    if missing:
        names, rows = ["outcome"], [("not run",)]
        first = f"not run: {', '.join(missing)} failed"
    else:
        try:
            names, rows = models_mod.run_test_named(con, test)
            first = check_report.describe_failures(names, rows)
        except Exception as exc:  # noqa: BLE001 - a check that cannot run is a failed check
            names, rows, first = ["outcome"], [("error",)], f"could not run: {exc}"
    result = {"campaign": campaign, "check_name": test.name, "statement": test.check_sentence,
              "blocking": test.blocking, "passed": not rows, "failing_rows": len(rows),
              "first_rows": first, "sql_file": f"sql/tests/{test.path.name}"}
    if rows and test.blocking and campaign is not None:
        out.withhold("check", result["sql_file"],
                     check_report.withhold_reason(test.check_sentence, test.fix_sentence, names, rows))
    return result


def _write_results(con, schema: str, out: Outcome) -> None:
    import pandas as pd
    checks = pd.DataFrame(out.checks, columns=list(CHECK_COLUMNS))
    status = pd.DataFrame([{"campaign": out.campaign, "area": None, "status": out.status,
                            "reasons": json.dumps(out.reasons, ensure_ascii=False)}],
                          columns=list(STATUS_COLUMNS))
    if out.campaign is None:
        status = status.iloc[0:0]
    for name, frame, columns in (("meta_check_results", checks, CHECK_COLUMNS),
                                 ("meta_campaign_status", status, STATUS_COLUMNS)):
        new_table(con, f"{q(schema)}.{q(name)}", columns)
        insert_frame(con, f"{q(schema)}.{q(name)}", frame)
    con.execute(f"update {q(schema)}.meta_campaign_status set area = "
                f"(select max(area) from {q(schema)}.raw_campaigns)")


def status_in(con, schema: str) -> dict | None:
    """{status, area, reasons} of the campaign built in ``schema``; None when it has none."""
    rows = con.execute(f"select status, area, reasons from {q(schema)}.meta_campaign_status").fetchall()
    if not rows:
        return None
    return {"status": rows[0][0], "area": rows[0][1], "reasons": json.loads(rows[0][2] or "[]")}
