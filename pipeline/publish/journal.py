"""The publication journal: ``docs/`` and the site change together, or not at all.

A run's pages are staged in ``.docs-staging/<run>/``. Publishing them is one transaction whose
journal, ``.docs-staging/<run>/.publishing``, is written before ``docs/`` is touched:

1. ``docs``: the plan (files added, replaced, removed) is written, then each file is changed.
   The old version of every replaced or removed file is kept in ``<run>/.old/`` first (a hard
   link: no bytes copied, so a full disk does not stop the backup), so the change can be undone.
2. ``site``: ``docs/`` is whole and new; the site was built from it into ``.site-builds/<build>``
   and the journal names that build before the ``site`` link is swapped onto it.
3. ``committed``: the ``site`` link points at the new build (or the run builds no site): the
   publication holds. What is left is the copy to ``INTERCONNECT_PUBLISH_DIR``, if set.

A failure or a signal before the commit rolls ``docs/`` back (:func:`rollback`); a kill leaves
the journal, and the next build, before anything else, rolls it back, or finishes it when the
journal is past its commit point (:func:`pipeline.publish.docs_swap.recover`). So a reader sees
``docs/`` and the site both old or both new. Rolling back is idempotent: a kill inside it is
rolled back again by the next build.
"""
from __future__ import annotations

import errno
import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from pipeline.util.atomic import atomic_write
from pipeline.util.faults import checkpoint

NAME = ".publishing"
BACKUP = ".old"
PHASES = ("docs", "site", "committed")


@dataclass
class Journal:
    folder: Path            # the run's staging folder
    data: dict

    @property
    def path(self) -> Path:
        return self.folder / NAME

    @property
    def phase(self) -> str:
        return self.data["phase"]

    @property
    def backup(self) -> Path:
        return self.folder / BACKUP

    def mark(self, phase: str, **fields) -> None:
        assert phase in PHASES, phase
        self.data.update(phase=phase, **fields)
        self.save()

    def save(self) -> None:
        text = json.dumps(self.data, indent=1, sort_keys=True).encode()
        atomic_write(self.path, lambda fh: fh.write(text))

    @classmethod
    def read(cls, folder: Path) -> "Journal | None":
        path = folder / NAME
        if not path.is_file():
            return None
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError):
            data = None
        if not isinstance(data, dict) or data.get("phase") not in PHASES:
            # a journal is written whole (temp + rename); one that is not ours, or from a layout
            # before the journal had phases (a list of slugs), is treated as not committed
            data = {"phase": "docs", "added": [], "replaced": [], "removed": []}
        return cls(folder, data)


def begin(folder: Path, added: list[str], replaced: list[str], removed: list[str],
          slugs: list[str], with_site: bool) -> Journal:
    journal = Journal(folder, {"phase": "docs", "added": added, "replaced": replaced,
                               "removed": removed, "campaign_slugs": slugs,
                               "with_site": with_site})
    journal.save()
    return journal


def _move(src: Path, dest: Path) -> None:
    """``src`` to ``dest`` by rename; a copy then a delete across filesystems."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.replace(src, dest)
    except OSError as exc:
        if exc.errno != errno.EXDEV:
            raise
        data = src.read_bytes()
        atomic_write(dest, lambda fh: fh.write(data))
        src.unlink()


def _keep(path: Path, kept: Path) -> None:
    """The old version of ``path`` into the backup, once (a second call keeps the first)."""
    if kept.exists() or not path.is_file():
        return
    kept.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.link(path, kept)
    except OSError:          # another filesystem, or links not allowed: a copy
        shutil.copy2(path, kept)


def prune_empty(folder: Path, stop: Path) -> None:
    while folder != stop and folder.is_dir() and not any(folder.iterdir()):
        folder.rmdir()
        folder = folder.parent


def apply(journal: Journal, docs: Path) -> dict:
    """Carry out the plan: each file in place by rename, its old version kept first."""
    staged, done = journal.folder, 0
    for rel in [*journal.data["replaced"], *journal.data["added"]]:
        _keep(docs / rel, journal.backup / rel)
        _move(staged / rel, docs / rel)
        done += 1
        if done == 1:
            checkpoint("docs:mid-write")        # one file replaced, the others not yet
    for rel in journal.data["removed"]:
        if (docs / rel).is_file():
            _move(docs / rel, journal.backup / rel)
        prune_empty((docs / rel).parent, docs)
    return {"written": done, "removed": len(journal.data["removed"])}


def rollback(journal: Journal, docs: Path) -> None:
    """Every file of the plan back to its old version; files the plan added are removed."""
    kept = journal.backup
    for rel in [*journal.data["replaced"], *journal.data["removed"], *journal.data["added"]]:
        if (kept / rel).is_file():
            _move(kept / rel, docs / rel)
        elif rel in journal.data["added"]:
            (docs / rel).unlink(missing_ok=True)
            prune_empty((docs / rel).parent, docs)
    close(journal)


def close(journal: Journal) -> None:
    """The transaction is over (committed and finished, or rolled back): its folder goes."""
    shutil.rmtree(journal.folder, ignore_errors=True)
    prune_empty(journal.folder.parent, journal.folder.parent.parent)


def open_journals(root: Path) -> list[Journal]:
    if not root.is_dir():
        return []
    return [j for j in (Journal.read(d) for d in sorted(root.iterdir()) if d.is_dir()) if j]
