"""Runs the SQL mutants of ``mutation/sql_mutants.py``, one at a time, against the tests.

Each mutant is written into a scratch copy of the project (``.mutation/tree``) and meets, in
order, until one of them fails:

1. **own-data tests** (``OWN_DATA``): model files run on hand-made tables and small fixture
   campaigns, seconds each;
2. **the build**: the bare build of the shipped tree (``bench.bare``: the same parsers, the SQL
   in one connection, the pages and the site), reusing the parsed raw files, so only the SQL and
   the pages run again; a model that no longer builds is killed here;
3. **built-tree tests** (``BUILT``): the tests that read a build of the shipped tree, given this
   one (``INTERCONNECT_TEST_PREBUILT``). They run only when the build differs from the
   original's somewhere (``mutation/fingerprint.py``): a mutant that changes no relation and no
   page of the shipped build cannot fail a test that reads only that build. It is then a
   survivor ("unchanged on the shipped data"), never a kill, so this shortcut can only lower
   the score.

The committed-docs freshness test is never run: it cannot tell a bug from an intended change.
"""
from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from . import fingerprint
from .sql_mutants import Mutant

ROOT = Path(__file__).resolve().parent.parent
WORK = ROOT / ".mutation"
OWN_DATA = ["tests/warehouse/test_boundaries.py", "tests/warehouse/test_netdev_intervals.py", "tests/warehouse/test_decoding_mode.py",
            "tests/warehouse/test_p2p_models.py", "tests/publish/test_bandwidth_theory.py", "tests/warehouse/test_models.py",
            "tests/warehouse/test_asset_checks.py", "tests/warehouse/test_pp_verdict_model.py",
            "tests/warehouse/test_lab_validation_model.py", "tests/warehouse/test_model_families.py",
            "tests/warehouse/test_featured_campaigns.py",
            "tests/publish/charts/test_chart_data.py", "tests/warehouse/test_what_if_model.py", "tests/warehouse/test_gguf_keys_check.py"]
BUILT = ["tests/commands/test_end_to_end.py", "tests/publish/test_point_to_point_page.py",
         "tests/publish/charts/test_ethernet_charts.py", "tests/publish/test_figure_keys.py", "tests/collect/test_lab_campaigns.py",
         "tests/warehouse/test_column_notes.py", "tests/publish/charts/test_narrow_charts.py"]
NOT_A_VALUE_TEST = "tests/commands/test_end_to_end.py::test_committed_docs_are_fresh"
SKIP = {".venv", ".git", ".mutation", "mutants", "site", ".site-builds", ".warehouse", ".dagster_home",
        ".bench", ".docs-staging", ".bench-staging", "__pycache__", ".pytest_cache", ".hypothesis",
        "test-artifacts"}
PREBUILT_ENV = "INTERCONNECT_TEST_PREBUILT"
EQUIVALENTS = Path(__file__).with_name("sql_equivalents.txt")


def equivalents(path: Path = EQUIVALENTS) -> dict[str, str]:
    """Mutant name -> why it cannot change a result (``sql_equivalents.txt``)."""
    out = {}
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        name, sep, reason = line.partition("\t")
        if not sep or not reason.strip():
            raise ValueError(f"{path}:{number}: expected '<mutant name><TAB><reason>', found {line!r}")
        out[name] = reason.strip()
    return out


class HarnessError(RuntimeError):
    """The unmutated tree does not pass: no mutant can be judged."""


@dataclass
class Outcome:
    mutant: str
    killed: bool
    stage: str                 # own-data tests | build | built-tree tests | unchanged
    changed: list[str]         # relations and pages the mutant's build changed (first few)


class Tree:
    """The scratch copy mutants are written into, and its bare build."""

    def __init__(self, root: Path):
        self.root = root
        self.db = root / ".warehouse" / "interconnect.duckdb"     # tests/support/built_tree.py DB

    def copy_from(self, src: Path) -> None:
        if self.root.exists():
            shutil.rmtree(self.root)
        shutil.copytree(src, self.root, symlinks=True,
                        ignore=lambda d, names: [n for n in names if n in SKIP or n.endswith(".duckdb")])

    def env(self, **extra: str) -> dict:
        env = {k: v for k, v in os.environ.items()
               if k not in ("INTERCONNECT_ROOT", "INTERCONNECT_DB", "DAGSTER_HOME", PREBUILT_ENV)}
        env.update(extra)
        return env

    def build(self) -> str | None:
        """Build from an empty warehouse (the parsed raw files kept) with docs/ as committed;
        None when it worked, else the end of its error output."""
        for name in (self.db, self.db.with_name(self.db.name + ".wal")):
            name.unlink(missing_ok=True)
        for name in ("site", ".site-builds", ".docs-staging", ".bench-staging", "docs"):
            shutil.rmtree(self.root / name, ignore_errors=True)
        shutil.copytree(ROOT / "docs", self.root / "docs", symlinks=True)
        proc = subprocess.run([sys.executable, "-m", "bench.bare", str(self.root)], cwd=self.root,
                              env=self.env(INTERCONNECT_ROOT=str(self.root), INTERCONNECT_DB=str(self.db)),
                              capture_output=True, text=True, timeout=1800)
        return None if proc.returncode == 0 else (proc.stderr or proc.stdout)[-2000:]

    def fingerprint(self) -> dict[str, str]:
        return ({f"relation {k}": v for k, v in fingerprint.relations(self.db).items()}
                | {f"docs/{k}": v for k, v in fingerprint.pages(self.root / "docs").items()})

    def pytest(self, files: list[str], workers: int, prebuilt: bool = False) -> tuple[bool, str]:
        """(every test passed, the end of pytest's output)."""
        args = [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider",
                "--deselect", NOT_A_VALUE_TEST]
        args += ["-n", str(workers), "--dist", "loadfile"] if workers > 1 else ["-p", "no:xdist"]
        env = self.env(**({PREBUILT_ENV: str(self.root)} if prebuilt else {}))
        proc = subprocess.run(args + files, cwd=self.root, env=env, capture_output=True, text=True,
                              timeout=3600)
        return proc.returncode == 0, proc.stdout[-3000:]


