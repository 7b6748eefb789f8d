"""The benchmark's targets (issue "Fast, streaming, incremental and parallel builds"). Each
returns rows of ``Result``: what was measured, against what, the ratio and the target."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from . import generate
from .measure import ROOT, Sample, child, command, interleaved


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


def sample_text(sample: Sample) -> str:
    return f"{sample.median:.2f} s (median of {len(sample.seconds)})"


def netdev(work: Path, size_mb: int, runs: int) -> list[Result]:
    capture = work / f"capture-{size_mb}MB.netdev"
    if not capture.exists():
        generate.netdev_capture(capture, size_mb * 10**6)
    got = interleaved({
        "ours": ("ingest_file", "netdev", capture, work / "store-netdev"),
        "check_split": ("netdev_scan", capture, "check_split"),
        "split": ("netdev_scan", capture, "split"),
        "match": ("netdev_scan", capture, "match"),
    }, runs=runs)
    ours, scan = got["ours"], got["check_split"]
    return [
        Result(f"netdev ingest throughput, {size_mb} MB capture", f"ingest {sample_text(ours)}",
               f"DuckDB line scan: interface lines matched by the format's regexp and their "
               f"counters split out {sample_text(scan)} (without the regexp: {got['split'].median:.2f} s, "
               f"{got['split'].median / ours.median:.2f}×; the regexp alone: "
               f"{got['match'].median:.2f} s)", round(scan.median / ours.median, 2), 0.7, True),
        Result(f"netdev ingest peak RSS (MB), {size_mb} MB capture", f"{ours.peak:.0f} MB",
               "whole process, imports included", round(ours.peak), 1536, False),
    ]


def _ping_parse_check(path: Path, want: dict) -> str:
    """'' when the parser reads the run as its statistics say; else what differs (a speed-up
    must not change a parse). jc on the whole text is the plain path of the corpus tests
    (tests/ingest/formats/ping/test_ping_corpus.py): on a million lines it takes minutes."""
    from pipeline.ingest.formats import ping as ping_format
    (row,) = ping_format.parse(path)
    return "; ".join(f"{k}: {row[k]} (the file says {want[k]})" for k in want if row[k] != want[k])


def ping(work: Path, lines: int, runs: int) -> list[Result]:
    results = []
    for dialect in generate.PING_DIALECTS:
        path = work / f"ping-{lines}-lines-{dialect.replace(' ', '_')}.txt"
        want = generate.ping_run(path, lines, dialect=dialect)
        ours = child("ingest_file", "ping", path, work / "store-ping", runs=runs)
        wrong = _ping_parse_check(path, want)
        parse = f"parse as the file's statistics: {'same' if not wrong else 'DIFFERENT: ' + wrong}"
        results += [
            Result(f"ping ingest (s), {lines:,}-line file, {dialect}", f"ingest {sample_text(ours)}",
                   parse, round(ours.median, 2) if not wrong else float("inf"), 5.0, False),
            Result(f"ping ingest peak RSS (MB), {lines:,}-line file, {dialect}",
                   f"{ours.peak:.0f} MB", "whole process, imports included",
                   round(ours.peak, 0), 300, False)]
    return results


def _tree(work: Path) -> Path:
    from pipeline.commands.in_process import copy_tree
    tree = work / "tree"
    shutil.rmtree(tree, ignore_errors=True)
    copy_tree(ROOT, tree)
    return tree


def empty_warehouse(tree: Path):
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
    make_docs = [sys.executable, "-m", "pipeline.commands.build"]
    bare = command([sys.executable, "-m", "bench.bare", str(tree)], runs=runs, env=env,
                   before=empty_warehouse(tree))
    full = command([*make_docs, "--force"], runs=runs, env=env, before=empty_warehouse(tree),
                   ok=(0, 3))
    noop = command(make_docs, runs=runs, env=env, ok=(0, 3))
    return [
        Result("full build from an empty warehouse", f"make docs {sample_text(full)}",
               f"bare script {sample_text(bare)}", round(full.median / bare.median, 2), 1.5, False),
        Result("no-op rebuild, share of a full build", f"make docs again {sample_text(noop)}",
               f"full build {full.median:.2f} s", round(noop.median / full.median, 3), 0.10, False),
        Result("no-op rebuild (s)", f"make docs again {sample_text(noop)}", "",
               round(noop.median, 2), 2.0, False),
    ]


def _derived_bytes(tree: Path, home: Path) -> int:
    """Everything a build keeps besides its inputs and docs/: warehouse and raw store, site
    builds, staging, and the Dagster instance."""
    folders = [tree / n for n in (".warehouse", ".site-builds", ".docs-staging")] + [home]
    return sum(p.lstat().st_size for f in folders if f.exists() for p in f.rglob("*")
               if p.is_file() and not p.is_symlink())


def disk(work: Path, builds: int) -> list[Result]:
    """Disk use after ``builds`` real builds (``--force``, the site included, recorded in one
    Dagster instance as make docs records them) against the use after the first."""
    tree = _tree(work)
    empty_warehouse(tree)()
    home = work / "disk-dagster-home"
    shutil.rmtree(home, ignore_errors=True)
    home.mkdir(parents=True)
    shutil.copy(ROOT / "config" / "dagster.yaml", home / "dagster.yaml")
    env = {**os.environ, "INTERCONNECT_ROOT": str(tree), "DAGSTER_HOME": str(home)}
    first = 0
    for n in range(builds):
        done = subprocess.run([sys.executable, "-m", "pipeline.commands.build", "--force"],
                              cwd=ROOT, env=env, capture_output=True, text=True)
        if done.returncode not in (0, 3):
            raise RuntimeError(f"build {n + 1} of the disk target failed: {done.stderr[-2000:]}")
        first = first or _derived_bytes(tree, home)
    last = _derived_bytes(tree, home)
    return [Result(f"disk use after {builds} builds, share of one build's",
                   f"{last / 1e6:.0f} MB after {builds} builds",
                   f"{first / 1e6:.0f} MB after one (warehouse, raw store, site builds, Dagster "
                   f"instance)", round(last / first, 2), 2.0, False)]


def startup(runs: int) -> list[Result]:
    dagster = child("import_module_timed", "dagster", runs=runs)
    ours = child("import_module_timed", "pipeline.definitions", runs=runs)
    return [Result("start-up: import pipeline.definitions", f"{sample_text(ours)}",
                   f"import dagster {sample_text(dagster)}", round(ours.median / dagster.median, 2), 2.0,
                   False)]


def scale_tree(work: Path, campaigns: int, size_mb: int, tree: Path | None = None) -> Path:
    """A tree (``tree``, or one under ``work``) of ``campaigns`` deployment campaigns, each one
    /proc/net/dev capture of ``size_mb`` (one generated file, hard-linked into every campaign:
    the same bytes, a raw file of its own in each)."""
    tree = tree or work / f"scale-{campaigns}x{size_mb}MB"
    capture = work / f"capture-{size_mb}MB.netdev"
    if not capture.exists():
        generate.netdev_capture(capture, size_mb * 10**6)
    for k in range(campaigns):
        folder = tree / "raw_data" / "deployments" / f"scale-{k}"
        (folder / "netdev").mkdir(parents=True, exist_ok=True)
        target = folder / "netdev" / "head.netdev"
        if not target.exists():
            os.link(capture, target)
        (folder / "manifest.yaml").write_text(
            f"campaign: scale-{k}\nkind: deployment\nprovenance: captured\ntitle: bench\n"
            "hard_links: allowed\n"          # every name of the capture is the bench's own
            "files:\n  - {path: netdev/head.netdev, format: netdev, context: {host: head}}\n")
    return tree


def not_ingested(project) -> list[str]:
    """Each file a campaign lists that was not ingested with rows, with why: a bench whose
    captures were refused (as every hard link was once) times empty campaigns, so its target
    must not count."""
    from pipeline.ingest.store import FILE_COLUMNS
    from pipeline.util import scratch
    from pipeline.warehouse.steps import Layout
    layout = Layout(project)
    store, tables = layout.store, [f.table for f in layout.formats.values()]
    bad = []
    con = scratch.cursor()
    try:
        for campaign in store.campaigns():
            parsed = {e["source_file"]: e for e in store.registry(campaign, tables)}
            relation = store.relation(campaign, "raw_files", FILE_COLUMNS)
            for source, status, reason in con.execute(
                    f"select source_file, manifest_status, reason from ({relation}) t").fetchall():
                entry = parsed.get(source, {})
                if status != "listed" or entry.get("status") != "ok" or not entry.get("rows_ingested"):
                    bad.append(f"{source}: {status if status != 'listed' else entry.get('status', 'not parsed')}"
                               f" ({reason or entry.get('reason') or 'no rows'})")
    finally:
        con.close()
    return bad


def require_ingested(project) -> None:
    """Stop the bench when a generated campaign's file was not ingested (``not_ingested``)."""
    from pipeline.warehouse.steps import Layout
    if not Layout(project).store.campaigns():
        raise SystemExit("bench: no campaign was ingested, so the target would time nothing")
    if bad := not_ingested(project):
        raise SystemExit("bench: the generated campaigns were not ingested, so the target would "
                         "time empty campaigns: " + "; ".join(bad))


