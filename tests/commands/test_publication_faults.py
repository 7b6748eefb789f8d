"""Publishing is one transaction (pipeline/publish/journal.py): killed at each publishing moment,
or out of disk on each path, a build leaves docs/ and the site both old or both new once the next
build has settled the journal, says what it published, and the next build exits 0 with docs/
byte-identical to a clean build of the same tree.

The kills (INTERCONNECT_FAULT=<point>, pipeline/util/faults.py) run one after another on one tree,
each build settling what the one before it left: a kill after a page is staged; inside docs/
(one file moved in); after the new site is built and named in the journal, before the ``site``
swap; after the swap, before the copy to the publish directory. The disk fills
(INTERCONNECT_FAULT=enospc@<point>) while docs/ is replaced and before the site is swapped, and
for real on a 1 MiB tmpfs holding the publish directory and a 30 MiB one holding the warehouse
(root may mount one; CI runs as root).
"""
from __future__ import annotations

import json
import os
import signal
import subprocess

import pytest

from pipeline.publish.site import tree_digest

from build_runs import edited_copy, files_of, run_build
from built_tree import copy_built, forget_last_build


@pytest.fixture(scope="module")
def trees(tmp_path_factory):
    """A tree built once with its site, and clean builds of its edited copy to compare with.

    With a publish directory, What changed compares with the ledger published there: the first
    clean build (``docs``, ``site``) has none yet, as the faulted builds have none until one
    finishes its copy; the second (``docs_again``, ``site_again``) compares with the first's."""
    base = tmp_path_factory.mktemp("publication")
    built = copy_built(base / "built")
    reference = edited_copy(built, base / "reference")
    found = {"built": built, "base": base}
    for suffix in ("", "_again"):
        if suffix:      # the same inputs built again, not skipped as unchanged (no --force,
            forget_last_build(reference)    # which would build every campaign's tables again)
        code, err = run_build(reference, INTERCONNECT_PUBLISH_DIR=str(base / "reference-www"))
        assert code == 0, err[-3000:]
        found.update({f"docs{suffix}": files_of(reference / "docs"),
                      f"site{suffix}": tree_digest(reference / "site")})
    return found


def _journals(root):
    staging = root / ".docs-staging"
    return [json.loads(p.read_text()) for p in sorted(staging.glob("*/.publishing"))] \
        if staging.is_dir() else []


def _last(err: str) -> str:
    return err.strip().splitlines()[-1]


def test_a_kill_at_each_publishing_moment_is_settled_by_the_next_build(trees):
    root = edited_copy(trees["built"], trees["base"] / "kills")
    www = trees["base"] / "www" / "html"
    env = {"INTERCONNECT_PUBLISH_DIR": str(www)}
    old_docs, old_site = files_of(root / "docs"), tree_digest(root / "site")

    code, _ = run_build(root, INTERCONNECT_FAULT="page:staged", **env)
    assert code == -signal.SIGKILL
    assert files_of(root / "docs") == old_docs and tree_digest(root / "site") == old_site
    assert _journals(root) == []                      # nothing begun

    code, _ = run_build(root, INTERCONNECT_FAULT="docs:mid-write", **env)
    assert code == -signal.SIGKILL
    half = files_of(root / "docs")
    assert len([n for n in half if half[n] != old_docs.get(n)]) == 1   # one file moved in
    assert [j["phase"] for j in _journals(root)] == ["docs"]

    # the next build rolls that back first, then publishes docs/ anew and dies before the swap
    code, err = run_build(root, INTERCONNECT_FAULT="site:before-swap", **env)
    assert code == -signal.SIGKILL
    assert "rolled back the publication of run" in err
    assert files_of(root / "docs") == trees["docs"] and tree_digest(root / "site") == old_site
    (journal,) = _journals(root)
    assert journal["phase"] == "site" and journal["site_target"] == f"build-{trees['site']}"

    # rolled back again (site/ was never swapped), published, swapped, killed before the copy
    code, err = run_build(root, INTERCONNECT_FAULT="site:committed", **env)
    assert code == -signal.SIGKILL
    assert "rolled back the publication of run" in err
    assert files_of(root / "docs") == trees["docs"] and tree_digest(root / "site") == trees["site"]
    assert [j["phase"] for j in _journals(root)] == ["committed"] and not www.exists()

    # past its commit point: finished (the copy made), not rolled back; then a clean build
    code, err = run_build(root, **env)
    assert code == 0, err[-3000:]
    assert f"which a killed build had committed: docs/ and the site are its own, {www} now too" in err
    assert files_of(root / "docs") == trees["docs_again"]
    assert tree_digest(root / "site") == trees["site_again"] == tree_digest(www)
    assert _journals(root) == [] and not (root / ".docs-staging").exists()


