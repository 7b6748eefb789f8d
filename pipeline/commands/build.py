"""``python -m pipeline.commands.build``: build the project at ``INTERCONNECT_ROOT`` (``make docs``).

Takes the build lock first (one wait, ``INTERCONNECT_LOCK_TIMEOUT`` in total), then runs every
asset in this process. Exit codes: 0 everything published; 3 published, but some campaigns
were withheld (each is printed with its reasons); 1 failed (or the lock was held): what
readers now see is printed (nothing published, or docs/ and the site with the copy to the
publish directory left for the next build; pipeline/publish/journal.py), then the cause; 130
interrupted by SIGINT or SIGTERM, with the same account. ``--no-site`` skips the mkdocs site. A build whose inputs, code and outputs
are as the last successful build left them does nothing and says so (pipeline/commands/build_key.py);
``--force`` builds anyway, every campaign table included (otherwise a campaign model whose
inputs are those its table was built from is kept: pipeline/warehouse/keep.py). With ``DAGSTER_HOME``
set, the run is recorded in that instance, so ``dg dev`` shows it.

Output (stderr): one line per phase and a closing summary that names every quarantined file,
failed check and withheld campaign (pipeline/commands/build_report.py). ``V=1`` in the environment (or
``--verbose``) shows Dagster's full event log as the build runs.
"""
from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

from pipeline.commands import build_key
from pipeline.ingest.digest import folder_digest
from pipeline.orchestration.retention import keep_runs, prune_runs
from pipeline.project import Project
from pipeline.publish.docs_swap import abandon, recover
from pipeline.util.faults import checkpoint
from pipeline.util.lock import OWNER_ENV, BuildLockedError, writer_lock
from pipeline.util.storage_errors import explain
from pipeline.warehouse.heal import heal


def _instance():
    from dagster import DagsterInstance
    return DagsterInstance.get() if os.environ.get("DAGSTER_HOME") else DagsterInstance.ephemeral()


def _first_error(result) -> str:
    for event in result.all_events:
        if event.event_type_value == "STEP_FAILURE":
            data = event.event_specific_data
            err = getattr(data, "error", None)
            message = err.message.strip() if err is not None else ""
            while err is not None and err.cause is not None:
                err = err.cause
                message = err.message.strip()
            return f"step {event.step_key}: {explain(message)}"
    return "the run failed"


def _interrupt(signum, frame):
    """SIGTERM ends the build like Ctrl-C: every step's cleanup runs."""
    raise KeyboardInterrupt


class _Signals:
    """Which signals arrived during the build. Dagster replaces the Python handlers while steps
    run and turns the interrupt into a failed step, so the signal is seen where it lands: the
    interpreter writes each one's number to the wakeup fd, whoever's handler then runs."""

    def __init__(self):
        self._read, write = os.pipe()
        os.set_blocking(self._read, False)
        os.set_blocking(write, False)
        signal.set_wakeup_fd(write)

    def seen(self) -> list[str]:
        try:
            data = os.read(self._read, 256)
        except BlockingIOError:
            return []
        return [signal.Signals(n).name for n in data if n in (signal.SIGINT, signal.SIGTERM)]


def _published(project: Project) -> tuple:
    site, copy = project.site, os.environ.get("INTERCONNECT_PUBLISH_DIR")
    link = (lambda p: os.readlink(p) if p.is_symlink() else "")
    return folder_digest(project.docs), link(site), link(Path(copy)) if copy else ""


def _what_was_published(project: Project, before: tuple) -> tuple[bool, str]:
    """After a failed or interrupted build: roll back what did not commit, then say exactly
    what readers now see (nothing / docs/ only / docs/ and the site) and what is left over."""
    pending = _leftovers(project)
    docs, site, copy = (a != b for a, b in zip(_published(project), before))
    if not (docs or site or copy or pending):
        return False, "nothing published (docs/ and site/ are as they were)"
    what = " and ".join(n for n, changed in (("docs/", docs), ("site/", site)) if changed)
    said = f"{what or 'nothing new'} published"
    if pending:
        said += (f"; the copy to {os.environ.get('INTERCONNECT_PUBLISH_DIR') or 'the publish directory'}"
                 " was not finished: the next build finishes it")
    return True, said


def _interrupted(project: Project, before: tuple, names: list[str]) -> int:
    """Exit 130, saying what of the build was published before the signal."""
    _, said = _what_was_published(project, before)
    name = names[0] if names else "SIGINT"
    print(f"build of {project.root} interrupted by {name}: {said}", file=sys.stderr)
    return 130


