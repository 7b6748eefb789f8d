"""Pages: ``templates/<page>.md.j2`` rendered from marts into ``docs/<page>.md``.

A template opens with a Jinja comment holding YAML front matter::

    {#---
    title: Ethernet Bandwidth Math
    marts: [fct_deployment_constants, fct_prefill_what_if]
    ---#}

Each declared mart is handed to the template as a list of row dicts under its own
name, and ``row('name')`` returns the single row of a one-row mart. Strings that come
from data are escaped for Markdown tables and HTML on output, so a host called
``a|b<script>`` cannot break a table or inject markup; filters return safe text.
"""
from __future__ import annotations

import datetime as dt
import decimal
import posixpath
import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

import duckdb
from jinja2 import Environment
from markupsafe import Markup

from pipeline.project import AREA_OF_KIND
from pipeline.publish.chart_links import chart_link, marts_by_file
from pipeline.publish.figures import anchors as figure_anchors
from pipeline.publish.figures.ledger import page_rows
from pipeline.publish.figures.tracked import recording, track_rows
from pipeline.publish.front_matter import PageError, front_matter  # noqa: F401 (pages_mod.PageError)
from pipeline.publish.markdown import environment, escape_text
from pipeline.publish.partials import partial_marts



@dataclass(frozen=True)
class Page:
    """A template; with ``per_campaign`` (deployment or p2p) it renders once per campaign of
    that kind, at ``<path>`` with ``{campaign}`` replaced (default deployments/{campaign})."""

    template: Path
    title: str
    marts: tuple[str, ...]
    per_campaign: str | None = None
    path: str | None = None
    purpose: str = ""          # the front matter's ``purpose:``: what the page is for, in words
    figures: bool = True       # ``figures: false``: an inventory page, not in the figures ledger
    # ``figures_of: pipeline``: its figures time the pipeline itself (make bench), not a link or
    # a deployment; What changed counts them apart from the measurements
    figures_of: str = "measurements"

    @property
    def name(self) -> str:
        return self.template.name[: -len(".md.j2")]

    def slug(self, campaign: str | None = None) -> str:
        if self.per_campaign is None:
            return self.name
        if campaign is None:
            raise PageError(f"{self.template}: a per-campaign page needs a campaign")
        pattern = self.path or f"{AREA_OF_KIND[self.per_campaign]}/{{campaign}}"
        return pattern.format(campaign=campaign)

    @property
    def asset_name(self) -> str:
        return "page_" + re.sub(r"[^A-Za-z0-9_]", "_", self.name)

    def output(self, campaign: str | None = None) -> str:
        return f"{self.slug(campaign)}.md"


RENDERED_BY = ("marts", "ledger")


def discover_pages(templates: Path, rendered_by: str = "marts") -> list[Page]:
    """Every page template (``templates/*.md.j2``) rendered from marts, or with
    ``rendered_by="ledger"`` the one rendered from the figures ledger (What changed)."""
    pages = []
    for path in sorted(templates.glob("*.md.j2")):
        meta = front_matter(path)
        source = meta.get("rendered_by", "marts")
        if source not in RENDERED_BY:
            raise PageError(f"{path}: rendered_by must be one of {', '.join(RENDERED_BY)}, "
                            f"found {source!r}")
        if source != rendered_by:
            continue
        kind = meta.get("per_campaign")
        if kind is not None and kind not in AREA_OF_KIND:
            raise PageError(f"{path}: per_campaign must be one of {', '.join(AREA_OF_KIND)}, found {kind!r}")
        figures_of = str(meta.get("figures_of", "measurements"))
        if figures_of not in ("measurements", "pipeline"):
            raise PageError(f"{path}: figures_of must be measurements or pipeline, found {figures_of!r}")
        own = [str(m) for m in meta.get("marts", [])]
        marts = tuple(dict.fromkeys(own + partial_marts(templates, path.name, front_matter)))
        pages.append(Page(path, str(meta.get("title", path.name)), marts, kind, meta.get("path"),
                          str(meta.get("purpose") or "").strip(),
                          bool(meta.get("figures", True)), figures_of))
    return pages


