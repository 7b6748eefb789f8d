"""docs/ is replaced only when every page of the build rendered.

Page assets render into ``.docs-staging/<run>/`` (the page, its CSV downloads and its charts:
one *group* per page, ``<slug>.md`` plus everything under ``<slug>/``). The publish step runs
after all of them, so a failure in any page leaves all of docs/ as it was. It then writes each
changed file of each staged group atomically (temp + rename), removes the files a group no
longer produces, and removes the groups of campaigns that are gone. Hand-written files
(``stylesheets/``, ``includes/``, ``javascripts/``) are never touched.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

from pipeline.project import CAMPAIGN_AREAS
from pipeline.util.atomic import write_if_changed


def staging_dir(project, run_id: str) -> Path:
    return project.docs_staging / run_id


def _groups(staged: Path) -> list[str]:
    return sorted(p.relative_to(staged).as_posix()[: -len(".md")] for p in staged.rglob("*.md"))


def _group_files(root: Path, slug: str) -> dict[str, Path]:
    files = {}
    page = root / f"{slug}.md"
    if page.is_file():
        files[f"{slug}.md"] = page
    folder = root / slug
    if folder.is_dir():
        for p in folder.rglob("*"):
            if p.is_file() and not (p.suffix == ".md" and p.parent != folder):
                files[p.relative_to(root).as_posix()] = p
    return files


def _prune_empty(folder: Path, stop: Path) -> None:
    while folder != stop and folder.is_dir() and not any(folder.iterdir()):
        folder.rmdir()
        folder = folder.parent


MARKER = ".publishing"


def publish(docs: Path, staged: Path, campaign_slugs: set[str]) -> dict:
    """Move the staged groups into ``docs``; ``campaign_slugs`` are the per-campaign pages
    that exist now (others under deployments/ and p2p/ are removed).

    A marker written first makes the publication resumable: a build killed half-way leaves the
    staged folder with its marker, and the next build finishes that publication before it does
    anything else (recover()), so docs/ is never left half old, half new."""
    marker = staged / MARKER
    if not marker.exists():
        marker.write_text(json.dumps(sorted(campaign_slugs)))
    written = removed = 0
    for slug in _groups(staged):
        new = _group_files(staged, slug)
        old = _group_files(docs, slug)
        for rel, path in sorted(new.items()):
            # temp files in the staging folder: a kill mid-write leaves none inside docs/; the
            # fault point is inside the second page written, one page already replaced
            written += write_if_changed(docs / rel, path.read_bytes(), tmp_dir=staged,
                                        fault="docs:mid-write" if written == 1 else None)
        for rel in sorted(set(old) - set(new)):
            (docs / rel).unlink()
            removed += 1
            _prune_empty((docs / rel).parent, docs)
    for area in CAMPAIGN_AREAS:
        for page in sorted((docs / area).glob("*.md")) if (docs / area).is_dir() else []:
            slug = page.relative_to(docs).as_posix()[: -len(".md")]
            if slug not in campaign_slugs:
                page.unlink()
                shutil.rmtree(docs / slug, ignore_errors=True)
                removed += 1
    shutil.rmtree(staged, ignore_errors=True)
    _prune_empty(staged.parent, staged.parent.parent)     # no empty .docs-staging/ left behind
    return {"written": written, "removed": removed}


def recover(project) -> list[str]:
    """Finish every publication a killed build left half done; returns their folders."""
    done = []
    root = project.docs_staging
    for staged in sorted(root.glob(f"*/{MARKER}")) if root.is_dir() else []:
        slugs = set(json.loads(staged.read_text()))
        publish(project.docs, staged.parent, slugs)
        done.append(staged.parent.name)
    return done


def clean_staging(project, keep: str | None = None) -> None:
    """Staging folders of earlier (killed) builds; under the build lock nothing else writes."""
    root = project.docs_staging
    if root.is_dir():
        for old in root.iterdir():
            if old.name != keep:
                shutil.rmtree(old, ignore_errors=True)
        _prune_empty(root, root.parent)
