"""``make clean`` removes derived state only and says what it removed."""
from __future__ import annotations

import shutil
import subprocess

import pytest

from paths import REPO


def _clean(root):
    return subprocess.run(["make", "-s", "-f", str(REPO / "Makefile"), "-C", str(root), "clean"],
                          capture_output=True, text=True, timeout=60)


def test_make_clean_names_what_it_removed_and_keeps_the_inputs(tmp_path):
    if shutil.which("make") is None:
        pytest.skip("make not installed")
    (tmp_path / ".warehouse").mkdir()
    (tmp_path / ".warehouse" / "interconnect.duckdb").write_bytes(b"\0" * 300_000)
    (tmp_path / ".site-builds" / "build-1").mkdir(parents=True)
    (tmp_path / "site").symlink_to(".site-builds/build-1")
    for kept in ("raw_data", "docs"):
        (tmp_path / kept).mkdir()
        (tmp_path / kept / "x.md").write_text("kept\n")
    done = _clean(tmp_path)
    assert done.returncode == 0, done.stderr
    removed = [line.split(" (")[0] for line in done.stdout.splitlines()]
    assert removed == ["removed .warehouse", "removed .site-builds", "removed site"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["docs", "raw_data"]
    again = _clean(tmp_path)
    assert again.stdout.startswith("nothing to remove: none of .warehouse")