def campaign_slugs(pages: list[Page], campaigns: list[tuple[str, str]]) -> set[str]:
    """The slug of every per-campaign page of each (campaign, area) in ``campaigns``."""
    return {p.slug(c) for p in pages if p.per_campaign
            for c, area in campaigns if area == AREA_OF_KIND[p.per_campaign]}


def page_slugs(pages: list[Page], campaigns: list[tuple[str, str]]) -> set[str]:
    """Every page of the site: the shared ones and each campaign's."""
    return {p.slug() for p in pages if p.per_campaign is None} | campaign_slugs(pages, campaigns)


def appendix_of(docs: Path) -> str:
    """The abbreviations every page ends with (docs/includes/abbreviations.md, hand-written)."""
    path = docs / "includes" / "abbreviations.md"
    return path.read_text(encoding="utf-8") if path.is_file() else ""


def check_marts(pages: list[Page], known_tables: set[str]) -> None:
    for page in pages:
        missing = [m for m in page.marts if m not in known_tables]
        if missing:
            raise PageError(f"{page.template}: front matter names table(s) {', '.join(missing)} "
                            f"that no model or raw format produces")


def _plain(value):
    if isinstance(value, decimal.Decimal):
        return float(value)
    if isinstance(value, (dt.date, dt.datetime)):
        return value.isoformat()
    return value


def fetch_rows(con, table: str) -> list[dict]:
    """Every row of ``table`` (a name, or ``schema.name``) as plain Python values."""
    name = ".".join(f'"{part}"' for part in table.split("."))
    cur = con.execute(f"select * from {name}")
    cols = [d[0] for d in cur.description]
    return [{c: _plain(v) for c, v in zip(cols, row)} for row in cur.fetchall()]


MAX_LISTED_SOURCES = 12


def csv_path(slug: str, mart: str) -> str:
    """Where a mart's CSV download lives, relative to docs/."""
    return f"{slug}/data/{mart}.csv"


def relative(from_slug: str, target: str) -> str:
    """A link from the page ``from_slug`` (relative to docs/) to ``target`` (relative to docs/,
    may carry a #fragment)."""
    path, _, fragment = target.partition("#")
    base = posixpath.dirname(from_slug)
    rel = posixpath.relpath(path, base or ".") if path else ""
    return rel + (f"#{fragment}" if fragment else "")


def _sources_block(slug: str, marts: tuple[str, ...], found, indent: int) -> str:
    pad = " " * indent
    downloads = " · ".join(f"[{escape_text(m)}.csv]({relative(slug, csv_path(slug, m))})"
                           for m in marts)
    every = relative(slug, "data-sources.md")
    lines = [f'{pad}??? abstract "Data behind this table: {len(found)} raw file(s)"',
             f"{pad}    Download: {downloads} · every file: [Data sources]({every})", ""]
    for src in found[:MAX_LISTED_SOURCES]:
        lines.append(f"{pad}    - {escape_text(src.source_file)} · sha256 {src.sha256[:12]}"
                     f" ({escape_text(src.kind)})")
    if len(found) > MAX_LISTED_SOURCES:
        lines.append(f"{pad}    - … and {len(found) - MAX_LISTED_SOURCES} more")
    return "\n".join(lines) + "\n"