def _failed(project: Project, before: tuple, cause: str) -> int:
    any_published, said = _what_was_published(project, before)
    if any_published:
        print(f"build of {project.root} failed: {said}; the cause: {cause}", file=sys.stderr)
    else:
        print(f"build of {project.root} failed, {said}: {cause}", file=sys.stderr)
    return 1


def _leftovers(project: Project) -> list[str]:
    """This (failed or interrupted) build's publication rolled back unless it committed, and its
    staging folders removed; we hold the lock. Returns the committed runs left to finish."""
    import shutil
    pending = abandon(project)
    for stale in (project.root / ".site-builds").glob("staging-*"):
        shutil.rmtree(stale, ignore_errors=True)
    return pending


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    project = Project.from_env()
    try:
        writer_lock(project.root, project.warehouse)
    except BuildLockedError as exc:
        print(f"build of {project.root} not started: {exc}", file=sys.stderr)
        return 1
    try:
        keep_runs()
    except ValueError as exc:
        print(f"build of {project.root} not started: {exc}", file=sys.stderr)
        return 1
    os.environ[OWNER_ENV] = str(os.getpid())
    signals = _Signals()
    signal.signal(signal.SIGTERM, _interrupt)
    signal.signal(signal.SIGINT, _interrupt)
    # settle a publication a killed build left open: rolled back, or finished if it committed
    for line in recover(project, os.environ.get("INTERCONNECT_PUBLISH_DIR")):
        print(line, file=sys.stderr)
    if (healed := heal(project.warehouse)):
        print(healed, file=sys.stderr)
    if os.environ.get("DAGSTER_HOME"):
        from pipeline.orchestration.instance_heal import heal_instance
        for line in heal_instance(Path(os.environ["DAGSTER_HOME"])):
            print(line, file=sys.stderr)
    inputs = build_key.inputs_key(project, args)
    record = None if "--force" in args else build_key.unchanged(project, inputs)
    if record is not None:
        print("unchanged: raw_data/, sql/, templates/, the code, docs/ and the site are as the "
              "last build left them; nothing parsed, queried or written (--force builds anyway)",
              file=sys.stderr)
        print(record["summary"], file=sys.stderr)
        return int(record["exit_code"])
    only = None
    if "--force" in args:       # keep no campaign table either (pipeline/warehouse/keep.py)
        from pipeline.warehouse.keep import REBUILD_ENV
        os.environ[REBUILD_ENV] = "all"
    else:                       # only what changed, when only campaign folders did
        only = build_key.campaigns_to_build(project, inputs)
    build_key.forget(project)
    checkpoint("build:starting")    # decided to build, nothing built yet (tests stop here)
    from pipeline.commands.in_process import (
        build,  # Dagster: imported only when there is work to do
    )
    before = _published(project)
    instance = _instance()
    try:
        verbose = "--verbose" in args or os.environ.get("V", "") not in ("", "0")
        outcome = build(project, raise_on_error=False, site="--no-site" not in args,
                        instance=instance, log_level="DEBUG" if verbose else "CRITICAL",
                        only=only)
    except KeyboardInterrupt:
        return _interrupted(project, before, signals.seen())
    except Exception as exc:  # noqa: BLE001 - reported, then a non-zero exit
        if (names := signals.seen()):
            return _interrupted(project, before, names)
        return _failed(project, before, explain(str(exc)))
    if (names := signals.seen()):
        return _interrupted(project, before, names)
    _retention(instance)
    if not outcome.success:
        return _failed(project, before, _first_error(outcome.result))
    lines = _report(project, outcome)
    from pipeline.warehouse.compact import compact
    if (compacted := compact(project.warehouse)):       # after the report: no connection open
        lines.insert(len(lines) - 1, compacted)         # the phases first, the summary last
    for line in lines:
        print(line, file=sys.stderr)
    build_key.remember(project, inputs, outcome.exit_code, lines[-1])
    return outcome.exit_code


def _retention(instance) -> None:
    """The instance keeps the last INTERCONNECT_KEEP_RUNS runs (pipeline/orchestration/retention.py)."""
    if os.environ.get("DAGSTER_HOME"):
        if (line := prune_runs(instance)):
            print(line, file=sys.stderr)


def _report(project: Project, outcome) -> list[str]:
    import duckdb

    from pipeline.commands.build_report import report
    from pipeline.warehouse.steps import Layout
    con = duckdb.connect(str(project.warehouse), read_only=True)
    try:
        r = report(outcome.result, con, Layout(project), outcome.campaigns)
    finally:
        con.close()
    r.withheld = outcome.withheld
    return r.lines()


if __name__ == "__main__":
    sys.exit(main())
