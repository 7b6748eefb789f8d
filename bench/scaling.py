"""The scaling target (issue "A change costs what it changed"): build time against the number
of campaigns, on generated trees of N = 5, 20 and 50 campaigns.

Each tree is a copy of this one whose campaigns are copies of five shipped ones under new names
(``MIX``, in turn: N = 5 has one of each, N = 50 ten), generated under ``--work`` and never
committed. In each round, for each N: a full build from an empty warehouse (``make docs
--force``), then one campaign added (a sixth copy, ``added-one``) and ``make docs`` timed, then
that campaign removed and the tree built again, untimed, so the next round starts from N. The
rounds interleave the sizes, so a slower spell of the machine hits them alike. Targets, each a
ratio of this run's medians: adding one campaign at N = 50 costs at most 1.3 times adding it at
N = 5, and a full build's cost per campaign at N = 50 is at most its cost at N = 5. The rows go
to ``raw_data/reference/pipeline_scaling.csv`` for the Scaling out page's chart and table.
"""
from __future__ import annotations

import csv
import datetime as dt
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from .measure import ROOT
from .targets import Result, empty_warehouse

MIX = ("deployments/lab-rpc-tbf100", "deployments/qwen38-27b-pp", "labs/lab-rpc-shape-h256",
       "p2p/aws-p3-tc", "labs/lab-rpc-series-h512")
SIZES = (5, 20, 50)
ADDED = "added-one"
SCALING_CSV = ROOT / "raw_data" / "reference" / "pipeline_scaling.csv"
_RAN = re.compile(r"campaign tables: (\d+) built, (\d+) kept.*?pages: (\d+) rendered, (\d+) kept",
                  re.DOTALL)
_SITE = re.compile(r"site/: .*?pages: (\d+) converted, (\d+) kept")


def what_ran(err: str) -> str:
    """What an add-one build built and kept, from its summary lines: tables, pages and, when
    the page cache is on, the site's pages converted and kept."""
    found, site = _RAN.search(err), _SITE.search(err)
    if not found:
        return ""
    out = "campaign tables {} built, {} kept; pages {} rendered, {} kept".format(*found.groups())
    return out + ("; site pages {} converted, {} kept".format(*site.groups()) if site else "")


def _copy_campaign(tree: Path, source: str, name: str) -> None:
    area, original = source.split("/")
    target = tree / "raw_data" / area / name
    shutil.copytree(ROOT / "raw_data" / source, target, symlinks=True)
    manifest = target / "manifest.yaml"
    text = manifest.read_text(encoding="utf-8")
    manifest.write_text(re.sub(r"(?m)^campaign: .*$", f"campaign: {name}", text, count=1),
                        encoding="utf-8")
    assert f"campaign: {name}" in manifest.read_text(encoding="utf-8"), original


def bare_tree(tree: Path) -> Path:
    """A copy of this tree at ``tree`` (replaced) without any campaign."""
    from pipeline.commands.in_process import copy_tree
    shutil.rmtree(tree, ignore_errors=True)
    copy_tree(ROOT, tree)
    for area in ("deployments", "labs", "p2p"):
        for folder in (tree / "raw_data" / area).iterdir():
            if folder.is_dir():
                shutil.rmtree(folder)
    return tree


def make_tree(work: Path, n: int) -> Path:
    """A copy of this tree with ``n`` campaigns, copies of MIX in turn."""
    tree = bare_tree(work / f"scaling-{n}")
    for k in range(n):
        source = MIX[k % len(MIX)]
        _copy_campaign(tree, source, f"{source.split('/')[1]}-n{k:02d}")
    return tree


def _build(tree: Path, *args: str) -> tuple[float, str]:
    """Wall time and stderr of ``make docs`` (the build command) on ``tree``."""
    env = {**os.environ, "INTERCONNECT_ROOT": str(tree), "DAGSTER_HOME": ""}
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "pipeline.commands.build", *args], cwd=ROOT,
                         env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if out.returncode not in (0, 3):
        raise RuntimeError(f"build of {tree} exited {out.returncode}:\n{out.stderr[-3000:]}")
    return seconds, out.stderr


def measure(work: Path, runs: int, sizes=SIZES) -> dict:
    """{n: {"full": [s…], "add": [s…], "ran": summary of the last add}}"""
    trees = {n: make_tree(work, n) for n in sizes}
    got = {n: {"full": [], "add": [], "ran": ""} for n in sizes}
    for _ in range(runs):
        for n, tree in trees.items():
            empty_warehouse(tree)()
            got[n]["full"].append(_build(tree, "--force")[0])
            _copy_campaign(tree, MIX[0], ADDED)
            seconds, err = _build(tree)
            got[n]["add"].append(seconds)
            got[n]["ran"] = what_ran(err)
            shutil.rmtree(tree / "raw_data" / MIX[0].split("/")[0] / ADDED)
            _build(tree)                            # back to n campaigns, untimed
    return got


def write_csv(got: dict, runs: int) -> None:
    import duckdb
    cores = os.cpu_count() or 1
    today = f"{dt.datetime.now(dt.timezone.utc):%Y-%m-%d}"
    source = (f"make bench (bench/scaling.py) on {cores} cores, Python "
              f"{platform.python_version()}, DuckDB {duckdb.__version__}: wall time of "
              f"python -m pipeline.commands.build, site included, on a generated tree")
    with open(SCALING_CSV, "w", newline="", encoding="utf-8") as fh:
        out = csv.writer(fh, lineterminator="\n")
        out.writerow(["campaigns", "operation", "runs", "median_s", "min_s", "max_s",
                      "what_ran", "measured_on", "sort_order", "source"])
        order = 0
        for operation, key in (("full build", "full"), ("one campaign added", "add")):
            for n in sorted(got):
                order += 1
                s = got[n][key]
                out.writerow([n, operation, len(s), f"{statistics.median(s):.2f}",
                              f"{min(s):.2f}", f"{max(s):.2f}",
                              got[n]["ran"] if key == "add" else "every table and page",
                              today, order, source])


def results(got: dict) -> list[Result]:
    small, large = min(got), max(got)
    med = {n: {k: statistics.median(got[n][k]) for k in ("full", "add")} for n in got}
    add_ratio = med[large]["add"] / med[small]["add"]
    per = {n: med[n]["full"] / n for n in got}
    return [
        Result(f"one campaign added at N = {large}, against N = {small}",
                    f"make docs after adding one at N = {large}: {med[large]['add']:.2f} s "
                    f"({got[large]['ran']})",
                    f"at N = {small}: {med[small]['add']:.2f} s ({got[small]['ran']})",
                    round(add_ratio, 2), 1.3, False),
        Result(f"full build's cost per campaign at N = {large}, against N = {small}",
                    f"{med[large]['full']:.2f} s / {large} = {per[large]:.2f} s",
                    f"{med[small]['full']:.2f} s / {small} = {per[small]:.2f} s",
                    round(per[large] / per[small], 2), 1.0, False),
    ]