def parallel(work: Path, runs: int, campaigns: int = 8, size_mb: int = 250,
             write_csv: bool = True) -> list[Result]:
    """The raw layer of ``campaigns`` × ``size_mb`` netdev captures: in-process, one step
    after another, against the multiprocess executor with 2 processes; every step's DuckDB
    has one thread in both (a step per core). The raw layers they leave must be equal."""
    from pipeline.orchestration.raw_digest import raw_digest
    from pipeline.project import Project
    tree = scale_tree(work, campaigns, size_mb)
    home = work / "scale-dagster-home"

    def fresh():
        for name in (".warehouse", "site", ".site-builds"):
            shutil.rmtree(tree / name, ignore_errors=True)

    argv = [sys.executable, "-m", "pipeline.commands.scale_out", "--raw-only"]
    env = {"INTERCONNECT_ROOT": str(tree), "DAGSTER_HOME": str(home),
           "INTERCONNECT_PARSE_THREADS": "1"}
    # One Dagster instance for every run, as a user has one (make dev, make docs): created and
    # its campaign partitions added (by pipeline.commands.launch_args, as make launch does) before the
    # first timed run, so no run pays for either
    shutil.rmtree(home, ignore_errors=True)
    home.mkdir(parents=True)
    shutil.copy(ROOT / "config" / "dagster.yaml", home / "dagster.yaml")   # as make docs
    subprocess.run([sys.executable, "-m", "pipeline.commands.launch_args"], check=True, cwd=ROOT,
                   env={**os.environ, **env}, capture_output=True)
    configs = {"in_process": ("in_process", "1"), "multiprocess": ("multiprocess:2", "1"),
               "in_process_all_cores": ("in_process", "")}
    samples = {name: Sample([], [0.0]) for name in configs}
    digests = {}
    for _ in range(runs):                 # rounds: a slower spell of the machine hits all alike
        for name, (executor, threads) in configs.items():
            one = command(argv, runs=1, before=fresh,
                          env={**env, "INTERCONNECT_EXECUTOR": executor,
                               "INTERCONNECT_PARSE_THREADS": threads})
            samples[name].seconds.extend(one.seconds)
            digests[name] = raw_digest(Project(tree))
            require_ingested(Project(tree))
    same = digests["in_process"] == digests["multiprocess"] == digests["in_process_all_cores"]
    serial, multi = samples["in_process"], samples["multiprocess"]
    ratio = serial.median / multi.median if same else 0.0
    if write_csv:
        _write_scale_out(configs, samples, same, campaigns, size_mb)
    return [Result(f"parallel ingest, {campaigns} campaigns × {size_mb} MB netdev",
                   f"multiprocess executor, 2 processes, 1 DuckDB thread a step: {sample_text(multi)}; "
                   f"raw layers {'identical' if same else '**differ**'}",
                   f"in-process, 1 DuckDB thread: {sample_text(serial)} (in-process with every core "
                   f"for DuckDB: {samples['in_process_all_cores'].median:.2f} s)",
                   round(ratio, 2), 1.6, True)]


