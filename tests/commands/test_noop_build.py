"""A build with nothing to do does nothing (pipeline/commands/build_key.py), on a copy of the tree.

"Nothing" is checked on what a build would touch, never on time: no file under docs/, the
warehouse, the raw store or the site changes (not even its modification time), and the output
says the build was skipped. Anything the build reads or leaves behind that changes in content
makes the next build do the work again."""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from pipeline.commands.build_key import record_path
from pipeline.project import Project
from pipeline.publish.site import tree_digest

from built_tree import copy_built
from conftest import REPO, cli_env, run_cli_build

SKIPPED = "unchanged: raw_data/, sql/, templates/, the code, docs/ and the site are as the last build left them"


def _state(root: Path) -> dict[str, tuple[int, int]]:
    """(mtime_ns, size) of every file a build writes (not the lock files, which every build
    takes and which name their holder, nor the record itself)."""
    out = {}
    for folder in ("docs", ".warehouse", ".site-builds"):
        for p in sorted((root / folder).rglob("*")):
            if p.is_file() and not p.name.endswith((".last-build.json", ".lock")):
                st = p.stat()
                out[p.relative_to(root).as_posix()] = (st.st_mtime_ns, st.st_size)
    return out


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    root = copy_built(tmp_path_factory.mktemp("noop"))   # the session's build, in another folder
    first = run_cli_build(root)
    assert first.returncode == 0, first.stderr[-3000:]
    assert SKIPPED not in first.stderr
    return root


def _build(root: Path, *args: str):
    proc = run_cli_build(root, *args)
    assert proc.returncode in (0, 3), proc.stderr[-3000:]
    return proc


def test_an_unchanged_tree_is_not_built_again(tree):
    before = _state(tree)
    proc = _build(tree)
    from pipeline.project import CAMPAIGN_AREAS
    shipped = sum(1 for area in CAMPAIGN_AREAS for d in (tree / "raw_data" / area).iterdir() if d.is_dir())
    assert proc.stderr.splitlines() == [
        SKIPPED + "; nothing parsed, queried or written (--force builds anyway)",
        f"done: published {shipped} campaign(s); withheld none; quarantined none"]
    assert _state(tree) == before


def test_touching_files_without_changing_them_is_still_nothing(tree):
    for p in (tree / "raw_data").rglob("*.json"):
        os.utime(p)
    before = _state(tree)
    assert SKIPPED in _build(tree).stderr
    assert _state(tree) == before


def _starts_building(root: Path, *args: str) -> None:
    """The build decides to do the work: it is stopped (SIGKILL) at the point where it would
    start, past the no-op check, and the last build's record is gone."""
    proc = subprocess.run([sys.executable, "-m", "pipeline.commands.build", *args], cwd=REPO,
                          env=cli_env(root, INTERCONNECT_FAULT="build:starting"),
                          capture_output=True, text=True)
    assert proc.returncode == -signal.SIGKILL, proc.stderr[-3000:]
    assert SKIPPED not in proc.stderr
    assert not RECORD(root).exists()


@pytest.mark.parametrize("change", ["raw file", "template", "force"])
def test_a_real_change_starts_a_build(tree, tmp_path, change):
    root = _whole_copy(tree, tmp_path)
    args = []
    if change == "raw file":
        ping = next((root / "raw_data" / "deployments" / "lab-veth-tbf").rglob("ping*/*.txt"))
        ping.write_text(ping.read_text() + "\n")
    elif change == "template":
        t = root / "templates" / "index.md.j2"
        t.write_text(t.read_text() + "\nEdited.\n")
    else:
        args = ["--force"]
    _starts_building(root, *args)


def test_a_deleted_page_is_built_again(tree, tmp_path):
    root = _whole_copy(tree, tmp_path)
    (root / "docs" / "data-quality.md").unlink()
    proc = run_cli_build(root, "--no-site")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert SKIPPED not in proc.stderr and proc.stderr.splitlines()[0].startswith("raw files:")
    assert (root / "docs" / "data-quality.md").is_file()       # put back


def test_a_damaged_site_is_built_again_whole(tree, tmp_path):
    # what a kill inside the deletion of a build folder, or a hand edit, leaves: the link still
    # points at build-<digest>, whose files are no longer that digest; the record covers the
    # site's contents, and the folder is replaced, not reused by its name
    root = _whole_copy(tree, tmp_path)
    site = root / "site"
    original = (site / "index.html").read_bytes()
    (site / "sitemap.xml").unlink()
    (site / "index.html").write_text("edited by hand")
    proc = run_cli_build(root)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert SKIPPED not in proc.stderr
    assert (site / "sitemap.xml").is_file() and (site / "index.html").read_bytes() == original
    # docs/ as it was: every page's conversion comes from the page cache the copy brought along
    pages = [p for p in (root / "docs").rglob("*.md") if "includes" not in p.parts]
    assert f"site/: swapped in ({site.resolve().name}); pages: 0 converted, {len(pages)} kept " \
           "(page cache)" in proc.stderr, proc.stderr[-2000:]
    # and the scaling bench reads the same lines (bench/scaling.py)
    from bench.scaling import what_ran
    assert what_ran(proc.stderr).endswith(f"; site pages 0 converted, {len(pages)} kept")
    assert site.resolve().name == f"build-{tree_digest(site)}"
    assert not list((root / ".site-builds").glob(".trash-*"))
    again = run_cli_build(root)
    assert SKIPPED in again.stderr                           # and now it is as it was left


def _whole_copy(tree: Path, tmp_path: Path) -> Path:
    """The built tree with its warehouse, raw store, site and the last build's record."""
    root = tmp_path / "t"
    shutil.copytree(tree, root, symlinks=True)
    assert RECORD(root).is_file()
    return root


def RECORD(root: Path) -> Path:
    return root / ".warehouse" / "interconnect.duckdb.last-build.json"


def test_the_same_tree_in_another_folder_is_built(tree, tmp_path):
    _starts_building(_whole_copy(tree, tmp_path))


def test_a_failed_build_leaves_no_record(tree, tmp_path):
    root = _whole_copy(tree, tmp_path)
    bad = root / "templates" / "point-to-point.md.j2"
    bad.write_text(bad.read_text() + "{{ row('fct_p2p_campaigns').nope }}\n")
    proc = run_cli_build(root, "--no-site")
    assert proc.returncode == 1
    assert not RECORD(root).exists()
    # so the next build does the work, though the inputs are those of the last good build
    bad.write_text(bad.read_text().replace("{{ row('fct_p2p_campaigns').nope }}\n", ""))
    _starts_building(root, "--no-site")


def test_the_record_sits_beside_the_warehouse(monkeypatch, tmp_path):
    monkeypatch.setenv("INTERCONNECT_DB", str(tmp_path / "w" / "x.duckdb"))
    assert record_path(Project(tmp_path)) == tmp_path / "w" / "x.duckdb.last-build.json"


def test_the_code_digest_covers_every_layer_of_the_pipeline():
    # the no-op record's code digest reads every module under pipeline/, not one package's
    from pipeline.commands import build_key

    from paths import REPO
    assert build_key.CODE == REPO / "pipeline"
    hashed = {p.relative_to(build_key.CODE).parts[0] for p in build_key.CODE.rglob("*.py")}
    assert {"ingest", "warehouse", "publish", "orchestration", "commands", "util"} <= hashed
