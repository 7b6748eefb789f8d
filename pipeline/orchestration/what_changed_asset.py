"""The What changed asset: the build's figures ledger against the previous published build,
the page that lists the difference, and the regression checks on it (warning severity)."""

from dagster import (
    AssetCheckResult,
    AssetCheckSeverity,
    AssetCheckSpec,
    AssetExecutionContext,
    Config,
    MaterializeResult,
    MetadataValue,
    asset,
)
from pydantic import Field

from pipeline.orchestration.raw_assets import OWNERS
from pipeline.orchestration.resources import Warehouse
from pipeline.publish import pages as pages_mod
from pipeline.publish.docs_swap import staging_dir
from pipeline.publish.figures import baseline as baseline_mod
from pipeline.publish.figures import regressions
from pipeline.publish.what_changed import (
    PAGE,
    class_ranks,
    counts,
    mart_rows,
    patch_home,
    pipeline_slugs,
    render_page,
    stage,
    summary_line,
)

ASSET = "what_changed"


class WhatChangedConfig(Config):
    baseline: str = Field(
        default="auto",
        description="What this build is compared with: 'head' (the ledger committed at git "
                    "HEAD), 'published' (the ledger in INTERCONNECT_PUBLISH_DIR, else in docs/), "
                    "'auto' (head in a git checkout, else published) or 'none'.")


def what_changed_asset(page_keys: list[str], pages: list[pages_mod.Page], deps: list[str]):
    checks = [AssetCheckSpec(name, asset=ASSET, description=text + f" Thresholds and a note "
                             f"on each: {regressions.RULES_FILE}.",
                             metadata={"owner": OWNERS[0],
                                       "thresholds": MetadataValue.path(regressions.RULES_FILE)})
              for name, text in regressions.CHECKS.items()]

    @asset(name=ASSET, group_name="docs", kinds={"markdown", "csv"},
           deps=sorted({*page_keys, *deps}), owners=OWNERS, check_specs=checks,
           description="The figures ledger of the build (every figure every page publishes, "
                       "with its id, value in base units, text, unit and sources) compared "
                       "with the previous published build: writes docs/what-changed.md and its "
                       "CSVs, puts the count on Home, and checks the declared regression "
                       "thresholds (a link's RTT up, its throughput down, a feasibility class "
                       "worse) with warning severity.",
           metadata={"writes": MetadataValue.path("docs/what-changed.md"),
                     "template": MetadataValue.path(f"templates/{PAGE}.md.j2")})
    def _what_changed(context: AssetExecutionContext, config: WhatChangedConfig,
                      warehouse: Warehouse) -> MaterializeResult:
        project = warehouse.project
        staged = staging_dir(project, context.run.run_id)
        staged.mkdir(parents=True, exist_ok=True)
        with warehouse.connect() as con:
            campaigns = con.execute("select campaign, area, status from "
                                    "main.meta_campaign_status order by campaign").fetchall()
            ranks = class_ranks(con)
            site = next(iter(mart_rows(con, "fct_site_summary")), None)
            rules = regressions.rules_from_rows(mart_rows(con, "ref_regression_thresholds"))
        base = baseline_mod.load(project.docs, project.root, config.baseline)
        outcome, _, _ = stage(staged, project.docs, pages_mod.page_slugs(pages, [(c, a) for c, a, _ in campaigns]),
                              [(c, s) for c, _, s in campaigns], base)
        ours = pipeline_slugs(pages)
        (staged / f"{PAGE}.md").write_text(
            render_page(project.templates, outcome, ranks, pages_mod.appendix_of(project.docs),
                        site=site, pipeline_pages=ours), encoding="utf-8")
        patch_home(staged, project.docs, outcome.comparison, outcome.changes, ours)
        found = regressions.evaluate(outcome.current, rules, ranks)
        results = []
        for name in regressions.CHECKS:
            watched = [r for r in rules if r.check == name]
            hits = found[name]
            results.append(AssetCheckResult(
                check_name=name, passed=not hits, severity=AssetCheckSeverity.WARN,
                metadata={"baseline": base.source,
                          "watched": ", ".join(f"{r.table}.{r.column} ({r.direction} "
                                               f"{'' if r.threshold is None else r.threshold})"
                                               for r in watched) or "nothing declared",
                          "regressions": len(hits),
                          "first": MetadataValue.md("\n".join(
                              f"- `{h['figure_id']}`: {h['old_text']} → {h['new_text']}"
                              for h in hits[:20]) or "none")}))
        c = outcome.comparison
        measured, timings = counts(outcome.current, ours)
        return MaterializeResult(
            metadata={"build": c["build"], "baseline_build": c["baseline_build"],
                      "baseline": base.source, "figures": int(c["figures"]),
                      "figures_changed": int(c["figures_changed"]),
                      # measurements, and apart the pipeline's own benchmark timings
                      "changed_since_baseline": measured,
                      "pipeline_figures_changed": timings,
                      "kept_from_baseline": outcome.carried,
                      "summary": MetadataValue.md(summary_line(c, "docs/what-changed.md",
                                                               changes=outcome.changes,
                                                               pipeline_pages=ours))},
            check_results=results)

    return _what_changed