SCALE_OUT_CSV = ROOT / "raw_data" / "reference" / "pipeline_scale_out.csv"


def _write_scale_out(configs: dict, samples: dict, same: bool, campaigns: int,
                     size_mb: int) -> None:
    """The measured rows the Scaling out page shows (raw_data/reference/pipeline_scale_out.csv)."""
    import csv
    import datetime as dt
    import platform

    import duckdb
    cores = os.cpu_count() or 1
    labels = {"in_process": "in-process, one DuckDB thread a step",
              "multiprocess": "multiprocess executor, 2 processes, one DuckDB thread a step",
              "in_process_all_cores": "in-process, every core for DuckDB"}
    base = samples["in_process"].median
    today = f"{dt.datetime.now(dt.timezone.utc):%Y-%m-%d}"
    with open(SCALE_OUT_CSV, "w", newline="", encoding="utf-8") as fh:
        out = csv.writer(fh, lineterminator="\n")
        out.writerow(["configuration", "executor", "processes", "parse_threads_per_step",
                      "campaigns", "capture_bytes", "runs", "median_s", "min_s", "max_s",
                      "speedup_ratio", "raw_layer_identical", "measured_on", "sort_order",
                      "source"])
        for order, (name, (executor, threads)) in enumerate(configs.items(), start=1):
            seconds = samples[name].seconds
            processes = int(executor.partition(":")[2] or 1)
            out.writerow([labels[name], executor.partition(":")[0], processes,
                          int(threads) if threads else cores, campaigns, size_mb * 10**6,
                          len(seconds), f"{samples[name].median:.2f}", f"{min(seconds):.2f}",
                          f"{max(seconds):.2f}", f"{base / samples[name].median:.2f}",
                          "true" if same else "false", today, order,
                          f"make bench (bench/targets.py, parallel) on {cores} cores, Python "
                          f"{platform.python_version()}, DuckDB "
                          f"{duckdb.__version__}: wall time of "
                          f"python -m pipeline.commands.scale_out --raw-only from an empty raw store"])
