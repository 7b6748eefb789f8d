"""The steps of a build as plain functions: Dagster assets call them, tests and the bench too.

Order: scan a campaign's folder (manifest, statuses) → parse its files of each format into the
raw store → load the declared parameters → build the reference models → build each campaign in
its schema → join the published campaigns and build the comparison and inventory models and
the catalog → render pages into a staging folder → publish docs/ → build the site.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cached_property

from pipeline.ingest import reference
from pipeline.ingest.base import Format
from pipeline.ingest.campaign_tables import write_campaign
from pipeline.ingest.formats import discover_formats
from pipeline.ingest.runner import IngestSummary, ingest_files
from pipeline.ingest.scan import FileEntry, Scan, campaign_folders, scan_campaign
from pipeline.ingest.store import RawStore
from pipeline.ingest.unreadable import UnreadableStoreFile
from pipeline.project import Project
from pipeline.util.sql import q
from pipeline.util.sql import literal
from pipeline.warehouse import campaign_files, check_report, keep, unions
from pipeline.warehouse import models as models_mod
from pipeline.warehouse.campaign import Outcome, build_campaign, raw_tables
from pipeline.warehouse.compact import compact
from pipeline.warehouse.schemas import (
    EVERY,
    drop_legacy_schemas,
    reset_search_path,
    set_search_path,
)
from pipeline.warehouse.scopes import CAMPAIGN_MANIFEST_TABLES, Plan, plan

META_TABLES = ("meta_models", "meta_columns", "meta_check_results", "meta_declared_files",
               "meta_page_sources", "meta_campaign_status", "meta_rejected_paths",
               "meta_build_inputs")


@dataclass
class Layout:
    """Everything a build discovers from the tree: formats, models, their groups."""
    project: Project

    @cached_property
    def formats(self) -> dict[str, Format]:
        return discover_formats()

    @cached_property
    def models(self) -> list[models_mod.Model]:
        return models_mod.discover(self.project.sql)

    @cached_property
    def tests(self) -> list[models_mod.Model]:
        return models_mod.discover_tests(self.project.sql)

    @cached_property
    def reference_files(self):
        return reference.reference_files(self.project.reference)

    @cached_property
    def reference_digest(self) -> str:
        """What the reference data a campaign model may read is (pipeline/warehouse/keep.py)."""
        return keep.reference_digest(self.reference_files, self.plan.reference)

    @cached_property
    def reference_tables(self) -> list[str]:
        return [reference.table_name(p) for p in self.reference_files]

    @cached_property
    def campaign_raw(self) -> set[str]:
        return set(raw_tables(self.formats)) | set(CAMPAIGN_MANIFEST_TABLES)

    @cached_property
    def plan(self) -> Plan:
        known = set(self.campaign_raw) | set(self.reference_tables) | set(META_TABLES)
        models_mod.check_upstreams(self.models, known)
        models_mod.check_upstreams(self.tests, known | {m.name for m in self.models})
        return plan(self.models, self.tests, self.campaign_raw, set(META_TABLES))

    @cached_property
    def store(self) -> RawStore:
        return RawStore(self.project.raw_store)

    def campaigns(self) -> list[tuple[str, str]]:
        """(area, name) of every campaign folder under raw_data/."""
        return [(area, name) for area, name, _ in campaign_folders(self.project.raw_data)]


# ------------------------------------------------------------------------------ raw layer
def scan(layout: Layout, campaign: str) -> Scan:
    """Scan one campaign folder and store its manifest and file list."""
    area = dict((n, a) for a, n in layout.campaigns()).get(campaign)
    if area is None:
        raise KeyError(f"no campaign folder raw_data/*/{campaign}")
    result = scan_campaign(layout.project.raw_data, area, campaign, set(layout.formats))
    write_campaign(layout.store, result)
    return result


def stored_files(layout: Layout, campaign: str) -> list[FileEntry]:
    """The file list the last scan of ``campaign`` stored."""
    from pipeline.ingest.store import FILE_COLUMNS
    from pipeline.util import scratch
    con = scratch.cursor()
    try:
        rows = con.execute(layout.store.relation(campaign, "raw_files", FILE_COLUMNS)).fetchall()
    finally:
        con.close()
    return [FileEntry(r[0], r[1], r[2], r[3], r[4], json.loads(r[5] or "{}"), r[6], r[7])
            for r in rows]


def ingest(layout: Layout, campaign: str, fmt: Format, log=None) -> IngestSummary:
    return ingest_files(layout.store, fmt, layout.project.raw_data, campaign,
                        stored_files(layout, campaign), log=log)


def load_references(con, layout: Layout) -> dict[str, int]:
    rows = {reference.table_name(p): reference.load(con, p) for p in layout.reference_files}
    export_reference(con, layout, list(rows))
    return rows


def export_reference(con, layout: Layout, names: list[str]) -> None:
    """Each reference table as a Parquet file the campaign files read (temp file + rename, so a
    campaign step never reads half of one); files of tables that are gone are removed."""
    folder = campaign_files.reference_folder(layout.project.warehouse)
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        target = folder / f"{name}.parquet"
        tmp = folder / f".{name}.parquet.tmp"
        con.execute(f"copy (select * from main.{q(name)}) to {literal(str(tmp))} (format parquet)")
        tmp.replace(target)
    wanted = {f"{n}.parquet" for n in _reference_names(layout)}
    for stale in folder.glob("*.parquet"):
        if stale.name not in wanted:
            stale.unlink()


# ------------------------------------------------------------------------------ SQL layer
def build_reference_models(con, layout: Layout) -> dict[str, int]:
    rows = {m.name: models_mod.run_model(con, m) for m in layout.plan.reference}
    export_reference(con, layout, list(rows))
    return rows


def _reference_names(layout: Layout) -> list[str]:
    return [*layout.reference_tables, *(m.name for m in layout.plan.reference)]


def build_campaigns(con, layout: Layout, campaigns: list[str],
                    log=None) -> dict[str | None, Outcome]:
    """The template, then each campaign, each in its own file (``con``, the caller's connection,
    lets go of any it has attached first). A raw store file DuckDB cannot read is moved aside,
    that campaign's raw files parsed again and its file built again (``log`` gets a line for
    each)."""
    out = {}
    for campaign in [None, *campaigns]:
        if con is not None:
            campaign_files.detach(con, campaign)
        out[campaign] = build_one_healing(layout, campaign, log or (lambda line: None))
    return out


def build_one(layout: Layout, campaign: str | None, reference_digest: str | None,
              log) -> Outcome:
    """Build ``campaign``'s file and write its summary beside it (campaign_files.py)."""
    warehouse = layout.project.warehouse
    fresh = reference_digest is None or keep.rebuild_all()
    with campaign_files.writing(warehouse, campaign, fresh, log) as con:
        outcome = build_campaign(con, layout.store, layout.plan, layout.formats,
                                 _reference_names(layout), campaign,
                                 campaign_files.reference_folder(warehouse), reference_digest)
    compact(campaign_files.path_of(warehouse, campaign))   # its own file: this step's alone
    if campaign is not None:
        campaign_files.write_summary(warehouse, campaign, unions.summary(outcome))
    return outcome


