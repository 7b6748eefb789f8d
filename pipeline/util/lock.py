"""One build at a time per tree and per warehouse.

A build writes the warehouse, the raw store, ``docs/`` and ``site/``. It takes an exclusive
``flock`` on ``<tree>/.interconnect-build.lock`` and, when the warehouse lives elsewhere, on
``<warehouse>.lock`` too, and keeps them until its process ends. A second build waits for both
once, ``INTERCONNECT_LOCK_TIMEOUT`` seconds in total (default 600), then fails before writing
anything, naming the holder's pid. A process that failed to get the lock fails every later
attempt at once, so a run does not wait again step after step.

``python -m pipeline.commands.in_process`` takes the lock before it starts the run and exports
``INTERCONNECT_LOCK_OWNER``; steps running in child processes of that build (the multiprocess
executor) then know the lock is theirs. Runs launched from the Dagster UI take it in their
first step that writes.
"""
from __future__ import annotations

import fcntl
import os
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

OWNER_ENV = "INTERCONNECT_LOCK_OWNER"
_held: dict[str, int] = {}
_refused: dict[str, str] = {}


class BuildLockedError(RuntimeError):
    pass


def lock_paths(root: Path, db_path: Path) -> list[Path]:
    tree = Path(root).resolve() / ".interconnect-build.lock"
    db = Path(str(Path(db_path).resolve()) + ".lock")
    return [tree] if db.parent == tree.parent else [tree, db]


def _holder(path: Path) -> str:
    try:
        return path.read_text().strip() or "unknown"
    except OSError:
        return "unknown"


def _owned_by_ancestor(path: Path) -> bool:
    # a value that is no pid (set by hand, or garbage) owns nothing: the lock is taken as usual
    owner = os.environ.get(OWNER_ENV, "")
    return owner.isdigit() and _holder(path) == owner and _alive(int(owner))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
        return True
    except (OSError, ValueError):
        return False


def _timeout(timeout_s: float | None) -> float:
    return float(os.environ.get("INTERCONNECT_LOCK_TIMEOUT", "600")) if timeout_s is None \
        else timeout_s


# a wait this long is said (a build waits milliseconds for a reader without a word)
NOTICE_AFTER_S = 1.0


def _command(pid: str) -> str:
    """The holder's command line as /proc shows it (empty when it cannot be read)."""
    try:
        raw = Path(f"/proc/{int(pid)}/cmdline").read_bytes()
    except (OSError, ValueError):
        return ""
    # one line: an argument may hold newlines or control characters (python -c '…')
    text = " ".join(part.decode(errors="replace") for part in raw.split(b"\0") if part)
    return " ".join("".join(c if c.isprintable() else " " for c in text).split())[:120]


def waiting_message(path: Path, timeout_s: float) -> str:
    """Who holds ``path`` (pid, command, since when) and how long this process will wait."""
    holder = _holder(path)
    command = _command(holder)
    try:
        held_s = max(0.0, time.time() - path.stat().st_mtime)     # written when it was taken
        since = f", held for {held_s:.0f} s"
    except OSError:
        since = ""
    what = f" ({command})" if command else ""
    return (f"waiting for {path.name}: another build, pid {holder}{what}{since}, holds it; "
            f"waiting up to {timeout_s:.0f} s (INTERCONNECT_LOCK_TIMEOUT)")


def _wait_flock(fd: int, mode: int, path: Path, deadline: float, timeout_s: float) -> None:
    """``flock(fd, mode)``, looking again every 0.1 s until ``deadline``; then refused, naming
    the holder. A wait of NOTICE_AFTER_S or more is said on stderr (who holds the lock, how long
    this waits), and its end with how long it took."""
    started, said = time.monotonic(), False
    while True:
        try:
            fcntl.flock(fd, mode | fcntl.LOCK_NB)
            if said:
                print(f"{path.name}: taken after waiting {time.monotonic() - started:.1f} s",
                      file=sys.stderr, flush=True)
            return
        except BlockingIOError:
            if not said and time.monotonic() - started >= NOTICE_AFTER_S:
                said = True
                print(waiting_message(path, timeout_s), file=sys.stderr, flush=True)
            if time.monotonic() >= deadline:
                raise BuildLockedError(f"another build (pid {_holder(path)}) holds {path}; gave "
                                       f"up after waiting {timeout_s:.0f} s; nothing was written") from None
            time.sleep(0.1)


