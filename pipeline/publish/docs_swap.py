"""docs/ is replaced only when every page of the build rendered, and together with the site.

Page assets render into ``.docs-staging/<run>/`` (the page, its CSV downloads and its charts:
one *group* per page, ``<slug>.md`` plus everything under ``<slug>/``). The publish step runs
after all of them, so a failure in any page leaves all of docs/ as it was. It plans the change
(the files of each staged group that differ, the files a group no longer produces, the groups of
campaigns that are gone) and carries it out as a transaction with a journal
(pipeline/publish/journal.py) that the site step commits once the new site is swapped in.
Hand-written files (``stylesheets/``, ``includes/``, ``javascripts/``) are never touched.
"""
from __future__ import annotations

import shutil
from pathlib import Path

from pipeline.project import CAMPAIGN_AREAS
from pipeline.publish import journal as txn
from pipeline.publish.site import SiteBuild, build_site, swap_in
from pipeline.publish.site import publish as publish_copy
from pipeline.util.faults import checkpoint


def staging_dir(project, run_id: str) -> Path:
    return project.docs_staging / run_id


def _groups(staged: Path) -> list[str]:
    return sorted(rel[: -len(".md")] for rel in
                  (p.relative_to(staged).as_posix() for p in staged.rglob("*.md"))
                  if not rel.startswith("."))


def group_files(root: Path, slug: str) -> dict[str, Path]:
    files = {}
    page = root / f"{slug}.md"
    if page.is_file():
        files[f"{slug}.md"] = page
    folder = root / slug
    if folder.is_dir():
        for p in folder.rglob("*"):
            if p.is_file() and not (p.suffix == ".md" and p.parent != folder) \
                    and not p.name.endswith(".tmp"):
                files[p.relative_to(root).as_posix()] = p
    return files


def plan(docs: Path, staged: Path, campaign_slugs: set[str]) -> tuple[list, list, list]:
    """(added, replaced, removed): paths relative to ``docs``."""
    added, replaced, removed = [], [], []
    for slug in _groups(staged):
        new = group_files(staged, slug)
        old = group_files(docs, slug)
        for rel, path in sorted(new.items()):
            if rel not in old:
                added.append(rel)
            elif old[rel].read_bytes() != path.read_bytes():
                replaced.append(rel)
        removed += sorted(set(old) - set(new))
    for area in CAMPAIGN_AREAS:
        for page in sorted((docs / area).glob("*.md")) if (docs / area).is_dir() else []:
            slug = page.relative_to(docs).as_posix()[: -len(".md")]
            if slug not in campaign_slugs:
                removed += sorted(group_files(docs, slug))
    return added, replaced, removed


def publish(docs: Path, staged: Path, campaign_slugs: set[str], with_site: bool = False) -> dict:
    """Replace ``docs`` with the staged groups; ``campaign_slugs`` are the per-campaign pages
    that exist now (others under deployments/ and p2p/ are removed). With ``with_site`` the
    transaction stays open for the site step to commit (journal.py); else it commits here.
    A failure part-way rolls docs/ back before it is raised."""
    added, replaced, removed = plan(docs, staged, campaign_slugs)
    journal = txn.begin(staged, added, replaced, removed, sorted(campaign_slugs), with_site)
    try:
        stats = txn.apply(journal, docs)
    except BaseException:
        txn.rollback(journal, docs)
        raise
    if not with_site:
        journal.mark("committed")
        txn.close(journal)
    return stats


def finish(project, journal: txn.Journal, publish_dir: str | None) -> None:
    """A committed publication: copy the site to the publish directory if one is set, then
    close the journal."""
    if publish_dir and journal.data.get("with_site") and project.site.is_dir():
        publish_copy(project.site.resolve(), Path(publish_dir))
    txn.close(journal)


def _swapped(project, journal: txn.Journal) -> bool:
    target = journal.data.get("site_target")
    return bool(target) and project.site.is_symlink() and project.site.resolve().name == target


def _committed(project, journal: txn.Journal) -> bool:
    """Past the commit point: marked so, or killed between the site swap and the mark."""
    return journal.phase == "committed" or (journal.phase == "site" and _swapped(project, journal))


def recover(project, publish_dir: str | None = None) -> list[str]:
    """Settle every publication a killed build left open, before anything else: roll back one
    that had not committed, finish one that had. Returns a line for each."""
    lines = []
    for journal in txn.open_journals(project.docs_staging):
        run = journal.folder.name
        if _committed(project, journal):
            finish(project, journal, publish_dir)
            lines.append(f"finished the publication of run {run}, which a killed build had "
                         "committed: docs/ and the site are its own"
                         + (f", {publish_dir} now too" if publish_dir else ""))
        else:
            txn.rollback(journal, project.docs)
            lines.append(f"rolled back the publication of run {run}, which a killed build had "
                         "left open: docs/ is as it was before that build")
    return lines


def abandon(project, keep: str | None = None) -> list[str]:
    """After a failed or interrupted build (we hold the lock): roll back every publication that
    did not commit; one that committed is left for the next build to finish. Staging folders
    without a journal are removed. Returns the runs left to finish."""
    left = []
    root = project.docs_staging
    for folder in sorted(root.iterdir()) if root.is_dir() else []:
        if folder.name == keep:
            continue
        journal = txn.Journal.read(folder)
        if journal is None:
            shutil.rmtree(folder, ignore_errors=True)
        elif _committed(project, journal):
            journal.mark("committed")
            left.append(folder.name)
        else:
            txn.rollback(journal, project.docs)
    if root.is_dir():
        txn.prune_empty(root, root.parent)
    return left


def publish_site(project, run_id: str, publish_dir: str | None) -> SiteBuild:
    """Build the site from docs/ and swap it in: the commit point of the run's publication
    (journal.py). A failure or signal before the swap rolls docs/ back."""
    journal = txn.Journal.read(staging_dir(project, run_id))
    try:
        built = build_site(project)
        final = built.path
        if journal is not None:
            journal.mark("site", site_target=final.name)
        checkpoint("site:before-swap")
        swap_in(project, final)
        if journal is not None:
            journal.mark("committed")
    except BaseException:
        if journal is not None and not _swapped(project, journal):
            txn.rollback(journal, project.docs)
        raise
    checkpoint("site:committed")
    if publish_dir:
        publish_copy(final, Path(publish_dir), digest=final.name.removeprefix("build-"))
    if journal is not None:
        txn.close(journal)
    return built
