"""``make mutate``: mutation testing of the SQL models (and, with ``python``, the Python code
through mutmut). Not part of ``make test``: each mutant runs tests.

    python -m mutation sql [--sample N] [--seed S] [--only GLOB] [--list]
    python -m mutation python [mutmut run arguments, e.g. "pipeline.ingest.formats.ping*"]

SQL: every mutant of ``mutation/sql_mutants.py`` is applied, one at a time, to a scratch copy of
the project and meets the tests in the order ``mutation/sql_harness.py`` describes. The score
(with its 95 % interval when a sample was run) and every survivor are printed and written to
``.mutation/sql-results.json`` (one line a mutant as it goes: ``sql-progress.jsonl``);
survivors that are equivalent mutants are listed, with the reason, in tests/README.md.
"""
from __future__ import annotations

import argparse
import fnmatch
import random
import subprocess
import sys
from pathlib import Path

from .sql_mutants import discover

ROOT = Path(__file__).resolve().parent.parent


def run_sql(args) -> int:
    from .sql_harness import HarnessError, equivalents, run
    everything = discover(ROOT)
    mutants = everything
    if args.only:
        mutants = [m for m in mutants if fnmatch.fnmatch(m.file, args.only)]
    if args.names:
        wanted = {line.strip() for line in Path(args.names).read_text().splitlines() if line.strip()}
        unknown = sorted(wanted - {m.name for m in mutants})
        if unknown:
            print(f"make mutate: {args.names}: no such mutant(s): {', '.join(unknown)}", file=sys.stderr)
            return 2
        mutants = [m for m in mutants if m.name in wanted]
    if args.sample:
        mutants = sorted(random.Random(args.seed).sample(mutants, min(args.sample, len(mutants))),
                         key=lambda m: (m.file, m.offset))
    if args.list:
        for m in mutants:
            print(m.name)
        return 0
    meta = {"sample": args.sample, "seed": args.seed, "only": args.only, "names": args.names}
    names = {m.name for m in everything}
    for stale in sorted(set(equivalents()) - names):
        print(f"mutation/sql_equivalents.txt: no such mutant any more (the file changed?): {stale}")
    try:
        summary = run(mutants, args.workers, len(everything) if args.sample else len(mutants), meta,
                      log=lambda line: print(line, flush=True))
    except HarnessError as exc:
        print(f"make mutate: {exc}", file=sys.stderr)
        return 2
    interval = summary["interval_95"]
    print(f"SQL mutants: {summary['killed']} of {summary['mutants']} killed ({summary['score']:.0%})"
          f" in {summary['minutes']} min"
          + (f"; a random sample of {summary['of']}: 95 % interval {interval[0]:.0%}–{interval[1]:.0%}"
             if interval else ""))
    print(f"without the {summary['equivalent']} equivalent mutant(s) listed in "
          f"mutation/sql_equivalents.txt: {summary['score_without_equivalent']:.0%}")
    print("killed at: " + ", ".join(f"{k} {v}" for k, v in summary["by_stage"].items()))
    for s in summary["survivors"]:
        if s["equivalent"]:
            print(f"  equivalent: {s['mutant']}  ({s['equivalent']})")
            continue
        print(f"  survived ({s['why']}): {s['mutant']}" + (f"  changed: {', '.join(s['changed'])}"
                                                         if s["changed"] else ""))
    return 0 if summary["score_without_equivalent"] >= args.target else 1


def run_python(extra: list[str]) -> int:
    mutmut = Path(sys.executable).with_name("mutmut")
    rc = subprocess.run([str(mutmut), "run", *extra], cwd=ROOT).returncode
    subprocess.run([str(mutmut), "results"], cwd=ROOT)
    from .python_score import report
    print(report(ROOT / "mutants"))
    return rc


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m mutation")
    sub = parser.add_subparsers(dest="what", required=True)
    sql = sub.add_parser("sql", help="mutants of sql/, one at a time")
    sql.add_argument("--sample", type=int, default=0, help="a random sample of this many mutants")
    sql.add_argument("--seed", type=int, default=0)
    sql.add_argument("--only", help="only the mutants of files matching this glob, e.g. 'sql/marts/*'")
    sql.add_argument("--names", help="a file of mutant names, one a line (e.g. the survivors of a run)")
    sql.add_argument("--workers", type=int, default=2, help="pytest workers for each test run")
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