def baseline(tree: Tree, workers: int, log=print) -> tuple[dict[str, str], set[str]]:
    """The original build's digests and the keys that differ between two builds of it; raises
    HarnessError when the unmutated tree fails a test or does not build."""
    ok, out = tree.pytest(OWN_DATA, workers)
    if not ok:
        raise HarnessError(f"the unmutated tree fails its own-data tests:\n{out}")
    digests = []
    for _ in range(2):
        error = tree.build()
        if error:
            raise HarnessError(f"the unmutated tree does not build:\n{error}")
        digests.append(tree.fingerprint())
    ok, out = tree.pytest(BUILT, workers, prebuilt=True)
    if not ok:
        raise HarnessError(f"the unmutated tree fails its built-tree tests:\n{out}")
    unstable = set(fingerprint.differences(*digests))
    if unstable:
        log(f"not the same in two builds of the original (always counted as changed): {sorted(unstable)}")
    return digests[0], unstable


def judge(tree: Tree, mutant: Mutant, base: dict[str, str], unstable: set[str],
          workers: int) -> Outcome:
    target = tree.root / mutant.file
    original = target.read_text()
    target.write_text(mutant.apply(original))
    try:
        ok, _ = tree.pytest(OWN_DATA, workers)
        if not ok:
            return Outcome(mutant.name, True, "own-data tests", [])
        if tree.build() is not None:
            return Outcome(mutant.name, True, "build", [])
        changed = sorted(set(fingerprint.differences(base, tree.fingerprint())) | unstable)
        if not changed:
            return Outcome(mutant.name, False, "unchanged", [])
        ok, _ = tree.pytest(BUILT, workers, prebuilt=True)
        return Outcome(mutant.name, not ok, "built-tree tests", changed[:5])
    finally:
        target.write_text(original)


def wilson(killed: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """95 % interval of the kill rate when ``n`` mutants are a random sample of all."""
    if n == 0:
        return 0.0, 1.0
    p = killed / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def run(mutants: list[Mutant], workers: int, of_total: int, meta: dict, log=print) -> dict:
    tree = Tree(WORK / "tree")
    tree.copy_from(ROOT)
    started = time.monotonic()
    base, unstable = baseline(tree, workers, log)
    outcomes: list[Outcome] = []
    WORK.mkdir(exist_ok=True)
    progress = WORK / "sql-progress.jsonl"           # one line a mutant, as it is judged
    progress.write_text("")
    for n, m in enumerate(mutants, start=1):
        o = judge(tree, m, base, unstable, workers)
        outcomes.append(o)
        with progress.open("a") as f:
            f.write(json.dumps(o.__dict__) + "\n")
        log(f"[{n}/{len(mutants)}] {'killed  ' if o.killed else 'SURVIVED'} ({o.stage}) {m.name}")
    killed = sum(o.killed for o in outcomes)
    known = equivalents()
    equivalent = [o for o in outcomes if not o.killed and o.mutant in known]
    judged = len(outcomes) - len(equivalent)
    low, high = wilson(killed, len(outcomes)) if len(outcomes) < of_total else (None, None)
    summary = {**meta, "mutants": len(outcomes), "of": of_total, "killed": killed,
               "score": killed / len(outcomes) if outcomes else 1.0,
               "equivalent": len(equivalent),
               "score_without_equivalent": killed / judged if judged else 1.0,
               "interval_95": None if low is None else [round(low, 3), round(high, 3)],
               "minutes": round((time.monotonic() - started) / 60, 1),
               "by_stage": {s: sum(o.stage == s and o.killed for o in outcomes)
                            for s in ("own-data tests", "build", "built-tree tests")},
               "survivors": [{"mutant": o.mutant, "why": o.stage, "changed": o.changed,
                              "equivalent": known.get(o.mutant)}
                             for o in outcomes if not o.killed]}
    (WORK / "sql-results.json").write_text(json.dumps(summary, indent=2) + "\n")
    return summary
