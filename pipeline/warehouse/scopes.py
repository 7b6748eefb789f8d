"""Which rows each SQL model may see: the campaign is the unit.

Every model falls in one group, read from its upstreams (and its ``-- scope:`` line):

- **reference**: reads only declared parameters (``ref_*``) and other reference models;
  built once, before any campaign (the Ethernet classes, frame overheads …);
- **campaign**: reads campaign data (a raw format table, ``raw_campaigns``, ``raw_files``,
  ``ingest_registry``) or another campaign model. It is built once per campaign, inside that
  campaign's own schema where every campaign table is a view of that campaign's rows only,
  so two campaigns can never be pooled by accident, whatever the SQL groups by;
- **comparison** (``-- scope: comparison``): reads every *published* campaign side by side
  (Home's link list, the theory tables with each deployment as a row);
- **inventory** (``-- scope: inventory``): reads every campaign, withheld ones included (Data
  sources, Data quality, the dictionary) and the catalog's ``meta_*`` tables. One that reads
  ``meta_page_sources`` (what the pages showed, recorded as they rendered) is built after the
  pages that do not read it (``after_pages``).

Reading across campaigns is never implicit: a model that reads a comparison or inventory
model must declare its own scope, and a campaign model may not read one. Violations fail at
load time, naming the file.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from pipeline.warehouse.models import Model, ModelError, topological

CAMPAIGN_MANIFEST_TABLES = ("raw_campaigns", "raw_files", "ingest_registry")
SHARED = ("comparison", "inventory")
# Written by the page renders (warehouse/page_sources.py), not by the catalog.
PAGE_SOURCES = "meta_page_sources"


@dataclass
class Plan:
    scope: dict[str, str]                       # model or test name -> group
    reference: list[Model] = field(default_factory=list)
    campaign: list[Model] = field(default_factory=list)
    shared: list[Model] = field(default_factory=list)        # before the catalog
    after_catalog: list[Model] = field(default_factory=list)  # read meta_* tables
    after_pages: list[Model] = field(default_factory=list)    # read meta_page_sources
    tests: dict[str, list[Model]] = field(default_factory=dict)

    def group(self, name: str) -> str:
        return self.scope[name]

    @property
    def campaign_tables(self) -> list[str]:
        return [m.name for m in self.campaign]


def _classify(model: Model, scope: dict[str, str], campaign_raw: set[str],
              meta: set[str]) -> str:
    ups = set(model.upstreams)
    declared = model.declared_scope
    reads_campaign = bool(ups & campaign_raw) or any(scope.get(u) == "campaign" for u in ups)
    reads_shared = sorted(u for u in ups if scope.get(u) in SHARED)
    reads_meta = sorted(ups & meta)
    if declared in SHARED:
        return declared
    if reads_meta:
        raise ModelError(f"{model.path}: reads the catalog table(s) {', '.join(reads_meta)}; "
                         f"declare '-- scope: inventory'")
    if reads_shared:
        what = "campaign model" if reads_campaign or declared == "campaign" else "model"
        raise ModelError(f"{model.path}: a {what} reads {', '.join(reads_shared)}, which "
                         f"spans campaigns; declare '-- scope: comparison' (or inventory) if this "
                         f"table compares campaigns, or read campaign tables instead")
    if reads_campaign or declared == "campaign":
        return "campaign"
    return "reference"


def plan(models: list[Model], tests: list[Model], campaign_raw: set[str],
         meta: set[str]) -> Plan:
    """Group the models (in dependency order) and the checks."""
    ordered = topological(models)
    scope: dict[str, str] = {}
    out = Plan(scope)
    for model in ordered:
        group = _classify(model, scope, campaign_raw, meta)
        scope[model.name] = group
        if group == "reference":
            out.reference.append(model)
        elif group == "campaign":
            out.campaign.append(model)
        elif PAGE_SOURCES in model.upstreams or any(m.name in model.upstreams
                                                     for m in out.after_pages):
            out.after_pages.append(model)
        elif set(model.upstreams) & meta or any(m.name in model.upstreams
                                                 for m in out.after_catalog):
            out.after_catalog.append(model)
        else:
            out.shared.append(model)
    for test in tests:
        ups = set(test.upstreams)
        if PAGE_SOURCES in ups or any(m.name in ups for m in out.after_pages):
            group = "after_pages"
        elif ups & meta or any(scope.get(u) == "inventory" for u in ups):
            group = "after_catalog"
        elif any(scope.get(u) == "comparison" for u in ups):
            group = "shared"
        elif ups & campaign_raw or any(scope.get(u) == "campaign" for u in ups):
            group = "campaign"
        else:
            group = "reference"
        scope[test.name] = group
        out.tests.setdefault(group, []).append(test)
    return out
