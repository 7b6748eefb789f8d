"""Shared fixtures: a built copy of the whole project, made once per test session."""
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from pipeline.commands.in_process import build
from pipeline.project import Project
from pipeline.util.signals import kept_signals

from build_runs import build_env as cli_env
from built_tree import copy_built, db_of, share_under

REPO = Path(__file__).resolve().parent.parent


def run_cli_build(root: Path, *args: str) -> subprocess.CompletedProcess:
    """Build the tree at ``root`` as ``make docs`` does, in a subprocess."""
    return subprocess.run([sys.executable, "-m", "pipeline.commands.build", *args], cwd=REPO,
                          env=cli_env(root), capture_output=True, text=True)


def build_copy(dest: Path, edit=None, site=True):
    """A copy of the session's built tree at ``dest`` with ``edit(root)`` applied, built
    in-process (what the edit touches is built, the rest kept); returns the Project."""
    project = Project(copy_built(dest))
    if edit:
        edit(project.root)
    old = os.environ.get("INTERCONNECT_DB")
    os.environ["INTERCONNECT_DB"] = str(db_of(dest))
    try:
        result = build(project, site=site)
    finally:
        if old is None:
            os.environ.pop("INTERCONNECT_DB", None)
        else:
            os.environ["INTERCONNECT_DB"] = old
    assert result.success
    return project


def prebuilt() -> Project | None:
    path = os.environ.get("INTERCONNECT_TEST_PREBUILT")
    return Project(Path(path)) if path else None


@pytest.fixture(scope="session")
def built(tmp_path_factory):
    """The committed project built end to end (ingest, SQL, pages, site) in a scratch folder.
    With INTERCONNECT_TEST_PREBUILT, the tree built there instead (the SQL mutation harness
    builds each mutant's tree itself: mutation/sql_harness.py)."""
    return prebuilt() or Project(copy_built(tmp_path_factory.mktemp("built")))


def warehouse(project):
    """The test build's warehouse, read-only, with every campaign's file and the template's
    attached (READ_ONLY) under their schemas' names, as a page's render sees them."""
    import duckdb
    from pipeline.warehouse.campaign_files import attach_all
    path = db_of(project.root)
    return attach_all(duckdb.connect(str(path), read_only=True), path)


@pytest.fixture
def fresh_locks(monkeypatch):
    """pipeline/util/lock.py as in a new process: no lock held or refused, no owner, the default
    wait; the locks a test took are let go after it. (Lock test files use it for every test.)"""
    from pipeline.util import lock
    monkeypatch.setattr(lock, "_held", {})
    monkeypatch.setattr(lock, "_refused", {})
    monkeypatch.delenv(lock.OWNER_ENV, raising=False)
    monkeypatch.delenv("INTERCONNECT_LOCK_TIMEOUT", raising=False)
    yield
    for fd in lock._held.values():
        os.close(fd)


@pytest.fixture(scope="session", autouse=True)
def _shared_build(tmp_path_factory):
    """The folder where the session's one build of the tree is made (tests/support/built_tree.py)."""
    share_under(tmp_path_factory.getbasetemp())


@pytest.fixture(autouse=True)
def _no_env_leak(monkeypatch):
    monkeypatch.delenv("INTERCONNECT_ROOT", raising=False)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    """Each test, and the fixtures it sets up first, start with SIGTERM's default action, as a
    new shell has it: a module or session fixture that ran Dagster outside kept_signals left it
    ignored in this worker, and every process started after it could not be stopped."""
    if signal.getsignal(signal.SIGTERM) is signal.SIG_IGN:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


@pytest.fixture(autouse=True)
def _no_signal_leak():
    """A test that runs Dagster in its body (materialize, execute_in_process) leaves SIGTERM as
    it found it: otherwise Dagster leaves it ignored in this worker, and every process a later
    test starts cannot be stopped (pipeline/util/signals.py)."""
    with kept_signals():
        yield


def pytest_make_parametrize_id(config, val, argname):
    """Ids made of word characters for text and bytes values: an id holding '/' cannot be passed
    back to pytest as a node id (mutmut does that)."""
    if isinstance(val, bytes):
        val = val.decode("latin-1")
    if not isinstance(val, str):
        return None                       # pytest's own id
    return re.sub(r"\W+", "_", val).strip("_")[:60] or "blank"


# Hypothesis: under CI the examples are derived from each test's name (the same every run), so
# a red CI is a change, not a newly drawn example; locally every run explores new ones.
from hypothesis import settings as _hypothesis_settings  # noqa: E402

_hypothesis_settings.register_profile("ci", derandomize=True, database=None)
if os.environ.get("CI"):
    _hypothesis_settings.load_profile("ci")
