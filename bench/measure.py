"""Runs measured jobs in fresh interpreters and takes medians."""
from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@dataclass
class Sample:
    seconds: list[float]
    peak_rss_mb: list[float]

    @property
    def median(self) -> float:
        return statistics.median(self.seconds)

    @property
    def peak(self) -> float:
        return max(self.peak_rss_mb)


def child(job: str, *args: str, runs: int = 3, env: dict | None = None) -> Sample:
    """``runs`` runs of ``python -m bench.child job args…``."""
    seconds, peaks = [], []
    for _ in range(runs):
        out = subprocess.run([sys.executable, "-m", "bench.child", job, *map(str, args)],
                             cwd=ROOT, env={**os.environ, **(env or {})}, check=True,
                             capture_output=True, text=True)
        last = json.loads(out.stdout.strip().splitlines()[-1])
        seconds.append(last["seconds"])
        peaks.append(last["peak_rss_mb"])
    return Sample(seconds, peaks)


def interleaved(jobs: dict[str, tuple], runs: int = 3) -> dict[str, Sample]:
    """``runs`` rounds of every job in turn (``name: (job, *args)``), so a machine that gets
    slower or faster during the run moves every job's median alike."""
    samples = {name: Sample([], []) for name in jobs}
    for _ in range(runs):
        for name, (job, *args) in jobs.items():
            one = child(job, *args, runs=1)
            samples[name].seconds.extend(one.seconds)
            samples[name].peak_rss_mb.extend(one.peak_rss_mb)
    return samples


def command(argv: list[str], runs: int = 3, cwd: Path = ROOT, env: dict | None = None,
            before=None, ok=(0,)) -> Sample:
    """Wall time of ``runs`` runs of a command (``before()`` runs untimed before each)."""
    seconds = []
    for _ in range(runs):
        if before:
            before()
        start = time.perf_counter()
        out = subprocess.run(argv, cwd=cwd, env={**os.environ, **(env or {})},
                             capture_output=True, text=True)
        seconds.append(time.perf_counter() - start)
        if out.returncode not in ok:
            raise RuntimeError(f"{' '.join(argv)} exited {out.returncode}:\n{out.stderr[-3000:]}")
    return Sample(seconds, [0.0])