def _build_on_tmpfs(where, size: str, root, **env) -> tuple[int, str]:
    """A build with ``where`` a tmpfs of ``size`` for as long as it runs."""
    where.mkdir(parents=True)
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        why = f"cannot mount a tmpfs to fill: {done.stderr.strip()}"
        if os.environ.get("CI") == "true":
            pytest.fail(why)
        pytest.skip(why)
    try:
        return run_build(root, **env)
    finally:
        subprocess.run(["umount", str(where)], check=True)


def test_a_full_disk_on_each_path_publishes_all_or_nothing_and_says_so(trees):
    root = edited_copy(trees["built"], trees["base"] / "full")
    old_docs, old_site = files_of(root / "docs"), tree_digest(root / "site")

    for point in ("docs:mid-write", "site:before-swap"):
        code, err = run_build(root, INTERCONNECT_FAULT=f"enospc@{point}")
        assert code == 1, err[-3000:]
        assert _last(err).startswith(
            f"build of {root} failed, nothing published (docs/ and site/ are as they were): step ")
        assert f"no space left on device writing <{point}>: free space" in _last(err)
        assert files_of(root / "docs") == old_docs and tree_digest(root / "site") == old_site
        assert not (root / ".docs-staging").exists()

    small = trees["base"] / "small"
    www = small / "html"                 # the site is several MiB: its copy cannot fit in 1 MiB
    code, err = _build_on_tmpfs(small, "1m", root, INTERCONNECT_PUBLISH_DIR=str(www))
    assert code == 1, err[-3000:]
    line = _last(err)
    # docs/ and the site committed; the copy did not: said, with the cause first and short
    assert line.startswith(f"build of {root} failed: docs/ and site/ published; the copy to "
                           f"{www} was not finished: the next build finishes it; the cause: "
                           f"step site: no space left on device writing {small}/")
    assert "more files the same way" in line and len(line) < 1000 and line.count("Errno") == 0
    assert files_of(root / "docs") == trees["docs"] and tree_digest(root / "site") == trees["site"]
    assert [j["phase"] for j in _journals(root)] == ["committed"]

    code, err = run_build(root, INTERCONNECT_PUBLISH_DIR=str(www))     # room again
    assert code == 0, err[-3000:]
    assert "finished the publication of run" in err
    assert files_of(root / "docs") == trees["docs_again"]
    assert tree_digest(www) == tree_digest(root / "site") == trees["site_again"]


def test_a_full_disk_under_the_warehouse_names_it_first_and_publishes_nothing(trees):
    import shutil
    root = trees["base"] / "full-warehouse"
    shutil.copytree(trees["built"], root, symlinks=True)       # a clean build, not edited
    old_docs, old_site = files_of(root / "docs"), tree_digest(root / "site")
    small = trees["base"] / "small-warehouse"
    db = small / "interconnect.duckdb"    # the sample's warehouse outgrows 30 MiB half-way
    code, err = _build_on_tmpfs(small, "30m", root, INTERCONNECT_DB=str(db))
    assert code == 1, err[-3000:]
    line = _last(err)
    # the cause first (not DuckDB's "database has been invalidated"), the file named, short
    assert line.startswith(f"build of {root} failed, nothing published (docs/ and site/ are as "
                           "they were): step ")
    # the file being written when the room ran out: the warehouse, a campaign's own file
    # beside it, or the template's
    written = line.split(": no space left on device writing ", 1)[-1].split(":", 1)[0]
    assert written in (str(db), str(db.with_suffix(".template.duckdb"))) or \
        written.startswith(f"{db.with_suffix('.campaigns')}/"), line
    assert len(line) < 1000, line
    assert files_of(root / "docs") == old_docs and tree_digest(root / "site") == old_site
    code, err = run_build(root, INTERCONNECT_DB=str(db))      # room again: a clean build
    assert code == 0, err[-3000:]
    assert files_of(root / "docs") == old_docs and tree_digest(root / "site") == old_site