def render(con, page: Page, env: Environment | None = None, lineage=None,
           raw_data: Path | None = None, campaign: str | None = None,
           extra: dict | None = None, appendix: str = "", on_sources=None,
           charts_shown: list | None = None, figures: list | None = None,
           keys: dict[str, tuple[str, ...]] | None = None) -> str:
    """Render a page (for ``campaign`` when it is per campaign). With ``lineage`` and
    ``raw_data``, ``sources('mart')`` lists the raw files behind a table and links its CSV;
    ``on_sources(mart, files)`` is called with what each note lists (the catalog records it);
    ``charts_shown`` collects the files of this page's own charts that the text embeds;
    ``figures`` (with ``keys``, each mart's row key) receives the ledger rows of every figure
    the page prints (pipeline/publish/figures/)."""
    env = env or environment(page.template.parent)
    data = {name: fetch_rows(con, name) for name in page.marts}
    if figures is not None:
        data = {name: track_rows(name, rows, keys[name]) if keys and name in keys else rows
                for name, rows in data.items()}
    slug = page.slug(campaign)

    def sources(*names: str, indent: int = 0, campaign: str | None = None) -> Markup:
        """A collapsible note under a table: its raw files (path + short sha256) and CSVs;
        with ``campaign``, only the files behind that campaign's rows (the rows shown)."""
        for name in names:
            if name not in data:
                raise PageError(f"{page.template}: sources('{name}') but '{name}' is not in its "
                                f"front matter")
        if lineage is None or raw_data is None:
            return Markup("")
        from pipeline.warehouse.lineage import sources as find_sources
        found = {}
        for n in names:
            listed = find_sources(con, lineage, n, raw_data, campaign=campaign)
            if on_sources is not None:
                on_sources(n, listed)
            found.update({s.source_file: s for s in listed})
        return Markup(_sources_block(slug, names, [found[k] for k in sorted(found)], indent))

    def row(name: str) -> dict:
        if name not in data:
            raise PageError(f"{page.template}: row('{name}') but '{name}' is not in its front matter")
        if len(data[name]) != 1:
            raise PageError(f"{page.template}: row('{name}') needs exactly one row, "
                            f"the table has {len(data[name])}")
        return data[name][0]

    def url(target: str) -> Markup:
        """A link to ``target`` (relative to docs/) from this page, percent-encoded."""
        return Markup(quote(relative(slug, target), safe="/#.-_~"))

    def chart(file: str, base: str | None = None) -> Markup:
        """The link to chart ``file`` of the page at ``base`` (this page when omitted); a chart
        of this page is drawn only when its text embeds it."""
        base = base or slug
        if base == slug and charts_shown is not None:
            charts_shown.append(file)
        return chart_link(url(f"{base}/{file}"), [(m, url(csv_path(base, m)))
                                                  for m in marts_by_file().get(file, ())])

    def site_stamp() -> dict | None:
        """The row of main.fct_site_summary, the shared pages' build stamp; None before it is
        built (the catalog renders pages to record their sources before the inventory marts)."""
        try:
            rows = fetch_rows(con, "main.fct_site_summary")
        except duckdb.CatalogException:
            return None
        return rows[0] if len(rows) == 1 else None

    template = env.get_template(page.template.name)
    context = dict(**data, row=row, page=page, sources=sources, url=url, chart=chart,
                   campaign=campaign, slug=slug, site_stamp=site_stamp, **(extra or {}))
    if figures is None:
        text = template.render(**context)
    else:
        with recording() as recorder:
            text = template.render(**context)
        text, where = figure_anchors.strip(text)
        figures.extend(page_rows(slug, recorder.noted, where))
    text = text.rstrip("\n") + "\n"
    return text + ("\n" + appendix.rstrip("\n") + "\n" if appendix else "")


def csv_bytes(con, table: str) -> bytes:
    """A mart as CSV: header, then rows in the mart's order, floats at full precision."""
    import csv
    import io
    cur = con.execute(f'select * from "{table}"')
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([d[0] for d in cur.description])
    for row in cur.fetchall():
        writer.writerow(["" if v is None else _plain(v) for v in row])
    return out.getvalue().encode("utf-8")


def render_template(con, template_path: Path) -> str:
    """Render one template file against a connection (used by tests)."""
    meta = front_matter(template_path)
    page = Page(template_path, str(meta.get("title", template_path.name)),
                tuple(meta.get("marts", [])))
    return render(con, page)
