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

# mutmut's exit code -> the column it counts in (anything else: suspicious, skipped, … is alive)
STATUS = {1: "killed", 3: "killed", 0: "survived", -24: "timeout", 24: "timeout", 152: "timeout",
          255: "timeout", 36: "timeout", -11: "crashed", -9: "crashed", 33: "no_tests", None: "not_run"}
FIELDS = ("killed", "survived", "timeout", "crashed", "no_tests", "not_run")


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
        return sum(getattr(self, f) for f in FIELDS) - self.not_run

    @property
    def score(self) -> float | None:
        return self.killed / self.judged if self.judged else None

    def add(self, field: str, n: int) -> None:
        setattr(self, field, getattr(self, field) + n)

    def row(self) -> str:
        return " | ".join([self.module, *(str(getattr(self, f)) for f in FIELDS), f"{self.score:.0%}"])


def scores(mutants: Path) -> list[Score]:
    out = []
    for meta in sorted(mutants.rglob("*.py.meta")):
        codes = json.loads(meta.read_text()).get("exit_code_by_key", {})
        if not codes:
            continue
        s = Score(meta.relative_to(mutants).as_posix()[: -len(".meta")])
        for code, n in Counter(codes.values()).items():
            s.add(STATUS.get(code, "survived"), n)
        out.append(s)
    return out


def report(mutants: Path) -> str:
    rows = scores(mutants)
    lines = ["module | killed | survived | timeout | crashed | no tests | not run | score"]
    total = Score("all judged")
    for s in rows:
        if not s.judged:
            continue
        for f in FIELDS:
            total.add(f, getattr(s, f))
        lines.append(s.row() + (" (partly run)" if s.not_run else ""))
    if total.judged:
        lines.append(total.row())
    unrun = [s.module for s in rows if not s.judged]
    if unrun:
        lines.append(f"not run yet: {', '.join(unrun)}")
    return "\n".join(lines)
