"""A build with nothing to do does nothing: the key of what a build read and left behind.

The key is the content digest of everything a build reads (``raw_data/``, ``sql/``,
``templates/``, ``mkdocs.yml``, the pipeline's own code and the versions of the libraries that
shape the output), the settings that steer it (the warehouse and publish paths, ``--no-site``,
the ledger committed at git HEAD that What changed compares with) and of everything it leaves
behind (``docs/``, the site it swapped in, whether the warehouse and raw store exist). A
successful build records the key beside the warehouse; the next ``make docs`` whose key is the
same parses, queries and writes nothing and says so. The record is removed when a build starts,
so a build that fails or is killed leaves none, and the next one does the work. ``--force``
builds regardless.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib import metadata
from pathlib import Path

from pipeline.ingest.digest import folder_digest
from pipeline.ingest.scan import campaign_folders
from pipeline.project import REPO_ROOT, Project
from pipeline.publish.figures.baseline import LEDGER
from pipeline.publish.site import tree_digest
from pipeline.util.atomic import atomic_write
from pipeline.util.hashing import package_digest, sha256_of, sha256_of_parts

# every module of the pipeline package, whichever layer it is in
CODE = REPO_ROOT / "pipeline"
LIBRARIES = ("dagster", "duckdb", "jinja2", "mkdocs", "mkdocs-material", "markdown", "jc", "gguf")
SETTINGS = ("INTERCONNECT_DB", "INTERCONNECT_PUBLISH_DIR", "INTERCONNECT_TIMEZONE",
            "SITE_URL")  # SITE_URL: mkdocs.yml site_url (the sitemap and canonical links)


def record_path(project: Project) -> Path:
    return project.warehouse.with_name(project.warehouse.name + ".last-build.json")


def _versions() -> dict[str, str]:
    out = {}
    for name in LIBRARIES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = ""
    return out


def _head_ledger(project: Project) -> str:
    rel = f"docs/{LEDGER}"
    try:
        proc = subprocess.run(["git", "rev-parse", "--verify", "--quiet", f"HEAD:{rel}"],
                              cwd=project.root, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return proc.stdout.strip() if proc.returncode == 0 else ""


def _file(path: Path) -> str:
    return sha256_of(path) if path.is_file() else ""


def _campaign_templates(project: Project) -> str | None:
    """The digest of the templates a campaign's page is rendered from: each per-campaign
    template with those it includes or imports, and the withheld campaign's notice; None when
    a template cannot be read (then every campaign is built: campaigns_to_build). An edit
    elsewhere in templates/ (a shared page's) changes no campaign's page."""
    from pipeline.publish import page_keep
    from pipeline.publish.pages import discover_pages
    try:
        names = sorted(p.template.name for p in discover_pages(project.templates) if p.per_campaign)
        if (project.templates / page_keep.WITHHELD_NOTICE).is_file():
            names.append(page_keep.WITHHELD_NOTICE)
        return sha256_of_parts(*(f"{name}\0{page_keep.templates_digest(project.templates, name)}"
                                 for name in names))
    except Exception:  # noqa: BLE001 - a template the build will refuse: nothing to compare
        return None


def inputs_key(project: Project, args: list[str]) -> dict:
    folders = campaign_folders(project.raw_data) if project.raw_data.is_dir() else []
    return {"root": str(project.root), "raw_data": folder_digest(project.raw_data),
            # raw_data/ outside the campaign folders, and each campaign folder (campaigns_to_build)
            "raw_data_rest": folder_digest(project.raw_data,
                                           frozenset(f"{area}/{name}" for area, name, _ in folders)),
            "campaigns": {name: folder_digest(folder) for _, name, folder in folders},
            "sql": folder_digest(project.sql),
            "templates": folder_digest(project.templates),
            "campaign_templates": _campaign_templates(project), "mkdocs": _file(project.mkdocs_yml),
            "publish_config": _file(project.publish_config),
            "code": package_digest(CODE), "python": sys.version, "libraries": _versions(),
            "settings": {k: os.environ.get(k, "") for k in SETTINGS},
            "args": sorted(a for a in args if a != "--force"), "head_ledger": _head_ledger(project)}


def outputs_key(project: Project) -> dict:
    publish = os.environ.get("INTERCONNECT_PUBLISH_DIR", "")
    return {"docs": folder_digest(project.docs),
            "site": os.readlink(project.site) if project.site.is_symlink() else "",
            "site_exists": project.site.is_dir(),
            # what the site holds, not only where the link points: a half-deleted or edited
            # build folder is not "as the last build left it"
            "site_contents": tree_digest(project.site) if project.site.is_dir() else "",
            "publish": (os.readlink(publish) if publish and Path(publish).is_symlink() else ""),
            "warehouse": project.warehouse.is_file(), "raw_store": project.raw_store.is_dir()}


def unchanged(project: Project, inputs: dict) -> dict | None:
    """The last build's record when nothing it read (``inputs``, from ``inputs_key``) or left
    behind has changed since."""
    record = _record(project)       # derived state: a record that is not one is none
    if record is None or record.get("inputs") != inputs:
        return None
    if record.get("outputs") != outputs_key(project):
        return None
    return record


def campaigns_to_build(project: Project, inputs: dict) -> list[str] | None:
    """The campaigns whose folder was added or changed since the last successful build, when
    nothing else that build read or left behind changed (none when a campaign was only
    removed); None, meaning every campaign, when anything else changed or no build is on
    record (call before ``forget``). A tree moved or copied with its warehouse is not a change
    of its campaigns: their files name what they read from the warehouse's folder
    (pipeline/warehouse/campaign_files.py). Nor is an edit of templates/ that leaves every
    campaign page's templates as they were: no campaign step reads a template, and the shared
    pages are rendered by every build."""
    record = _record(project)
    if record is None or record.get("outputs") != outputs_key(project):
        return None
    before = record.get("inputs")
    if not isinstance(before, dict):
        return None
    rest = ("raw_data", "campaigns", "root", "templates")
    if {k: v for k, v in before.items() if k not in rest} != \
            {k: v for k, v in inputs.items() if k not in rest}:
        return None
    if inputs.get("campaign_templates") is None:
        return None
    old = before.get("campaigns") if isinstance(before.get("campaigns"), dict) else {}
    return sorted(c for c, d in inputs["campaigns"].items() if old.get(c) != d)


def _record(project: Project) -> dict | None:
    try:
        record = json.loads(record_path(project).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return record if isinstance(record, dict) else None


def forget(project: Project) -> None:
    record_path(project).unlink(missing_ok=True)


def remember(project: Project, inputs: dict, exit_code: int, summary: str) -> None:
    path = record_path(project)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = json.dumps({"inputs": inputs, "outputs": outputs_key(project), "exit_code": exit_code,
                       "summary": summary}, indent=1, sort_keys=True).encode()
    atomic_write(path, lambda fh: fh.write(data))
