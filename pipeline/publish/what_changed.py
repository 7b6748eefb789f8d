"""The What changed page of a build: its ledger, the comparison with the baseline, the page.

The build's ledger (every page's figures and each campaign's status) is compared with the
baseline's (baseline.py). When the two ledgers are the same bytes, the build *is* the baseline's
build: its comparison and changes are kept as they were, so building again, or building the
commit that holds the docs, gives the same bytes. Otherwise the comparison is made anew.

Writes, into the staging folder: ``what-changed.md``, ``what-changed/data/figures.csv`` (the
ledger), ``figure_sources.csv``, ``comparison.csv`` and ``figure_changes.csv``; and puts the
one-line summary on Home (the line that starts with ``SUMMARY_PREFIX``).
"""
from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from pipeline.publish.figures.baseline import CHANGES, COMPARISON, LEDGER, Baseline
from pipeline.publish.figures.diff import CHANGE_COLUMNS, campaign_rows, compare, figures_changed
from pipeline.publish.figures.ledger import SOURCE_COLUMNS, build_id, from_csv, to_csv
from pipeline.publish.figures.site_ledger import SOURCES, assemble, published

PAGE = "what-changed"
COMPARISON_COLUMNS = ("build", "figures", "baseline_build", "baseline_source", "figures_changed",
                      "moved", "text", "missing", "shown", "rows_added", "rows_removed",
                      "pages_added", "pages_removed", "campaigns_added", "campaigns_removed",
                      "campaigns_withheld", "campaigns_published")
SUMMARY_PREFIX = "**What changed:**"
HOME = "index"
LISTED = 200          # entries of one kind on the page; the CSV has them all


@dataclass(frozen=True)
class Outcome:
    comparison: dict          # what the page shows (kept from the baseline when carried)
    changes: list[dict]       # the changes the page lists
    current: list[dict]       # this build against its baseline (empty when nothing changed)
    carried: bool


def mart_rows(con, table: str) -> list[dict]:
    """The rows of a table of main, none when it is not built."""
    from pipeline.warehouse.schemas import objects
    if table not in objects(con, "main"):
        return []
    from pipeline.publish.pages import fetch_rows
    return fetch_rows(con, table)


def class_ranks(con) -> dict[str, int]:
    """Every way a feasibility class is shown (code, label, symbol) and its order."""
    ranks = {}
    for r in mart_rows(con, "dim_feasibility_thresholds"):
        for col in ("feasibility_class", "label", "symbol"):
            if r.get(col) is not None:
                ranks[str(r[col])] = int(r["sort_order"])
    return ranks


def _count(changes: list[dict], kind: str) -> int:
    return sum(1 for c in changes if c["kind"] == kind)


def comparison_row(ledger_bytes: bytes, figures: int, baseline: Baseline,
                   changes: list[dict]) -> dict:
    row = {"build": build_id(ledger_bytes), "figures": str(figures),
           "baseline_build": build_id(baseline.ledger), "baseline_source": baseline.source,
           "figures_changed": str(figures_changed(changes))}
    for col, kind in (("moved", "moved"), ("text", "text"), ("missing", "missing"),
                      ("shown", "shown"), ("rows_added", "row_added"),
                      ("rows_removed", "row_removed"), ("pages_added", "page_added"),
                      ("pages_removed", "page_removed"), ("campaigns_added", "campaign_added"),
                      ("campaigns_removed", "campaign_removed"),
                      ("campaigns_withheld", "campaign_withheld"),
                      ("campaigns_published", "campaign_published")):
        row[col] = str(_count(changes, kind))
    return row


def pipeline_slugs(pages) -> set[str]:
    """The pages whose figures time the pipeline (a shared template with ``figures_of: pipeline``)."""
    return {p.slug() for p in pages if p.figures_of == "pipeline" and p.per_campaign is None}


def split(changes: list[dict], pipeline_pages: set[str]) -> tuple[list[dict], list[dict]]:
    """(changes of measurements, changes of the pipeline's own benchmark figures): a page whose
    template says ``figures_of: pipeline`` (Scaling out) times the build, it measures nothing."""
    ours = [c for c in changes if c["page"] in pipeline_pages]
    return [c for c in changes if c["page"] not in pipeline_pages], ours


def counts(changes: list[dict], pipeline_pages: set[str]) -> tuple[int, int]:
    """(figures of measurements changed, figures of the pipeline's own timings changed): the
    build's summary line and the asset's metadata count them apart, as Home's line does."""
    measured, ours = split(changes, pipeline_pages)
    return figures_changed(measured), figures_changed(ours)


def _figures(n: int) -> str:
    return f"{n} figure{'' if n == 1 else 's'}"


