"""The previous published build a build is compared with.

- ``head`` (``make docs`` in a git checkout): the ledger committed at ``HEAD``, so a checkout
  compares with what was last committed and building twice gives the same bytes;
- ``published`` (the nightly build): the ledger of the site in ``INTERCONNECT_PUBLISH_DIR``
  when it is set, else the one in ``docs/`` (the build before this one);
- ``auto`` (the default): ``head`` inside a git work tree, ``published`` elsewhere;
- ``none``: no baseline.

A baseline is the three files of its What changed page: the ledger, the comparison it made
and the changes it listed (``what-changed/data/``).
"""
from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

LEDGER = "what-changed/data/figures.csv"
COMPARISON = "what-changed/data/comparison.csv"
CHANGES = "what-changed/data/figure_changes.csv"
FILES = (LEDGER, COMPARISON, CHANGES)
MODES = ("auto", "head", "published", "none")


class BaselineError(ValueError):
    pass


@dataclass(frozen=True)
class Baseline:
    source: str                     # in words, for the page
    files: dict[str, bytes | None] = field(default_factory=dict)

    @property
    def ledger(self) -> bytes | None:
        return self.files.get(LEDGER)


NONE = Baseline("no earlier build")


def _git(args: list[str], cwd: Path) -> subprocess.CompletedProcess | None:
    try:
        return subprocess.run(["git", *args], cwd=cwd, capture_output=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None


def git_top(root: Path) -> Path | None:
    """The work tree ``root`` is in, or None (no git, or not a checkout)."""
    proc = _git(["rev-parse", "--show-toplevel"], root)
    if proc is None or proc.returncode != 0:
        return None
    return Path(proc.stdout.decode().strip()).resolve()


def from_head(docs: Path, top: Path) -> Baseline:
    head = _git(["rev-parse", "--verify", "--quiet", "HEAD"], top)
    if head is None or head.returncode != 0:
        return NONE                                  # a repository without a commit yet
    files = {}
    for rel in FILES:
        inside = (docs.resolve() / rel).relative_to(top).as_posix()
        proc = _git(["show", f"HEAD:{inside}"], top)
        files[rel] = proc.stdout if proc is not None and proc.returncode == 0 else None
    if files[LEDGER] is None:
        return NONE
    return Baseline("the build committed in git at HEAD", files)


def from_folder(folder: Path, source: str) -> Baseline:
    files = {rel: (folder / rel).read_bytes() if (folder / rel).is_file() else None
             for rel in FILES}
    return Baseline(source, files) if files[LEDGER] is not None else NONE


def load(docs: Path, root: Path, mode: str = "auto", publish_dir: str | None = None) -> Baseline:
    if mode not in MODES:
        raise BaselineError(f"baseline {mode!r} is not one of {', '.join(MODES)}")
    if mode == "none":
        return NONE
    top = git_top(root) if mode in ("auto", "head") else None
    if mode == "head" and top is None:
        raise BaselineError(f"baseline 'head' needs a git checkout; {root} is not in one")
    if top is not None:
        return from_head(docs, top)
    publish_dir = publish_dir if publish_dir is not None else os.environ.get("INTERCONNECT_PUBLISH_DIR")
    if publish_dir:
        return from_folder(Path(publish_dir), "the build in the publish directory")
    return from_folder(docs, "the previous build in docs/")