def build_one_healing(layout: Layout, campaign: str | None, log) -> Outcome:
    """``build_one``, healing the raw store files DuckDB cannot read (see build_campaigns)."""
    import duckdb

    from pipeline.warehouse.heal import set_aside_store_file, unreadable_store_files
    healed: set = set()
    while True:
        failure = None
        try:
            outcome = build_one(layout, campaign,
                                layout.reference_digest if not healed else None, log)
            message = "\n".join(outcome.failed_models.values())
        except (duckdb.Error, UnreadableStoreFile) as exc:
            failure, message = exc, str(exc)
        bad = [] if campaign is None else \
            [p for p in unreadable_store_files(layout.store.root, message) if p not in healed]
        if not bad:
            if failure is not None:
                raise failure
            return outcome
        for path in bad:
            healed.add(path)
            cause = next((line for line in message.splitlines() if str(path) in line), message)
            cause = cause.split(str(path), 1)[-1].strip(" \"':") or cause
            log(set_aside_store_file(path, _source_of(layout, campaign, path), cause))
        scan(layout, campaign)
        for fmt in layout.formats.values():
            ingest(layout, campaign, fmt)


def _source_of(layout: Layout, campaign: str, path) -> str | None:
    """The raw file whose store key (RawStore.key) is ``path``'s name; None when the stored
    file list cannot be read either."""
    try:
        files = stored_files(layout, campaign)
    except Exception:  # noqa: BLE001 - only used to name the file in the message
        return None
    for f in files:
        fmt = layout.formats.get(f.format or "")
        if fmt and f.sha256 and layout.store.key(f.source_file, f.sha256, fmt.version) == path.name:
            return f.source_file
    return None


def join_campaigns(con, layout: Layout) -> list[str]:
    """Remove the files and raw store folders of campaigns that are gone (and the schemas a
    build before campaign files left); bring the unions to every campaign's file; return the
    published campaigns."""
    current = {name for _, name in layout.campaigns()}
    warehouse = layout.project.warehouse
    drop_legacy_schemas(con)
    for campaign in campaign_files.on_disk(warehouse):
        if campaign not in current:
            campaign_files.remove(warehouse, campaign)
    for campaign in layout.store.campaigns():      # its raw files too: nothing reads them
        if campaign not in current:
            layout.store.remove_campaign(campaign)
            layout.store.lock_file(campaign).unlink(missing_ok=True)
    found = unions.join(con, layout, campaign_files.on_disk(warehouse))
    return sorted(c for c, s in found.items() if s["status"] == "published")


def build_shared(con, layout: Layout, group: list[models_mod.Model]) -> dict[str, int]:
    rows = {}
    for model in group:
        if layout.plan.group(model.name) == "inventory":
            set_search_path(con, EVERY, "main")
        try:
            rows[model.name] = models_mod.run_model(con, model, schema="main")
        finally:
            reset_search_path(con)
    return rows


def run_tests(con, layout: Layout, group: str) -> list[dict]:
    """The checks of a shared group, run in main (inventory ones also see every campaign)."""
    results = []
    for test in layout.plan.tests.get(group, []):
        set_search_path(con, *((EVERY, "main") if group in ("after_catalog", "after_pages")
                               else ("main",)))
        try:
            names, rows = models_mod.run_test_named(con, test)
            first = check_report.describe_failures(names, rows)
        except Exception as exc:  # noqa: BLE001 - a check that cannot run is a failed check
            rows, first = [("error",)], f"could not run: {exc}"
        finally:
            reset_search_path(con)
        results.append({"campaign": None, "check_name": test.name,
                        "statement": test.check_sentence, "blocking": test.blocking,
                        "passed": not rows, "failing_rows": len(rows), "first_rows": first,
                        "sql_file": f"sql/tests/{test.path.name}"})
    return results