def acquire(paths: list[Path], timeout_s: float | None = None) -> None:
    """Take every lock in ``paths`` (re-entrant within a process)."""
    timeout_s = _timeout(timeout_s)
    deadline = time.monotonic() + timeout_s
    for path in paths:
        key = str(path)
        if key in _held or _owned_by_ancestor(path):
            continue
        if key in _refused:
            raise BuildLockedError(_refused[key])
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            _wait_flock(fd, fcntl.LOCK_EX, path, deadline, timeout_s)
        except BuildLockedError as exc:
            os.close(fd)
            _refused[key] = str(exc)
            raise
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode(), 0)
        _held[key] = fd


def writer_lock(root: Path, db_path: Path, timeout_s: float | None = None) -> None:
    acquire(lock_paths(root, db_path), timeout_s)


@contextmanager
def scoped_writer_lock(root: Path, db_path: Path, timeout_s: float | None = None) -> Iterator[None]:
    """The build locks, exclusively, for the block only (a launcher that writes the warehouse
    before the steps it starts take them shared: pipeline/orchestration/scale_out.py). Nothing
    is taken that this process already holds."""
    timeout_s = _timeout(timeout_s)
    deadline = time.monotonic() + timeout_s
    fds = []
    try:
        for path in lock_paths(root, db_path):
            if str(path) in _held or _owned_by_ancestor(path):
                continue
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
            fds.append(fd)
            _wait_flock(fd, fcntl.LOCK_EX, path, deadline, timeout_s)
            os.ftruncate(fd, 0)
            os.pwrite(fd, str(os.getpid()).encode(), 0)
        yield
    finally:
        for fd in fds:
            os.close(fd)


@contextmanager
def reader_lock(root: Path, db_path: Path) -> Iterator[None]:
    """A shared hold on the build locks while a process that is not a build (the raw_data
    sensor) reads the warehouse: refused at once with BuildLockedError while a build holds
    them, and a build that starts meanwhile waits the few milliseconds of the read. (DuckDB
    lets no process open the file for writing while another has it open, even read-only: an
    unguarded read by the sensor failed a run's step.)"""
    fds = []
    try:
        for path in lock_paths(root, db_path):
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
            fds.append(fd)
            try:
                fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            except BlockingIOError:
                raise BuildLockedError(f"a build (pid {_holder(path)}) holds {path}") from None
        yield
    finally:
        for fd in fds:
            os.close(fd)


@contextmanager
def ingest_lock(root: Path, db_path: Path, campaign_lock: Path,
                timeout_s: float | None = None) -> Iterator[None]:
    """What one campaign's ingest step holds while it writes that campaign's part of the raw
    store: the build locks *shared* (steps of one run ingest side by side, in any process or
    on any machine that sees the tree; a build that holds them waits for them, and they wait
    for it) and the campaign's own lock exclusively (two runs never write one campaign at
    once). Both are let go when the step ends. Nothing is taken that this process or the build
    that started it already holds."""
    timeout_s = _timeout(timeout_s)
    deadline = time.monotonic() + timeout_s
    wanted = [(p, fcntl.LOCK_SH) for p in lock_paths(root, db_path)]
    wanted.append((Path(campaign_lock), fcntl.LOCK_EX))
    fds = []
    try:
        for path, mode in wanted:
            if str(path) in _held or _owned_by_ancestor(path):
                continue
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
            fds.append(fd)
            _wait_flock(fd, mode, path, deadline, timeout_s)
        yield
    finally:
        for fd in fds:
            os.close(fd)
