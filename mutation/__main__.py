"""``make mutate``: mutation testing of the SQL models (and, with ``python``, the Python code
through mutmut). Not part of ``make test``: each mutant runs tests.

    python -m mutation sql [--sample N] [--seed S] [--only GLOB] [--list]
    python -m mutation python [mutmut run arguments, e.g. "pipeline.ingest.ping*"]

SQL: every mutant of ``mutation/sql_mutants.py`` is applied, one at a time, to a scratch copy of
the project (``.mutation/tree``); the fast tests that run model files on hand-made tables go
first, and a mutant they miss meets the tests that check the built warehouse's values (the
committed-docs freshness test excluded: it cannot tell a bug from an intended change). A mutant
is killed when a test fails (a model that no longer builds fails them too). The score and every
survivor are printed and written to ``.mutation/sql-results.json``; survivors that are
equivalent mutants are listed, with the reason, in tests/README.md.
"""
from __future__ import annotations

import argparse
import fnmatch
import json
import random
import shutil
import subprocess
import sys
import time
from pathlib import Path

from .sql_mutants import Mutant, discover

ROOT = Path(__file__).resolve().parent.parent
WORK = ROOT / ".mutation"
# model files run on hand-made tables: seconds
FAST = ["tests/test_boundaries.py", "tests/test_netdev_intervals.py", "tests/test_decoding_mode.py",
        "tests/test_p2p_models.py", "tests/test_bandwidth_theory.py", "tests/test_models.py"]
# the built warehouse's values, pages and checks: the session's one build, then the assertions
# (files that build trees of their own, e.g. test_own_data.py, cost minutes a mutant: left out)
FULL = ["tests/test_end_to_end.py", "tests/test_point_to_point_page.py", "tests/test_ethernet_charts.py",
        "tests/test_asset_checks.py", "tests/test_figure_keys.py", "tests/test_model_families.py"]
NOT_A_VALUE_TEST = "tests/test_end_to_end.py::test_committed_docs_are_fresh"
SKIP = {".venv", ".git", ".mutation", "mutants", "site", ".site-builds", ".warehouse", ".dagster_home",
        ".bench", ".docs-staging", "__pycache__", ".pytest_cache", ".hypothesis"}


def _copy(dest: Path) -> None:
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(ROOT, dest, symlinks=True,
                    ignore=lambda d, names: [n for n in names if n in SKIP or n.endswith(".duckdb")])


def _pytest(tree: Path, files: list[str], workers: int) -> bool:
    """True when every test passed (the mutant survived)."""
    args = [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", "--deselect", NOT_A_VALUE_TEST]
    args += ["-n", str(workers), "--dist", "loadfile"] if workers > 1 else ["-p", "no:xdist"]
    proc = subprocess.run(args + files, cwd=tree, capture_output=True, text=True, timeout=3600)
    return proc.returncode == 0


def run_sql(args) -> int:
    mutants = discover(ROOT)
    if args.only:
        mutants = [m for m in mutants if fnmatch.fnmatch(m.file, args.only)]
    if args.sample:
        mutants = sorted(random.Random(args.seed).sample(mutants, min(args.sample, len(mutants))),
                         key=lambda m: (m.file, m.offset))
    if args.list:
        for m in mutants:
            print(m.name)
        return 0
    tree = WORK / "tree"
    _copy(tree)
    results: list[dict] = []
    started = time.monotonic()
    for n, m in enumerate(mutants, start=1):
        target = tree / m.file
        original = target.read_text()
        target.write_text(m.apply(original))
        try:
            survived = _pytest(tree, FAST, 1) and _pytest(tree, FULL, args.workers)
        finally:
            target.write_text(original)
        results.append({"mutant": m.name, "killed": not survived})
        print(f"[{n}/{len(mutants)}] {'killed  ' if not survived else 'SURVIVED'} {m.name}", flush=True)
    killed = sum(r["killed"] for r in results)
    score = killed / len(results) if results else 1.0
    summary = {"mutants": len(results), "killed": killed, "score": score,
               "sample": args.sample, "seed": args.seed, "only": args.only,
               "minutes": round((time.monotonic() - started) / 60, 1),
               "survivors": [r["mutant"] for r in results if not r["killed"]]}
    WORK.mkdir(exist_ok=True)
    (WORK / "sql-results.json").write_text(json.dumps(summary, indent=2) + "\n")
    print(f"SQL mutants: {killed} of {len(results)} killed ({score:.0%}) in {summary['minutes']} min")
    for s in summary["survivors"]:
        print(f"  survived: {s}")
    return 0 if score >= args.target else 1


def run_python(extra: list[str]) -> int:
    mutmut = Path(sys.executable).with_name("mutmut")
    rc = subprocess.run([str(mutmut), "run", *extra], cwd=ROOT).returncode
    subprocess.run([str(mutmut), "results"], cwd=ROOT)
    return rc


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m mutation")
    sub = parser.add_subparsers(dest="what", required=True)
    sql = sub.add_parser("sql", help="mutants of sql/, one at a time")
    sql.add_argument("--sample", type=int, default=0, help="a random sample of this many mutants")
    sql.add_argument("--seed", type=int, default=0)
    sql.add_argument("--only", help="only the mutants of files matching this glob, e.g. 'sql/marts/*'")
    sql.add_argument("--workers", type=int, default=1,
                     help="pytest workers for the built-tree tests (each worker builds the tree once)")
    sql.add_argument("--target", type=float, default=0.9, help="exit 1 below this score")
    sql.add_argument("--list", action="store_true", help="print the mutants, run nothing")
    py = sub.add_parser("python", help="mutmut over pipeline/ (see [tool.mutmut] in pyproject.toml)")
    py.add_argument("extra", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    if args.what == "sql":
        return run_sql(args)
    return run_python(args.extra)


if __name__ == "__main__":
    sys.exit(main())