def summary_line(comparison: dict, link: str = "what-changed.md", *, changes: list[dict],
                 pipeline_pages: set[str]) -> str:
    """Home's line: the measurements that changed; the pipeline's own timings named apart."""
    if not comparison["baseline_build"]:
        return (f"{SUMMARY_PREFIX} build `{comparison['build']}` is the first with a figures "
                f"ledger ({comparison['figures']} figures); [what changed]({link}) lists nothing yet.")
    measured, ours = (figures_changed(part) for part in split(changes, pipeline_pages))
    tail = f" (and {_figures(ours)} of the pipeline's own benchmark)" if ours else ""
    return (f"{SUMMARY_PREFIX} {_figures(measured)} of measurements changed{tail} in build "
            f"`{comparison['build']}` since build `{comparison['baseline_build']}` "
            f"({comparison['baseline_source']}): see [What changed]({link}).")


def _write(staged: Path, rel: str, data: bytes) -> None:
    path = staged / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def stage(staged: Path, docs: Path, pages: set[str], statuses: list[tuple[str, str]],
          baseline: Baseline) -> tuple[Outcome, bytes, bytes]:
    """Assemble the ledger, compare, stage the data files; returns the outcome, the ledger and
    the sources CSV (the page is rendered by ``render_page``)."""
    figures, sources = assemble(staged, published(docs), pages)
    figures += campaign_rows(statuses)
    ledger_bytes = to_csv(figures)
    current = compare(from_csv(baseline.ledger), figures) if baseline.ledger else []
    carried = (baseline.ledger == ledger_bytes and baseline.files.get(COMPARISON) is not None
               and baseline.files.get(CHANGES) is not None)
    if carried:
        comparison_bytes, changes_bytes = baseline.files[COMPARISON], baseline.files[CHANGES]
    else:
        comparison_bytes = to_csv([comparison_row(ledger_bytes, len(figures), baseline, current)],
                                  COMPARISON_COLUMNS)
        changes_bytes = to_csv(current, CHANGE_COLUMNS)
    comparison = from_csv(comparison_bytes, COMPARISON_COLUMNS)[0]
    changes = from_csv(changes_bytes, CHANGE_COLUMNS)
    sources_bytes = to_csv(sources, SOURCE_COLUMNS)
    for rel, data in ((LEDGER, ledger_bytes), (SOURCES, sources_bytes),
                      (COMPARISON, comparison_bytes), (CHANGES, changes_bytes)):
        _write(staged, rel, data)
    return Outcome(comparison, changes, current, carried), ledger_bytes, sources_bytes


def patch_home(staged: Path, docs: Path, comparison: dict, changes: list[dict],
               pipeline_pages: set[str]) -> bool:
    """Put the summary on Home (staged by this run, or the published Home copied in whole)."""
    page = staged / f"{HOME}.md"
    if not page.is_file():
        if not (docs / f"{HOME}.md").is_file():
            return False
        shutil.copy2(docs / f"{HOME}.md", page)
        if (docs / HOME).is_dir():
            shutil.copytree(docs / HOME, staged / HOME, dirs_exist_ok=True)
    lines = page.read_text(encoding="utf-8").split("\n")
    hits = [i for i, line in enumerate(lines) if line.startswith(SUMMARY_PREFIX)]
    for i in hits:
        lines[i] = summary_line(comparison, changes=changes, pipeline_pages=pipeline_pages)
    page.write_text("\n".join(lines), encoding="utf-8")
    return bool(hits)


SECTIONS = (
    ("Campaigns", "campaigns", ("campaign_added", "campaign_removed", "campaign_withheld",
                                "campaign_published"),
     "Campaigns that appeared, disappeared, or were withheld or published again (the reasons "
     "of a withheld campaign are on its page and on Data quality)."),
    ("Classes and text", "classes-and-text", ("text",),
     "Figures shown as words (a feasibility class, a label, a date) whose value changed; a "
     "class that moved to a later class of the declared thresholds is marked *worse*."),
    ("Figures that moved", "figures-that-moved", ("moved",),
     "Numbers whose value changed, largest relative change first (values in base units are "
     "in figure_changes.csv; a change of the last digit of a float is not a change)."),
    ("No longer shown", "no-longer-shown", ("missing",),
     "Figures the page showed and now shows as missing or not at all, their row still there."),
    ("Newly shown", "newly-shown", ("shown",), "Figures of an existing row that the page now shows."),
    ("Rows added and removed", "rows-added-and-removed", ("row_added", "row_removed"),
     "Rows of a table on a page that are new or gone, with how many figures they hold."),
    ("Pages added and removed", "pages-added-and-removed", ("page_added", "page_removed"),
     "Whole pages that are new or gone (a campaign's page, or a new page of the site)."),
)
CAMPAIGN_WORDS = {"campaign_added": "added", "campaign_removed": "removed",
                  "campaign_withheld": "published → withheld",
                  "campaign_published": "withheld → published"}


def _label(e: dict) -> str:
    key = " · ".join(part.split("=", 1)[-1] for part in e["row_key"].split(";") if part)
    return " · ".join(x for x in (e["table"], key, e["column"]) if x)


GONE_KINDS = ("missing", "row_removed", "page_removed")


