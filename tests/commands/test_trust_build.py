"""Atomic, deterministic, one-writer builds, in child processes (python -m pipeline.commands.build).

The builds are shared: ``old`` is the project as committed (the session's one build of it),
``new`` the same with two templates edited, built from a copy of ``old`` as a user's next build
would be. Every killed build starts from a copy of ``old`` (warehouse and site included) with
the ``new`` edit applied, so whatever it leaves must be ``old`` or ``new``.
"""
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest

from pipeline.commands.in_process import copy_tree

from built_tree import copy_built
from conftest import REPO, cli_env

MARK = "Build-atomicity marker: this sentence exists only in the edited templates."
EDITED = ("ethernet-bandwidth-math.md.j2", "point-to-point.md.j2")


def edit(root: Path) -> None:
    for name in EDITED:
        path = root / "templates" / name
        path.write_text(path.read_text() + f"\n\n{MARK}\n")


env_for = cli_env


def start(root: Path, *args: str, **extra) -> subprocess.Popen:
    # each build here runs in a copy (another folder than the build on record) or after an edit,
    # so it does the work without --force (pipeline/commands/build_key.py); it keeps what the
    # copy's inputs did not change, as a user's build does
    return subprocess.Popen([sys.executable, "-m", "pipeline.commands.build", *args], cwd=REPO,
                            env=env_for(root, **extra), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def run_build(root: Path) -> None:
    proc = start(root)
    out, err = proc.communicate()
    assert proc.returncode == 0, err[-3000:]


def tree(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` (symlinks followed at the top), by relative path."""
    folder = folder.resolve()
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def versions(tmp_path_factory):
    """The old and the new project, each built to completion, plus the old one built again from
    nothing in another folder (determinism). ``old`` is the session's build of the committed
    tree (tests/support/built_tree.py); ``new`` a copy of it with the edit, built; ``again`` the
    committed inputs built with --force, in parallel with ``new``."""
    base = tmp_path_factory.mktemp("versions")
    old, new, again = base / "old", base / "new", base / "again"
    copy_built(old)
    copy_built(new)
    copy_tree(REPO, again)
    edit(new)
    procs = [start(new), start(again, "--force")]
    for proc in procs:
        _, err = proc.communicate()
        assert proc.returncode == 0, err[-3000:]
    return {"old_root": old, "new_root": new, "again_root": again,
            "old_docs": tree(old / "docs"), "new_docs": tree(new / "docs"),
            "old_site": tree(old / "site"), "new_site": tree(new / "site")}


def test_the_edit_changes_several_pages_and_the_site(versions):
    changed = [n for n in versions["new_docs"] if versions["new_docs"][n] != versions["old_docs"].get(n)]
    # the two edited templates -> their two pages (the kill test needs more than one changing file)
    assert sorted(changed) == ["ethernet-bandwidth-math.md", "point-to-point.md"]
    assert versions["new_site"] != versions["old_site"]


def test_two_builds_of_the_same_inputs_are_byte_identical(versions):
    again = versions["again_root"]
    assert tree(again / "docs") == versions["old_docs"]    # pages, CSV downloads and SVG charts
    assert any(n.endswith(".svg") for n in versions["old_docs"])
    assert tree(again / "site") == versions["old_site"]
    assert (again / "site").resolve().name == (versions["old_root"] / "site").resolve().name


def wait_for(proc, condition, timeout_s: float | None = None):
    """Poll ``condition`` until it holds (True) or the build ends (False); with ``timeout_s``,
    also stop then. No deadline by default: a loaded machine makes a build slower, not wrong,
    so how long the event takes to come is never the failure."""
    deadline = None if timeout_s is None else time.monotonic() + timeout_s
    while (deadline is None or time.monotonic() < deadline) and proc.poll() is None:
        if condition():
            return True
        time.sleep(0.02)
    return False


def kill_points(versions):
    """When to SIGKILL a build: a few fixed moments and the two interesting events."""
    def page_written(root):
        new = versions["new_docs"]
        return lambda: any((root / "docs" / n).is_file() and (root / "docs" / n).read_bytes() == new[n]
                           and new[n] != versions["old_docs"].get(n) for n in new)

    def mkdocs_running(root):
        return lambda: any((root / ".site-builds").glob("staging-*"))

    return {"after-3s": None, "first-new-page-written": page_written,
            "mkdocs-running": mkdocs_running}


# (a rerun after each kill would cost a full build each; one is enough to show recovery)
@pytest.mark.parametrize("moment, rerun", [("first-new-page-written", False),
                                           ("mkdocs-running", True)])
def test_killed_build_leaves_old_or_new_never_a_mix(versions, tmp_path, moment, rerun):
    root = tmp_path / "root"
    shutil.copytree(versions["old_root"], root, symlinks=True)
    edit(root)
    proc = start(root)
    try:
        event = kill_points(versions)[moment]
        if event is None:
            wait_for(proc, lambda: False, timeout_s=float(moment[len("after-"):-1]))
        else:
            assert wait_for(proc, event(root)), f"the build ended before {moment}"
        # the kill lands while the build runs (not on a finished one, which would prove nothing)
        assert proc.poll() is None, f"the build had ended by {moment}"
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.communicate()
    assert proc.returncode == -signal.SIGKILL

    old_docs, new_docs = versions["old_docs"], versions["new_docs"]
    docs = tree(root / "docs")
    # every page is whole: byte-equal to its old or its new version; no temp file is left
    assert set(docs) <= set(old_docs) | set(new_docs), sorted(set(docs) - set(old_docs) - set(new_docs))
    for name, data in docs.items():
        assert data in (old_docs.get(name), new_docs.get(name)), f"docs/{name} is neither old nor new"
    # the site is one whole version, swapped with one rename
    site = tree(root / "site")
    assert site in (versions["old_site"], versions["new_site"]), f"site/ is a mix after kill {moment}"

    if not rerun:
        return
    # a rerun completes, giving exactly the new version (as built in its own folder)
    run_build(root)
    assert tree(root / "docs") == new_docs
    assert tree(root / "site") == versions["new_site"]
    assert not list((root / ".site-builds").glob("staging-*"))


# INTERCONNECT_LOCK_TIMEOUT=600 (the default) makes the second wait and then build: correct, but
# it costs two full builds; 1 s shows the lock and its message.
@pytest.mark.parametrize("timeout_s", ["1"])
def test_two_builds_at_once_wait_or_fail_clearly(versions, tmp_path, timeout_s):
    root = tmp_path / "root"
    shutil.copytree(versions["old_root"], root, symlinks=True)
    first, second = start(root, INTERCONNECT_LOCK_TIMEOUT=timeout_s), \
        start(root, INTERCONNECT_LOCK_TIMEOUT=timeout_s)
    results = [(p, *p.communicate()) for p in (first, second)]
    codes = sorted(p.returncode for p, _, _ in results)
    if timeout_s == "600":
        # the second waits for the first, then builds
        assert codes == [0, 0], [err[-2000:] for _, _, err in results]
    else:
        # the second gives up after 1 s, naming the holder's pid and the tree's lock file
        assert codes == [0, 1]
        (winner,) = [p for p, _, _ in results if p.returncode == 0]
        (err,) = [e for p, _, e in results if p.returncode == 1]
        lock = root / ".interconnect-build.lock"
        assert (f"another build (pid {winner.pid}) holds {lock}; gave up after waiting 1 s; "
                f"nothing was written") in err
    con = duckdb.connect(str(root / ".warehouse" / "interconnect.duckdb"), read_only=True)
    assert con.execute("select count(*) from ingest_registry where status = 'ok'").fetchall()[0][0] > 0
    assert tree(root / "docs") == versions["old_docs"]
    assert tree(root / "site") == versions["old_site"]


def test_freshness_names_an_edited_page(versions, tmp_path):
    root = copy_tree(versions["old_root"], tmp_path / "root").root
    page = root / "docs" / "point-to-point.md"
    page.write_text(page.read_text().replace("|", "¦", 1))
    proc = subprocess.run([sys.executable, "-m", "pipeline.commands.check"], cwd=REPO, env=env_for(root),
                          capture_output=True, text=True)
    assert proc.returncode == 1
    # only the edited page is named (the rest of the copy's docs/ is a fresh build's)
    assert proc.stdout.splitlines()[1:] == ["  docs/point-to-point.md: differs from a fresh build"]


def test_two_builds_with_different_warehouses_still_exclude_each_other(versions, tmp_path):
    """The lock is on the tree (docs/, site/, the raw store), not only on the warehouse file."""
    root = tmp_path / "root"
    shutil.copytree(versions["old_root"], root, symlinks=True)
    first = start(root, INTERCONNECT_LOCK_TIMEOUT="1")          # the tree's own warehouse
    time.sleep(0.5)
    second = start(root, INTERCONNECT_LOCK_TIMEOUT="1", INTERCONNECT_DB=str(tmp_path / "b.duckdb"))
    (_, err1), (_, err2) = first.communicate(), second.communicate()
    assert first.returncode == 0, err1[-2000:]
    assert second.returncode == 1
    assert f"another build (pid {first.pid}) holds {root / '.interconnect-build.lock'}" in err2
    assert not (tmp_path / "b.duckdb").exists()          # it wrote nothing
