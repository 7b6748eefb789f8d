"""Sample ``/proc/net/dev`` at a fixed rate into one capture file (format: raw_data/README.md).

Drift-free schedule: sample k is due at ``t0 + k / rate`` on the monotonic
clock, computed from k, never from the previous sample, so a late wake-up
delays one sample and does not shift every later one. A wake-up more than a
period late skips the slots it missed instead of bursting to catch up; the
header's ``worst_gap_ms`` shows it. Each sample is stamped with the wall clock
(``@ <unix seconds>``) so it lines up with iperf3 and journal timestamps.

The header is known only at the end (achieved rate, worst gap, own CPU
cost), so samples stream into an anonymous temp file (it vanishes if the
process is killed) and the capture is assembled and renamed into place once
the run stops: after ``--duration`` or at SIGINT/SIGTERM, which end the run
cleanly at the next sample boundary.

Own cost: the CPU seconds the sampler used (user + system, getrusage) over the
run's wall time are written to the header as ``cpu_s`` and ``cpu_fraction``.
"""
from __future__ import annotations

import argparse
import os
import platform
import resource
import signal
import sys
import tempfile
import time
from dataclasses import dataclass
from typing import BinaryIO

from pipeline.collect.campaign import CollectError, Output, commit, utc_iso
from pipeline.collect.common import add_campaign_args, base_context, campaign_from, name

VERSION_LINE = b"# procnetdev-capture v1\n"


@dataclass
class Stats:
    samples: int
    started: float         # wall clock of the first sample
    ended: float
    achieved_hz: float
    worst_gap_s: float
    cpu_s: float
    wall_s: float


def _read_all(fd: int) -> bytes:
    # pread from offset 0 makes procfs regenerate the table; loop for hosts
    # with so many interfaces that it exceeds one read.
    chunks, off = [], 0
    while True:
        chunk = os.pread(fd, 65536, off)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        off += len(chunk)


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def sample(body: BinaryIO, source: str, rate_hz: float, duration_s: float | None,
           should_stop=lambda: False, on_first=lambda: None) -> Stats:
    """Write ``@ stamp`` + table per sample to ``body`` until duration or stop."""
    period = 1.0 / rate_hz
    fd = os.open(source, os.O_RDONLY)
    cpu0 = _cpu()
    t0 = time.monotonic()
    end = None if duration_s is None else t0 + duration_s + period / 2
    k, n, last, worst = 0, 0, None, 0.0
    first_wall = last_wall = 0.0
    first_mono = t0
    try:
        while not should_stop():
            due = t0 + k * period
            if end is not None and due > end:
                break
            now = time.monotonic()
            if due > now:
                time.sleep(due - now)
                if should_stop():
                    break
            wall, mono = time.time(), time.monotonic()
            table = _read_all(fd)
            body.write(b"@ %.6f\n" % wall)
            body.write(table if table.endswith(b"\n") else table + b"\n")
            if last is None:
                first_wall, first_mono = wall, mono
                on_first()
            else:
                worst = max(worst, mono - last)
            last, last_wall, n = mono, wall, n + 1
            # Next slot on the grid after now: late wake-ups skip, never burst.
            k = max(k + 1, int((time.monotonic() - t0) / period) + 1)
    finally:
        os.close(fd)
    wall_s = (last - first_mono) if last is not None else 0.0
    achieved = (n - 1) / wall_s if n > 1 and wall_s > 0 else 0.0
    return Stats(n, first_wall, last_wall, achieved, worst, _cpu() - cpu0, wall_s)


def header(host: str, rate_hz: float, s: Stats, source: str) -> bytes:
    lines = [
        VERSION_LINE.decode(),
        f"# host={host} rate_hz={rate_hz:g} achieved_hz={s.achieved_hz:.2f} "
        f"worst_gap_ms={s.worst_gap_s * 1000:.1f} started={s.started:.6f}\n",
        f"# samples={s.samples} ended={s.ended:.6f} cpu_s={s.cpu_s:.3f} "
        f"cpu_fraction={(s.cpu_s / s.wall_s if s.wall_s else 0.0):.4f} source={source} "
        f"kernel={platform.release()}\n",
    ]
    return "".join(lines).encode()


def add_parser(sub) -> None:
    p = sub.add_parser("netdev", help="sample /proc/net/dev at a fixed rate (default 50 Hz)",
                       description=__doc__.split("\n\n")[0])
    add_campaign_args(p)
    p.add_argument("--rate", type=float, default=50.0, help="samples per second (default 50)")
    p.add_argument("--duration", type=float,
                   help="seconds to sample (default: until SIGINT/SIGTERM)")
    p.add_argument("--name", type=name, help="file name stem (default: the host name)")
    p.add_argument("--source", default="/proc/net/dev", help=argparse.SUPPRESS)
    p.set_defaults(run=main)


def main(args: argparse.Namespace) -> int:
    if not args.rate > 0 or args.rate > 1000:
        raise CollectError(f"--rate {args.rate:g}: expected 0 < rate <= 1000 samples per second")
    if args.duration is not None and args.duration < 0:
        raise CollectError(f"--duration {args.duration:g}: expected >= 0 seconds")
    if not os.access(args.source, os.R_OK):
        raise CollectError(f"{args.source}: cannot read it (not Linux, or no procfs)")
    camp = campaign_from(args)
    stop = {"flag": False}

    def on_signal(signum, frame):
        stop["flag"] = True

    old = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
    # The body lives next to the campaign (same disk, no tmpfs limit) but has
    # no name: a killed sampler leaves nothing behind.
    tmp_dir = next(p for p in (args.campaign_dir, *args.campaign_dir.resolve().parents) if p.is_dir())
    with tempfile.TemporaryFile(dir=tmp_dir) as body:
        try:
            stats = sample(body, args.source, args.rate, args.duration, lambda: stop["flag"],
                           lambda: print(f"netdev: sampling {args.source} at {args.rate:g} Hz",
                                         file=sys.stderr, flush=True))
        finally:
            for s, h in old.items():
                signal.signal(s, h)
        if stats.samples == 0:
            raise CollectError("netdev: stopped before the first sample; nothing written")
        head = header(args.host, args.rate, stats, args.source)

        def write(fh):
            fh.write(head)
            body.seek(0)
            while chunk := body.read(1 << 20):
                fh.write(chunk)

        ctx = base_context(args) | {
            "command": args.command_line,
            "tool_version": f"pipeline.collect netdev (procnetdev-capture v1), Linux {platform.release()}",
            "rate_hz": args.rate,
            "started": utc_iso(stats.started),
            "ended": utc_iso(stats.ended),
        }
        stem = args.name or args.host
        commit(camp, [Output(f"netdev/{stem}.netdev", "netdev", ctx, writer=write)])
    print(f"netdev: {stats.samples} samples, achieved {stats.achieved_hz:.2f} Hz, worst gap "
          f"{stats.worst_gap_s * 1000:.1f} ms, own CPU {stats.cpu_s:.3f} s "
          f"({100 * stats.cpu_s / max(stats.wall_s, 1e-9):.2f} %)", file=sys.stderr)
    return 0
