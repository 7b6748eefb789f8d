"""The campaign models side by side (issue "A change costs what it changed", item 3): the
models of 8 campaigns built in-process, one step after another, against the multiprocess
executor with 2 processes. Each campaign builds in its own DuckDB file, so the steps share no
writer (pipeline/warehouse/campaign_files.py).

The tree is the one of the parallel ingest target (8 deployments, each a /proc/net/dev capture
of 250 MB; generated, never committed) with this checkout's SQL and reference data, parsed once
before the timing; each timed run is ``python -m pipeline.commands.scale_out``
with the campaign files removed first, so it parses nothing and builds every campaign's models
(and the template) again. The files both executors leave must hold the same rows
(pipeline/orchestration/raw_digest.py, models_digest). Target: in-process time / multiprocess
time ≥ 1.6.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from .measure import ROOT, Sample, command
from .targets import Result, require_ingested, sample_text, scale_tree

def _tree(work: Path, campaigns: int, size_mb: int) -> Path:
    from bench.scaling import bare_tree
    return scale_tree(work, campaigns, size_mb, bare_tree(work / f"models-{campaigns}x{size_mb}MB"))


def parallel_models(work: Path, runs: int, campaigns: int = 8, size_mb: int = 250,
                    write_csv: bool = True) -> list[Result]:
    from pipeline.orchestration.raw_digest import models_digest
    from pipeline.project import Project
    from pipeline.warehouse import campaign_files
    tree = _tree(work, campaigns, size_mb)
    home = work / "models-dagster-home"
    shutil.rmtree(home, ignore_errors=True)
    home.mkdir(parents=True)
    shutil.copy(ROOT / "config" / "dagster.yaml", home / "dagster.yaml")
    env = {"INTERCONNECT_ROOT": str(tree), "DAGSTER_HOME": str(home),
           "INTERCONNECT_PARSE_THREADS": "1", "INTERCONNECT_DB": ""}
    argv = [sys.executable, "-m", "pipeline.commands.scale_out"]
    subprocess.run(argv + ["--raw-only"], check=True, cwd=ROOT, capture_output=True,
                   env={**os.environ, **env})        # parsed once, untimed
    project = Project(tree)
    require_ingested(project)
    files = campaign_files.folder(project.warehouse)

    def fresh():
        shutil.rmtree(files, ignore_errors=True)
        campaign_files.path_of(project.warehouse, None).unlink(missing_ok=True)

    configs = {"in_process": "in_process", "multiprocess": "multiprocess:2"}
    samples = {name: Sample([], [0.0]) for name in configs}
    steps = {name: Sample([], [0.0]) for name in configs}
    digests = {}
    for _ in range(runs):                 # rounds: a slower spell of the machine hits both alike
        for name, executor in configs.items():
            one = command(argv, runs=1, before=fresh, env={**env, "INTERCONNECT_EXECUTOR": executor})
            samples[name].seconds.extend(one.seconds)
            steps[name].seconds.append(model_steps_seconds(home, campaigns))
            digests[name] = models_digest(project)
    same = digests["in_process"] == digests["multiprocess"] and len(digests["in_process"]) > 0
    serial, multi = samples["in_process"], samples["multiprocess"]
    ratio = serial.median / multi.median if same else 0.0
    if write_csv:
        _write_csv(configs, samples, steps, same, campaigns)
    return [Result(f"campaign models side by side, {campaigns} campaigns × {size_mb} MB netdev",
                   f"multiprocess executor, 2 processes: {sample_text(multi)}; campaign files "
                   f"{'identical' if same else '**differ**'} (the model steps alone: "
                   f"{steps['multiprocess'].median:.2f} s)",
                   f"in-process: {sample_text(serial)} (the model steps alone: "
                   f"{steps['in_process'].median:.2f} s)", round(ratio, 2), 1.6, True)]


STEP = "campaign_models.campaign_model_step["


def model_steps_seconds(home: Path, campaigns: int) -> float:
    """Wall time of the campaign model steps of the last run recorded in the Dagster instance
    at ``home``: from the first campaign's model step starting to the last one ending (Dagster's
    step records). The rest of a run (the launcher, the raw layer's checks, the template, the
    summary step) runs one step at a time in every executor."""
    from unittest import mock

    from dagster import DagsterInstance
    # the project's storage finds its folder under DAGSTER_HOME
    with mock.patch.dict(os.environ, {"DAGSTER_HOME": str(home)}), DagsterInstance.get() as instance:
        run = instance.get_runs(limit=1)[0]
        stats = [s for s in instance.get_run_step_stats(run.run_id) if s.step_key.startswith(STEP)]
    if len(stats) != campaigns or any(s.end_time is None for s in stats):
        raise SystemExit(f"bench: the last run ({run.run_id}) has {len(stats)} finished campaign "
                         f"model step(s), not {campaigns}")
    return max(s.end_time for s in stats) - min(s.start_time for s in stats)


MODELS_CSV = ROOT / "raw_data" / "reference" / "pipeline_models_scale_out.csv"


def _write_csv(configs: dict, samples: dict, steps: dict, same: bool, campaigns: int) -> None:
    """The rows the Scaling out page shows (raw_data/reference/pipeline_models_scale_out.csv)."""
    import csv
    import datetime as dt
    import platform

    import duckdb
    cores = os.cpu_count() or 1
    labels = {"in_process": "in-process, one campaign after another, one DuckDB thread a step",
              "multiprocess": "multiprocess executor, 2 processes, one DuckDB thread a step"}
    base = samples["in_process"].median
    today = f"{dt.datetime.now(dt.timezone.utc):%Y-%m-%d}"
    with open(MODELS_CSV, "w", newline="", encoding="utf-8") as fh:
        out = csv.writer(fh, lineterminator="\n")
        out.writerow(["configuration", "executor", "processes", "campaigns", "runs", "median_s",
                      "min_s", "max_s", "speedup_ratio", "steps_median_s", "steps_speedup_ratio",
                      "files_identical", "measured_on", "sort_order", "source"])
        for order, (name, executor) in enumerate(configs.items(), start=1):
            seconds = samples[name].seconds
            out.writerow([labels[name], executor.partition(":")[0],
                          int(executor.partition(":")[2] or 1), campaigns, len(seconds),
                          f"{samples[name].median:.2f}", f"{min(seconds):.2f}",
                          f"{max(seconds):.2f}", f"{base / samples[name].median:.2f}",
                          f"{steps[name].median:.2f}",
                          f"{steps['in_process'].median / steps[name].median:.2f}",
                          "true" if same else "false", today, order,
                          f"make bench (bench/models_parallel.py) on {cores} cores, Python "
                          f"{platform.python_version()}, DuckDB {duckdb.__version__}: wall time "
                          f"of python -m pipeline.commands.scale_out with every campaign file "
                          f"removed first (nothing parsed, every model built)"])
