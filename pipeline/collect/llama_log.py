"""Run llama-server (or rpc-server) outside systemd and keep its log with the time of each line.

``python -m pipeline.collect llama-log --campaign-dir … --host head -- llama-server -m … --rpc …``
starts the command, reads its stdout and stderr as they come and writes every line in the shape
of ``journalctl -o short-iso-precise`` (``<local time with microseconds and offset> <host>
<program>[<pid>]: <line>``), which the ``journal`` parser reads like a journal export, so its
windows can be matched with the netdev captures of the same hosts. The command stops at Ctrl-C,
SIGTERM or ``--duration`` (or when it exits by itself; it gets SIGTERM, then SIGKILL after
STOP_GRACE_S, even when this collector was started ignoring SIGTERM); the log is written when it stops,
atomically with its manifest entry. A line the command ends with ``\r`` (a progress line) keeps
its text without the ``\r``. File: ``journal/<host>-<program>.log``.
"""
from __future__ import annotations

import argparse
import datetime as dt
import os
import selectors
import signal
import subprocess
import time
from pathlib import Path

from pipeline.collect.campaign import CollectError, Output, command_line, commit, utc_iso
from pipeline.collect.common import add_campaign_args, base_context, campaign_from


def add_parser(sub) -> None:
    p = sub.add_parser("llama-log", help="run llama-server/rpc-server and keep its timestamped log",
                       description=__doc__.split("\n\n")[0])
    add_campaign_args(p)
    p.add_argument("--duration", type=float, help="stop the command after this many seconds")
    p.add_argument("--ready", help="print 'ready' on stdout once a log line contains this text "
                                   "(a script waits for it before it sends requests)")
    p.add_argument("command", nargs=argparse.REMAINDER, help="-- the command to run")
    p.set_defaults(run=main)


def stamp(now: float) -> str:
    """journalctl -o short-iso-precise's time: local time, microseconds, ±HH:MM offset."""
    t = dt.datetime.fromtimestamp(now).astimezone()
    offset = t.utcoffset() or dt.timedelta(0)
    minutes = int(offset.total_seconds() // 60)
    sign = "+" if minutes >= 0 else "-"
    return f"{t:%Y-%m-%dT%H:%M:%S}.{t.microsecond:06d}{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"


STOP_GRACE_S = 10.0


def capture(argv: list[str], host: str, duration: float | None, ready: str | None = None):
    """Run ``argv``; returns (log bytes, pid, exit code, start, end)."""
    program = Path(argv[0]).name
    stop = {"now": False, "since": None}

    def _stop(signum, frame):
        stop["now"] = True
    # handled before the program starts: a handled signal is default in the program, while one
    # this collector was started ignoring (a background job, a parent that ignores SIGTERM) would
    # be ignored by the program too, and terminate() would never stop it
    old = {s: signal.signal(s, _stop) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    except OSError as exc:
        for s, handler in old.items():
            signal.signal(s, handler)
        raise CollectError(f"cannot start {argv[0]}: {exc.strerror}") from None
    started = time.time()
    sel = selectors.DefaultSelector()
    for stream in (proc.stdout, proc.stderr):
        os.set_blocking(stream.fileno(), False)
        sel.register(stream, selectors.EVENT_READ)
    lines: list[bytes] = []
    partial = {proc.stdout: b"", proc.stderr: b""}
    announced = False
    try:
        while sel.get_map():
            if stop["now"] or (duration is not None and time.time() - started >= duration):
                stop["now"] = True
                stop["since"] = stop["since"] or time.time()
                if proc.poll() is None:
                    # SIGTERM, then SIGKILL once the grace period is over (a program that
                    # ignores SIGTERM still stops; its output so far is kept)
                    if time.time() - stop["since"] < STOP_GRACE_S:
                        proc.terminate()
                    else:
                        proc.kill()
            for key, _ in sel.select(timeout=0.2):
                chunk = key.fileobj.read1(65536) if hasattr(key.fileobj, "read1") else key.fileobj.read()
                if not chunk:
                    sel.unregister(key.fileobj)
                    continue
                data = partial[key.fileobj] + chunk
                *complete, partial[key.fileobj] = data.split(b"\n")
                now = time.time()
                for raw in complete:
                    prefix = f"{stamp(now)} {host} {program}[{proc.pid}]: ".encode()
                    lines.append(prefix + raw.rstrip(b"\r") + b"\n")
                    if ready and not announced and ready.encode() in raw:
                        print("ready", flush=True)
                        announced = True
            if proc.poll() is not None and not sel.select(timeout=0):
                break
    finally:
        for s, handler in old.items():
            signal.signal(s, handler)
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
    for stream, rest in partial.items():
        if rest:
            lines.append(f"{stamp(time.time())} {host} {program}[{proc.pid}]: ".encode() + rest + b"\n")
    return b"".join(lines), proc.pid, proc.wait(), started, time.time()


def main(args: argparse.Namespace) -> int:
    argv = [a for a in args.command if a != "--"] if args.command else []
    if not argv:
        raise CollectError("give the command to run after --, e.g. -- llama-server -m model.gguf")
    camp = campaign_from(args)
    data, pid, code, started, ended = capture(argv, args.host, args.duration, args.ready)
    if not data:
        raise CollectError(f"{argv[0]} printed nothing (exit code {code}); nothing written")
    program = Path(argv[0]).name
    ctx = base_context(args) | {"command": command_line(argv), "pid": pid, "exit_code": code,
                                "started": utc_iso(started), "ended": utc_iso(ended),
                                "captured_by": "python -m pipeline.collect llama-log"}
    path = f"journal/{args.host}-{program}.log"
    commit(camp, [Output(path, "journal", ctx, data=data)])
    n = data.count(b"\n")
    print(f"{program}: {n} lines kept (pid {pid}, exit code {code})")
    return 0
