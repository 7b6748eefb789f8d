"""Copies of a shipped campaign under a new name, as a user would make one: with some of its
files (and their manifest entries) left out, so the copy is incomplete rather than broken."""
from __future__ import annotations

import shutil
from pathlib import Path

import yaml


def copy_campaign(root: Path, src: str, name: str, leave_out: tuple[str, ...] = ()) -> Path:
    """Copy ``root/src`` to a sibling ``name``; files whose path starts with one of
    ``leave_out`` are deleted and dropped from the manifest."""
    dest = root / Path(src).parent / name
    shutil.copytree(root / src, dest)
    manifest = yaml.safe_load((dest / "manifest.yaml").read_text())
    manifest["campaign"] = name
    kept = []
    for entry in manifest["files"]:
        if entry["path"].startswith(leave_out):
            (dest / entry["path"]).unlink()
        else:
            kept.append(entry)
    manifest["files"] = kept
    (dest / "manifest.yaml").write_text(yaml.safe_dump(manifest, sort_keys=False))
    return dest
