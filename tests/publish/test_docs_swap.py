"""Publishing docs/ from a staging folder (pipeline/publish/docs_swap.py) is a transaction with a
journal (pipeline/publish/journal.py): a failure or a kill at any file leaves docs/ wholly old
after the rollback, a committed publication is finished, and no staging folder stays behind
(not even an empty ``.docs-staging/``, which once stayed after every build)."""
from __future__ import annotations

import errno
import os

import pytest

from pipeline.publish import journal as txn
from pipeline.publish.docs_swap import abandon, publish, recover


class _Project:
    def __init__(self, root):
        self.root, self.docs, self.docs_staging = root, root / "docs", root / ".docs-staging"
        self.site = root / "site"


OLD = {"index.md": "old home\n", "index/data/a.csv": "a,1\n", "p2p/gone.md": "gone\n",
       "p2p/gone/data/t.csv": "t\n", "p2p/kept.md": "kept\n", "stylesheets/extra.css": "css\n",
       "point-to-point.md": "same\n", "point-to-point/data/old.csv": "dropped\n"}
NEW = {"index.md": "new home\n", "index/data/a.csv": "a,2\n", "index/data/b.csv": "b\n",
       "p2p/kept.md": "kept\n", "point-to-point.md": "same\n", "p2p/new.md": "fresh\n"}


def _write(root, files):
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)


def _read(root):
    return {p.relative_to(root).as_posix(): p.read_text() for p in sorted(root.rglob("*"))
            if p.is_file()}


@pytest.fixture
def project(tmp_path):
    project = _Project(tmp_path)
    _write(project.docs, OLD)
    _write(project.docs_staging / "run-1", NEW)
    return project


# What the publication must leave: the staged pages replace their groups (the group's files it
# no longer produces go: point-to-point/data/old.csv), the page of the campaign that is gone
# (p2p/gone and its folder) goes, hand-written files (stylesheets/) stay.
EXPECTED = {**{k: v for k, v in OLD.items() if k == "stylesheets/extra.css"}, **NEW}
SLUGS = {"p2p/kept", "p2p/new"}


def test_a_publication_replaces_the_groups_and_leaves_no_staging_folder(project):
    stats = publish(project.docs, project.docs_staging / "run-1", SLUGS)
    # written: index.md, index/data/a.csv (changed), index/data/b.csv, p2p/new.md (added) = 4;
    # removed: index/... none, point-to-point/data/old.csv, p2p/gone.md, p2p/gone/data/t.csv = 3
    assert stats == {"written": 4, "removed": 3}
    assert _read(project.docs) == EXPECTED
    assert not project.docs_staging.exists()


def test_a_failure_at_any_file_rolls_docs_back_whole(project, monkeypatch):
    moves = {"n": 0, "fail_at": None}
    real = txn._move

    def failing(src, dest):
        moves["n"] += 1
        if moves["n"] == moves["fail_at"]:
            raise OSError(errno.ENOSPC, "No space left on device", str(dest))
        real(src, dest)

    monkeypatch.setattr(txn, "_move", failing)
    # 4 files written + 3 removed = 7 moves; fail at each in turn
    for fail_at in range(1, 8):
        _write(project.docs_staging / "run-1", NEW)
        moves.update(n=0, fail_at=fail_at)
        with pytest.raises(OSError):
            publish(project.docs, project.docs_staging / "run-1", SLUGS)
        assert _read(project.docs) == OLD, fail_at
        assert not project.docs_staging.exists()


def _killed_at(project, kill_at: int):
    """The state a SIGKILL leaves after ``kill_at`` moves: apply() stopped, no rollback ran."""
    staged = project.docs_staging / "run-1"
    from pipeline.publish.docs_swap import plan
    journal = txn.begin(staged, *plan(project.docs, staged, SLUGS), sorted(SLUGS), True)
    real, count = txn._move, {"n": 0}

    class Killed(BaseException):
        pass

    def dying(src, dest):
        if count["n"] == kill_at:
            raise Killed
        count["n"] += 1
        real(src, dest)

    txn._move = dying
    try:
        txn.apply(journal, project.docs)
    except Killed:
        pass
    finally:
        txn._move = real
    return journal


@pytest.mark.parametrize("kill_at", range(0, 8))
def test_the_next_build_rolls_back_a_publication_killed_at_any_file(project, kill_at):
    _killed_at(project, kill_at)
    lines = recover(project)
    assert len(lines) == 1 and lines[0].startswith("rolled back the publication of run run-1")
    assert _read(project.docs) == OLD
    assert not project.docs_staging.exists()


def test_a_kill_inside_the_rollback_is_rolled_back_again(project, monkeypatch):
    journal = _killed_at(project, 5)
    real, count = txn._move, {"n": 0}

    def dying(src, dest):
        if count["n"] == 2:
            raise KeyboardInterrupt
        count["n"] += 1
        real(src, dest)

    monkeypatch.setattr(txn, "_move", dying)
    with pytest.raises(KeyboardInterrupt):
        txn.rollback(journal, project.docs)
    monkeypatch.setattr(txn, "_move", real)
    recover(project)
    assert _read(project.docs) == OLD


def test_a_publication_past_its_commit_point_is_finished_not_rolled_back(project, tmp_path):
    journal = _killed_at(project, 99)            # every file moved
    build = tmp_path / ".site-builds" / "build-abc"
    build.mkdir(parents=True)
    (build / "index.html").write_text("site\n")
    journal.mark("site", site_target="build-abc")
    os.symlink(build, project.site)              # the swap happened, the journal not yet marked
    copy = tmp_path / "www" / "html"
    lines = recover(project, str(copy))
    assert lines[0].startswith("finished the publication of run run-1")
    assert _read(project.docs) == EXPECTED
    assert (copy / "index.html").read_text() == "site\n"       # the copy it had not made
    assert not project.docs_staging.exists()


def test_a_site_step_that_had_not_swapped_is_rolled_back(project, tmp_path):
    journal = _killed_at(project, 99)
    journal.mark("site", site_target="build-new")   # placed, but `site` still points elsewhere
    old = tmp_path / ".site-builds" / "build-old"
    old.mkdir(parents=True)
    os.symlink(old, project.site)
    recover(project)
    assert _read(project.docs) == OLD


def test_a_journal_that_cannot_be_read_is_not_taken_for_a_commit(project):
    staged = project.docs_staging / "run-1"
    (staged / txn.NAME).write_text('["p2p/kept"]')        # an older layout: a list of slugs
    assert txn.Journal.read(staged).phase == "docs"
    (staged / txn.NAME).write_text('{"phase": "committed"')   # cut short
    assert txn.Journal.read(staged).phase == "docs"
    recover(project)
    assert _read(project.docs) == OLD and not project.docs_staging.exists()


def test_abandon_rolls_back_keeps_the_committed_and_the_current_run(project):
    _killed_at(project, 3)                                   # run-1: open, rolled back
    committed = project.docs_staging / "run-2"
    committed.mkdir()
    txn.Journal(committed, {"phase": "committed", "added": [], "replaced": [],
                            "removed": []}).save()
    (project.docs_staging / "run-3" / "deep").mkdir(parents=True)   # no journal: a leftover
    (project.docs_staging / "run-4").mkdir()                        # this build's
    assert abandon(project, keep="run-4") == ["run-2"]
    assert _read(project.docs) == OLD
    assert sorted(p.name for p in project.docs_staging.iterdir()) == ["run-2", "run-4"]
    txn.close(txn.Journal.read(committed))
    (project.docs_staging / "run-4").rmdir()
    assert abandon(project) == [] and not project.docs_staging.exists()
