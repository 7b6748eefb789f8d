"""``python -m bench [--quick] [--only netdev,ping,builds,startup,parallel,models,disk,scaling] [--work DIR]``

Generates its inputs in ``--work`` (default ``.bench/``, gitignored), runs each comparison
side by side (medians of ``--runs``, default 3), prints a table, writes the rows of the targets
it ran into bench/README.md between the result markers, and exits 1 when a target is missed.
``--quick`` uses small inputs (a smoke run, not the targets' sizes).
"""
from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import sys
from pathlib import Path

from . import models_parallel, scaling, targets
from .measure import ROOT

README = Path(__file__).with_name("README.md")
BEGIN, END = "<!-- results: begin -->", "<!-- results: end -->"


HEADER = ["| target | measured | baseline | value | wanted | | run |",
          "|---|---|---|---:|---:|---|---|"]


def row(r, stamp: str = "") -> str:
    return (f"| {r.target} | {r.measured} | {r.baseline or '—'} | {r.value:g} | {r.wanted} | "
            f"{'met' if r.passed else '**missed**'} | {stamp} |")


def table(results) -> str:
    return "\n".join([*HEADER, *(row(r) for r in results)])


def write_readme(results, args) -> None:
    """Replace the rows of the targets that ran (a row per target; rows of targets this run
    did not measure stay, each with the date of the run that measured it)."""
    text = README.read_text(encoding="utf-8")
    head, _, rest = text.partition(BEGIN)
    old, _, tail = rest.partition(END)
    rows = [line for line in old.splitlines() if line.startswith("| ") and line not in HEADER]
    stamp = (f"{dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M} UTC, {os.cpu_count()} cores, "
             f"Python {platform.python_version()}")
    measured = [row(r, stamp) for r in results]
    kept = [line for line in rows
            if not any(line.startswith(f"| {r.target} |") for r in results)]
    rows = measured + kept          # this run's rows first, in the order they were measured
    README.write_text(head + BEGIN + "\n" + "\n".join([*HEADER, *rows]) + "\n" + END + tail,
                      encoding="utf-8")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench")
    ap.add_argument("--only", default="netdev,ping,builds,startup,parallel,models,disk,scaling")
    ap.add_argument("--disk-builds", type=int, default=50)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--work", default=str(ROOT / ".bench"))
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--netdev-mb", type=int, default=1024)
    args = ap.parse_args(argv)
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    only = set(args.only.split(","))
    netdev_mb = 20 if args.quick else args.netdev_mb
    results = []
    if "netdev" in only:
        results += targets.netdev(work, netdev_mb, args.runs)
    if "ping" in only:
        results += targets.ping(work, 50_000 if args.quick else 1_000_000, args.runs)
    if "builds" in only:
        results += targets.builds(work, args.runs)
    if "parallel" in only:
        results += (targets.parallel(work, args.runs, campaigns=2, size_mb=5, write_csv=False)
                    if args.quick else targets.parallel(work, args.runs))
    if "models" in only:
        results += models_parallel.parallel_models(work, 1 if args.quick else args.runs,
                                                   campaigns=2 if args.quick else 8,
                                                   size_mb=5 if args.quick else 250,
                                                   write_csv=not args.quick)
    if "disk" in only:
        results += targets.disk(work, 3 if args.quick else args.disk_builds)
    if "scaling" in only:
        got = scaling.measure(work, 1 if args.quick else args.runs,
                              sizes=(1, 2) if args.quick else scaling.SIZES)
        if not args.quick:
            scaling.write_csv(got, args.runs)
        results += scaling.results(got)
    if "startup" in only:
        results += targets.startup(max(args.runs, 5))
    print(table(results))
    if not args.quick:
        write_readme(results, args)
    missed = [r.target for r in results if not r.passed]
    if missed:
        print(f"missed: {'; '.join(missed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