def _entries(kinds, changes: list[dict], link, esc, ranks: dict[str, int]) -> list[list]:
    from markupsafe import Markup

    from pipeline.publish.filters import signed_pct
    out = []
    for e in changes:
        if e["kind"] not in kinds:
            continue
        # what is gone points at the previous build: its section may be gone too (no anchor)
        anchor = "" if e["kind"] in GONE_KINDS else e["anchor"]
        page = link(e["page"], anchor) if e["page"] else ""
        if e["kind"].startswith("campaign_"):
            out.append([esc(e["row_key"][len("campaign="):]), CAMPAIGN_WORDS[e["kind"]]])
        elif e["kind"] == "text":
            old, new = ranks.get(e["old_value"]), ranks.get(e["new_value"])
            way = ("*worse*" if new > old else "better" if new < old else "") \
                if old is not None and new is not None else ""
            out.append([esc(_label(e)), page, esc(e["old_text"]), esc(e["new_text"]), Markup(way)])
        elif e["kind"] == "moved":
            rel = e["relative_change"]
            out.append([esc(_label(e)), page, esc(e["old_text"]), esc(e["new_text"]),
                        signed_pct(float(rel), 1) if rel else "from 0"])
        elif e["kind"] == "missing":
            out.append([esc(_label(e)), page, esc(e["old_text"])])
        elif e["kind"] == "shown":
            out.append([esc(_label(e)), page, esc(e["new_text"])])
        elif e["kind"] in ("row_added", "row_removed"):
            out.append([esc(_label(e)), page, "added" if e["kind"] == "row_added" else "removed",
                        e["figures"]])
        else:
            out.append([page, "added" if e["kind"] == "page_added" else "removed", e["figures"]])
    return out


HEADERS = {"campaigns": ("Campaign", "Change"),
           "classes-and-text": ("Figure", "Page", "Before", "Now", "Class"),
           "figures-that-moved": ("Figure", "Page", "Before", "Now", "Change"),
           "no-longer-shown": ("Figure", "Page", "Before"),
           "newly-shown": ("Figure", "Page", "Now"),
           "rows-added-and-removed": ("Row", "Page", "Change", "Figures"),
           "pages-added-and-removed": ("Page", "Change", "Figures")}


PIPELINE_SECTION = ("Benchmark timings of the pipeline", "pipeline-benchmark",
                    "Timings of the build itself (`make bench`, shown on the pages that say so, "
                    "such as Scaling out): they change with the machine and the code, and "
                    "measure no link or deployment.")


def render_page(templates: Path, outcome: Outcome, ranks: dict[str, int], appendix: str = "",
                site: dict | None = None, *, pipeline_pages: set[str]) -> str:
    """The What changed page; ``site`` (the row of fct_site_summary) gives its build stamp;
    the changes of ``pipeline_pages`` (benchmark timings) get a section of their own, last."""
    from markupsafe import Markup

    from pipeline.publish import markdown
    from pipeline.publish import pages as pages_mod

    def url(target: str) -> Markup:
        from urllib.parse import quote
        return Markup(quote(pages_mod.relative(PAGE, target), safe="/#.-_~"))

    gone = {e["page"] for e in outcome.changes if e["kind"] == "page_removed"}

    def link(page: str, anchor: str) -> Markup:
        if page in gone:                    # no longer a page of the site: named, not linked
            return Markup(markdown.escape_text(page))
        target = f"{page}.md" + (f"#{anchor}" if anchor else "")
        return Markup(f"[{markdown.escape_text(page)}]({url(target)})")

    def esc(text: str) -> Markup:
        return Markup(markdown.escape_text(text))

    measured, ours = split(outcome.changes, pipeline_pages)
    sections = []
    for title, anchor, kinds, intro in SECTIONS:
        entries = _entries(kinds, measured, link, esc, ranks)
        if entries:
            sections.append({"title": title, "anchor": anchor, "intro": Markup(intro),
                             "headers": HEADERS[anchor], "entries": entries[:LISTED],
                             "more": max(0, len(entries) - LISTED)})
    # one table in the widest layout: a figure no longer shown has no "now", a new one no "before"
    entries = (_entries(("moved", "text"), ours, link, esc, ranks)
               + [e + ["not shown", ""] for e in _entries(("missing",), ours, link, esc, ranks)]
               + [e[:2] + ["not shown"] + e[2:] + [""]
                  for e in _entries(("shown",), ours, link, esc, ranks)])
    if entries:
        title, anchor, intro = PIPELINE_SECTION
        sections.append({"title": title, "anchor": anchor, "intro": Markup(intro),
                         "headers": HEADERS["figures-that-moved"], "entries": entries[:LISTED],
                         "more": max(0, len(entries) - LISTED)})
    counts = {"measurements": figures_changed(measured), "pipeline": figures_changed(ours)}
    found = pages_mod.discover_pages(templates, rendered_by="ledger")
    if [p.slug() for p in found] != [PAGE]:
        raise pages_mod.PageError(f"{templates}: expected one template rendered_by: ledger, "
                                  f"{PAGE}.md.j2, found {[p.template.name for p in found]}")
    env = markdown.environment(templates)
    text = env.get_template(found[0].template.name).render(
        comparison=outcome.comparison, sections=sections, url=url, site=site, counts=counts)
    text = text.rstrip("\n") + "\n"
    return text + ("\n" + appendix.rstrip("\n") + "\n" if appendix else "")
