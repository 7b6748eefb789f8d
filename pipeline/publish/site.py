"""The published site: ``mkdocs build --strict`` into a fresh folder, swapped in atomically.

``site`` is a symbolic link to ``.site-builds/<build>``; a new build is made beside
the old one and the link is replaced with one ``rename``, so a reader (or a build
killed half-way) sees the complete old site or the complete new one. An optional
``INTERCONNECT_PUBLISH_DIR`` receives the same swap.
"""
from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

from pipeline.project import Project
from pipeline.publish.site_address import mkdocs_env


class SiteBuildError(RuntimeError):
    pass


class SiteBuild(NamedTuple):
    """A site build's folder, and how many pages its ``mkdocs build`` took from the page cache
    and converted (pipeline/publish/page_cache.py; None when the cache was off)."""
    path: Path
    pages_kept: int | None = None
    pages_converted: int | None = None


# the page cache's line in mkdocs' log: page_cache.py writes it with this format, under its
# logger's "page-cache: " prefix, and build_site reads it back with the pattern made from it
CACHE_COUNTS = "{kept} page(s) kept, {made} converted"
_CACHE_LINE = re.compile("page-cache: " + re.escape(CACHE_COUNTS)
                         .replace(re.escape("{kept}"), r"(\d+)").replace(re.escape("{made}"), r"(\d+)"))


def tree_digest(folder: Path) -> str:
    """The first 16 hex digits of the sha256 of every file's path and bytes under ``folder``: a
    build folder's name, and what the no-op record keeps of the published site."""
    h = hashlib.sha256()
    for p in sorted(folder.rglob("*")):
        if p.is_file():
            h.update(p.relative_to(folder).as_posix().encode())
            h.update(hashlib.sha256(p.read_bytes()).digest())
    return h.hexdigest()[:16]


def swap_link(link: Path, target: Path) -> None:
    """Point ``link`` at ``target`` with one atomic rename."""
    if link.exists() and not link.is_symlink():
        # A real folder from an older layout: move it aside once.
        shutil.rmtree(link)
    tmp = link.with_name(f".{link.name}.swap")
    tmp.unlink(missing_ok=True)
    os.symlink(os.path.relpath(target, link.parent), tmp)
    os.replace(tmp, link)


def retire(folder: Path) -> None:
    """Delete a build folder, renamed out of the build names first (one rename): a kill inside
    the deletion leaves a ``.trash-`` folder, which no build reuses and the next one sweeps."""
    trash = folder.with_name(f".trash-{folder.name}-{os.getpid()}")
    shutil.rmtree(trash, ignore_errors=True)
    os.replace(folder, trash)
    shutil.rmtree(trash, ignore_errors=True)


def sweep(folder: Path, pattern: str) -> None:
    """Leftovers of a killed build (we hold the lock: nothing else writes here)."""
    for stale in sorted(folder.glob(pattern)):
        shutil.rmtree(stale, ignore_errors=True)


def place(builds: Path, staging: Path, digest: str | None = None) -> Path:
    """``staging`` under the name of what it holds, ``build-<digest>``. A folder of that name is
    reused only when it holds exactly that: a kill inside a deletion, or a hand edit, leaves a
    folder whose name no longer says what is in it, and it is replaced."""
    digest = digest or tree_digest(staging)
    final = builds / f"build-{digest}"
    if final.is_dir() and not final.is_symlink() and tree_digest(final) == digest:
        shutil.rmtree(staging)
        return final
    if final.exists() or final.is_symlink():
        retire(final)
    os.replace(staging, final)
    return final


def build_site(project: Project) -> SiteBuild:
    """``mkdocs build --strict`` of docs/ into ``.site-builds/build-<digest>``, not yet swapped in."""
    # The caller holds the build lock (pipeline/util/lock.py): a site built alone from the UI
    # must not race a full build over `.site.swap` and the cleanup of the previous build.
    builds = project.root / ".site-builds"
    builds.mkdir(exist_ok=True)
    # A build killed inside mkdocs leaves its staging folder; under the lock nothing else is
    # writing here, so any staging folder is such a leftover.
    sweep(builds, "staging-*")
    sweep(builds, ".trash-*")
    staging = builds / f"staging-{os.getpid()}"
    shutil.rmtree(staging, ignore_errors=True)
    cmd = [sys.executable, "-m", "mkdocs", "build", "--strict",
           "-f", str(project.mkdocs_yml), "-d", str(staging)]
    env = mkdocs_env(project)
    try:
        proc = subprocess.run(cmd, cwd=project.root, capture_output=True, text=True, env=env)
        if proc.returncode != 0:
            # what failed first (mkdocs' warnings and errors), then its whole output
            said = [ln for ln in proc.stderr.splitlines() if ln.startswith(("WARNING", "ERROR"))]
            raise SiteBuildError("mkdocs build --strict failed: " + " | ".join(said)
                                 + f"\n{proc.stdout}\n{proc.stderr}")
        counts = _CACHE_LINE.findall(proc.stderr)
        kept, made = map(int, counts[-1]) if counts else (None, None)
        return SiteBuild(place(builds, staging), kept, made)
    except BaseException:        # a failure, SIGINT/SIGTERM (KeyboardInterrupt), ENOSPC
        shutil.rmtree(staging, ignore_errors=True)
        raise


def swap_in(project: Project, final: Path) -> None:
    """Point ``site`` at ``final``; every other build folder is then retired (a folder a killed
    build placed and never swapped in included)."""
    swap_link(project.site, final)
    for other in sorted(final.parent.glob("build-*")):
        if other.resolve() != final.resolve() and other.is_dir() and not other.is_symlink():
            retire(other)


def publish(build: Path, publish_dir: Path, digest: str | None = None) -> None:
    """Copy the build beside the publish link and swap it in (``digest``: the build's, when the
    caller has just placed it under that name)."""
    publish_dir = publish_dir.resolve() if not publish_dir.is_symlink() else publish_dir
    versions = publish_dir.parent / f".{publish_dir.name}-versions"
    versions.mkdir(parents=True, exist_ok=True)
    sweep(versions, ".copy-*")                 # left by a killed publish; we hold the lock
    sweep(versions, ".trash-*")
    digest = digest or tree_digest(build)
    dest = versions / f"build-{digest}"
    if not (dest.is_dir() and tree_digest(dest) == digest):
        tmp = versions / f".copy-{os.getpid()}"
        try:
            shutil.copytree(build, tmp)
            dest = place(versions, tmp, digest)
        except BaseException:    # ENOSPC half-way, or interrupted: no partial copy stays
            shutil.rmtree(tmp, ignore_errors=True)
            raise
    previous = publish_dir.resolve() if publish_dir.is_symlink() else None
    swap_link(publish_dir, dest)
    if previous and previous != dest.resolve() and previous.parent == versions.resolve() \
            and previous.exists():
        retire(previous)
