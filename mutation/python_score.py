"""The Python half's score, read from mutmut's own records (``mutants/**/*.py.meta``).

mutmut prints its survivors (``mutmut results``) but no score. This counts, per module, the
mutants mutmut has judged: killed (a test failed), survived, timeout, crashed (SIGSEGV/SIGKILL),
without tests, and not yet run. The score is killed over everything judged (timeouts, crashes
and mutants no test reaches count as alive); modules with mutants not yet run are marked.
"""
from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

KILLED = {1, 3}
SURVIVED = {0}
TIMEOUT = {-24, 24, 152, 255, 36}
CRASHED = {-11, -9}
NO_TESTS = {33}


@dataclass
class Score:
    module: str
    killed: int = 0
    survived: int = 0
    timeout: int = 0
    crashed: int = 0
    no_tests: int = 0
    not_run: int = 0

    @property
    def judged(self) -> int:
        return self.killed + self.survived + self.timeout + self.crashed + self.no_tests

    @property
    def score(self) -> float | None:
        return self.killed / self.judged if self.judged else None


def scores(mutants: Path) -> list[Score]:
    out = []
    for meta in sorted(mutants.rglob("*.py.meta")):
        codes = json.loads(meta.read_text()).get("exit_code_by_key", {})
        if not codes:
            continue
        s = Score(meta.relative_to(mutants).as_posix()[: -len(".meta")])
        for code, n in Counter(codes.values()).items():
            if code in KILLED:
                s.killed += n
            elif code in SURVIVED:
                s.survived += n
            elif code in TIMEOUT:
                s.timeout += n
            elif code in CRASHED:
                s.crashed += n
            elif code in NO_TESTS:
                s.no_tests += n
            elif code is None:
                s.not_run += n
            else:                           # suspicious, skipped, …: alive
                s.survived += n
        out.append(s)
    return out


def report(mutants: Path) -> str:
    rows = scores(mutants)
    lines = ["module | killed | survived | timeout | crashed | no tests | not run | score"]
    total = Score("all judged")
    for s in rows:
        if not s.judged:
            continue
        for f in ("killed", "survived", "timeout", "crashed", "no_tests", "not_run"):
            setattr(total, f, getattr(total, f) + getattr(s, f))
        lines.append(f"{s.module} | {s.killed} | {s.survived} | {s.timeout} | {s.crashed} | "
                     f"{s.no_tests} | {s.not_run} | {s.score:.0%}" + (" (partly run)" if s.not_run else ""))
    if total.judged:
        lines.append(f"{total.module} | {total.killed} | {total.survived} | {total.timeout} | "
                     f"{total.crashed} | {total.no_tests} | {total.not_run} | {total.score:.0%}")
    unrun = [s.module for s in rows if not s.judged]
    if unrun:
        lines.append(f"not run yet: {', '.join(unrun)}")
    return "\n".join(lines)
