"""Running ``python -m pipeline.commands.build`` on a copy of the tree, as the fault tests do."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from paths import REPO

CLEARED = ("INTERCONNECT_DB", "INTERCONNECT_PUBLISH_DIR", "DAGSTER_HOME", "INTERCONNECT_FAULT")


def build_env(root: Path, **extra) -> dict:
    """The environment of ``python -m pipeline.commands.build`` on the tree at ``root``: none of
    this session's warehouse, publish folder, Dagster home or fault point leaks in."""
    env = {k: v for k, v in os.environ.items() if k not in CLEARED}
    env.update(INTERCONNECT_ROOT=str(root), **extra)
    return env


def start_build(root: Path, *args, **extra) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "pipeline.commands.build", *args], cwd=REPO,
                            env=build_env(root, **extra), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def run_build(root: Path, *args, **extra) -> tuple[int, str]:
    proc = start_build(root, *args, **extra)
    _, err = proc.communicate()
    return proc.returncode, err


def files_of(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` (through a link), by path."""
    folder = folder.resolve()
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file()}


EDITED = ("ethernet-bandwidth-math.md.j2", "point-to-point.md.j2", "index.md.j2")


def edited_copy(src: Path, dest: Path) -> Path:
    """A copy of a built tree with three shared templates edited: the next build publishes."""
    shutil.copytree(src, dest, symlinks=True)
    for name in EDITED:
        path = dest / "templates" / name
        path.write_text(path.read_text() + "\n\nEdited for the fault test.\n")
    return dest
