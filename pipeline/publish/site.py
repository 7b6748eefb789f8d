"""The published site: ``mkdocs build --strict`` into a fresh folder, swapped in atomically.

``site`` is a symbolic link to ``.site-builds/<build>``; a new build is made beside
the old one and the link is replaced with one ``rename``, so a reader (or a build
killed half-way) sees the complete old site or the complete new one. An optional
``INTERCONNECT_PUBLISH_DIR`` receives the same swap.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

from pipeline.project import Project


class SiteBuildError(RuntimeError):
    pass


def _tree_digest(folder: Path) -> str:
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


def build_site(project: Project, publish_dir: str | None = None) -> Path:
    # The caller holds the build lock (pipeline/util/lock.py): a site built alone from the UI
    # must not race a full build over `.site.swap` and the cleanup of the previous build.
    builds = project.root / ".site-builds"
    builds.mkdir(exist_ok=True)
    # A build killed inside mkdocs leaves its staging folder; under the lock nothing else is
    # writing here, so any staging folder is such a leftover.
    for stale in sorted(builds.glob("staging-*")):
        shutil.rmtree(stale, ignore_errors=True)
    staging = builds / f"staging-{os.getpid()}"
    shutil.rmtree(staging, ignore_errors=True)
    cmd = [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet",
           "-f", str(project.mkdocs_yml), "-d", str(staging)]
    try:
        proc = subprocess.run(cmd, cwd=project.root, capture_output=True, text=True)
        if proc.returncode != 0:
            raise SiteBuildError(f"mkdocs build --strict failed:\n{proc.stdout}\n{proc.stderr}")
        final = builds / f"build-{_tree_digest(staging)}"
        if final.exists():
            shutil.rmtree(staging)
        else:
            os.replace(staging, final)
    except BaseException:        # a failure, SIGINT/SIGTERM (KeyboardInterrupt), ENOSPC
        shutil.rmtree(staging, ignore_errors=True)
        raise
    previous = project.site.resolve() if project.site.is_symlink() else None
    swap_link(project.site, final)
    if previous and previous != final.resolve() and previous.parent == builds.resolve():
        shutil.rmtree(previous, ignore_errors=True)
    if publish_dir:
        publish(final, Path(publish_dir))
    return final


def publish(build: Path, publish_dir: Path) -> None:
    """Copy the build beside the publish link and swap it in."""
    publish_dir = publish_dir.resolve() if not publish_dir.is_symlink() else publish_dir
    versions = publish_dir.parent / f".{publish_dir.name}-versions"
    versions.mkdir(parents=True, exist_ok=True)
    dest = versions / build.name
    for stale in versions.glob(".copy-*"):      # left by a killed publish; we hold the lock
        shutil.rmtree(stale, ignore_errors=True)
    if not dest.exists():
        tmp = versions / f".copy-{os.getpid()}"
        try:
            shutil.copytree(build, tmp)
            os.replace(tmp, dest)
        except BaseException:    # ENOSPC half-way, or interrupted: no partial copy stays
            shutil.rmtree(tmp, ignore_errors=True)
            raise
    previous = publish_dir.resolve() if publish_dir.is_symlink() else None
    swap_link(publish_dir, dest)
    if previous and previous != dest.resolve() and previous.parent == versions.resolve():
        shutil.rmtree(previous, ignore_errors=True)
