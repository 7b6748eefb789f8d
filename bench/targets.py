"""The benchmark's targets (issue "Fast, streaming, incremental and parallel builds"). Each
returns rows of ``Result``: what was measured, against what, the ratio and the target."""
from __future__ import annotations

import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from . import generate
from .measure import ROOT, Sample, child, command


@dataclass
class Result:
    target: str
    measured: str
    baseline: str
    value: float
    limit: float
    higher_is_better: bool

    @property
    def passed(self) -> bool:
        return self.value >= self.limit if self.higher_is_better else self.value <= self.limit

    @property
    def wanted(self) -> str:
        return ("≥ " if self.higher_is_better else "≤ ") + f"{self.limit:g}"


def _s(sample: Sample) -> str:
    return f"{sample.median:.2f} s (median of {len(sample.seconds)})"


def netdev(work: Path, size_mb: int, runs: int) -> list[Result]:
    capture = work / f"capture-{size_mb}MB.netdev"
    if not capture.exists():
        generate.netdev_capture(capture, size_mb * 10**6)
    scan = child("netdev_duckdb_scan", capture, runs=runs)
    light = child("netdev_light_scan", capture, runs=runs)
    ours = child("ingest_file", "netdev", capture, work / "store-netdev", runs=runs)
    ratio = scan.median / ours.median
    return [
        Result(f"netdev ingest throughput, {size_mb} MB capture", f"ingest {_s(ours)}",
               f"DuckDB line scan with the counters split out {_s(scan)} (match only: "
               f"{light.median:.2f} s)", round(ratio, 2), 0.7, True),
        Result(f"netdev ingest peak RSS (MB), {size_mb} MB capture", f"{ours.peak:.0f} MB",
               "whole process, imports included", round(ours.peak), 1536, False),
    ]


def ping(work: Path, lines: int, runs: int) -> list[Result]:
    path = work / f"ping-{lines}-lines.txt"
    if not path.exists():
        generate.ping_run(path, lines)
    ours = child("ingest_file", "ping", path, work / "store-ping", runs=runs)
    return [Result(f"ping ingest (s), {lines:,}-line file", f"ingest {_s(ours)}", "",
                   round(ours.median, 2), 5.0, False),
            Result(f"ping ingest peak RSS (MB), {lines:,}-line file", f"{ours.peak:.0f} MB",
                   "whole process, imports included",
                   round(ours.peak, 0), 300, False)]


def _tree(work: Path) -> Path:
    from pipeline.build import copy_tree
    tree = work / "tree"
    shutil.rmtree(tree, ignore_errors=True)
    copy_tree(ROOT, tree)
    return tree


def _empty_warehouse(tree: Path):
    def reset():
        for name in (".warehouse", ".site-builds", "site", ".docs-staging", ".bench-staging"):
            p = tree / name
            if p.is_symlink() or p.is_file():
                p.unlink()
            elif p.exists():
                shutil.rmtree(p)
    return reset


def builds(work: Path, runs: int) -> list[Result]:
    """Full build against the bare script, then the no-op rebuild against the full build."""
    tree = _tree(work)
    env = {"INTERCONNECT_ROOT": str(tree), "DAGSTER_HOME": ""}
    make_docs = [sys.executable, "-m", "pipeline.cli_build"]
    bare = command([sys.executable, "-m", "bench.bare", str(tree)], runs=runs, env=env,
                   before=_empty_warehouse(tree))
    full = command([*make_docs, "--force"], runs=runs, env=env, before=_empty_warehouse(tree),
                   ok=(0, 3))
    noop = command(make_docs, runs=runs, env=env, ok=(0, 3))
    return [
        Result("full build from an empty warehouse", f"make docs {_s(full)}",
               f"bare script {_s(bare)}", round(full.median / bare.median, 2), 1.5, False),
        Result("no-op rebuild, share of a full build", f"make docs again {_s(noop)}",
               f"full build {full.median:.2f} s", round(noop.median / full.median, 3), 0.10, False),
        Result("no-op rebuild (s)", f"make docs again {_s(noop)}", "",
               round(noop.median, 2), 2.0, False),
    ]


def startup(runs: int) -> list[Result]:
    dagster = child("import_module_timed", "dagster", runs=runs)
    ours = child("import_module_timed", "pipeline.definitions", runs=runs)
    return [Result("start-up: import pipeline.definitions", f"{_s(ours)}",
                   f"import dagster {_s(dagster)}", round(ours.median / dagster.median, 2), 2.0,
                   False)]
