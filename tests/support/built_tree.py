"""One build of the committed tree for the whole test session, and copies of it.

The first test that needs a built tree builds a copy of the repository once, as ``make docs``
does, under the session's shared temporary folder; every pytest-xdist worker waits on the same
lock and uses that build. A fixture that edits a tree copies the built one (its warehouse,
campaign files, raw store, docs/, site and build record come along), edits the copy and builds
it: the build then does what the edit touches and keeps the rest (pipeline/warehouse/keep.py,
pipeline/commands/build_key.py), instead of building every campaign from nothing.

The copies never write into the shared build; tests that change a tree work on a copy.
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path

from filelock import FileLock

from build_runs import run_build
from paths import REPO

# where ``make docs`` puts the warehouse of a tree (pipeline/project.py, INTERCONNECT_DB unset)
DB = (".warehouse", "interconnect.duckdb")

_shared: list[Path] = []


def db_of(root: Path) -> Path:
    """The warehouse file of the tree at ``root``, where the tests' builds put it."""
    return root.joinpath(*DB)


def share_under(base: Path) -> None:
    """Set the folder the session's workers share (conftest.py, from tmp_path_factory)."""
    _shared[:] = [base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base]


def forget_last_build(root: Path) -> None:
    """Delete the record of the last build of the tree at ``root`` (pipeline/commands/build_key.py),
    so its next build runs though nothing changed, keeping what its inputs let it keep (unlike
    ``--force``, which builds every campaign table again)."""
    from types import SimpleNamespace

    from pipeline.commands.build_key import record_path
    record_path(SimpleNamespace(warehouse=db_of(root))).unlink()


def built_once() -> Path:
    """The committed tree, built once for the session (site included)."""
    if not _shared:
        raise RuntimeError("built_tree.share_under was not called (tests/conftest.py does it)")
    shared = _shared[0]
    root, done = shared / "built-once", shared / "built-once.done"
    with FileLock(str(shared / "built-once.lock")):
        if not done.is_file():
            from pipeline.commands.in_process import copy_tree
            shutil.rmtree(root, ignore_errors=True)
            copy_tree(REPO, root)
            code, err = run_build(root)
            if code != 0:
                raise RuntimeError(f"the session's build of the tree failed ({code}):\n"
                                   f"{err[-3000:]}")
            done.write_text("built\n", encoding="utf-8")
    return root


def copy_built(dest: Path) -> Path:
    """A copy of the session's built tree at ``dest`` (which must not exist, or be empty)."""
    if dest.is_dir() and not any(dest.iterdir()):
        dest.rmdir()
    shutil.copytree(built_once(), dest, symlinks=True)
    return dest
