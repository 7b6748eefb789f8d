"""Running the measurement tools: find them, run them, name their version.

Every failure becomes a :class:`CollectError` with one line the user can act
on; the caller then exits non-zero before anything is written.
"""
from __future__ import annotations

import shutil
import subprocess
import time
from dataclasses import dataclass

from pipeline.collect.campaign import CollectError

INSTALL_HINT = "install it (Debian: scripts/install_lab_tools.sh)"


@dataclass
class Run:
    argv: list[str]
    returncode: int
    stdout: bytes
    stderr: bytes
    started: float      # unix seconds
    ended: float


def require(binary: str) -> str:
    """The tool's full path, or a clear error when it is not installed."""
    path = shutil.which(binary)
    if path is None:
        raise CollectError(f"{binary}: not found on PATH; {INSTALL_HINT}")
    return path


def run(argv: list[str], timeout: float | None = None) -> Run:
    require(argv[0])
    started = time.time()
    try:
        proc = subprocess.run(argv, capture_output=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        raise CollectError(f"{argv[0]}: no answer after {timeout:g} s ({' '.join(argv)})") from None
    return Run(argv, proc.returncode, proc.stdout, proc.stderr, started, time.time())


def first_line(data: bytes) -> str:
    text = data.decode("utf-8", "replace").strip()
    return text.splitlines()[0].strip() if text else ""


def version(binary: str, flag: str = "--version") -> str:
    """First line of ``binary --version`` (what the manifest records as tool_version)."""
    r = run([binary, flag], timeout=10)
    return first_line(r.stdout) or first_line(r.stderr) or "unknown"


def failure(r: Run, what: str) -> CollectError:
    """One line from a failed run: the tool's own last words, else its exit code."""
    detail = first_line(r.stderr) or first_line(r.stdout) or f"exit code {r.returncode}"
    return CollectError(f"{r.argv[0]}: {what}: {detail}")
