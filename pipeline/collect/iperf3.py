"""Run ``iperf3 -J`` against a server in both directions (the second with ``-R``).

This host is the iperf3 client (``--host``); the server is ``--peer`` at
``--server``. Without ``-R`` the client sends (host -> peer); with ``-R`` the
server sends (peer -> host). Both runs must succeed before either file is
written: a refused connection or an iperf3 error JSON writes nothing.

A run that measured nothing because the server could not take it yet is tried again, for up to
``--connect-wait`` seconds: a persistent ``iperf3 -s`` closes its listening socket after each
test and opens a new one, so the second direction, started right after the first, can find the
port refused or its connection reset (esnet/iperf PR #2066); a server running another client's
test answers "the server is busy". Any other error, or one after intervals were measured, fails
at once.
Files: ``iperf3/<sender>-to-<receiver>[-<link>].json``, iperf3's JSON verbatim.
"""
from __future__ import annotations

import argparse
import json
import time

from pipeline.collect import tools
from pipeline.collect.campaign import CollectError, Output, command_line, commit, utc_iso
from pipeline.collect.common import add_campaign_args, base_context, campaign_from


def add_parser(sub) -> None:
    p = sub.add_parser("iperf3", help="iperf3 -J both directions against a server",
                       description=__doc__.split("\n\n")[0])
    add_campaign_args(p, peer=True)
    p.add_argument("--server", required=True, help="address of the iperf3 server (iperf3 -c)")
    p.add_argument("--port", type=int, help="server port (iperf3 -p; default 5201)")
    p.add_argument("-t", "--time", type=int, default=10, help="seconds per direction (iperf3 -t)")
    p.add_argument("-P", "--parallel", type=int, default=1, help="parallel streams (iperf3 -P)")
    p.add_argument("--direction", choices=("both", "send", "receive"), default="both",
                   help="send: host->peer; receive: peer->host (-R); default both")
    p.add_argument("--connect-wait", type=float, default=5.0, metavar="SECONDS",
                   help="how long to keep trying a server that refuses, resets or is busy "
                        "before anything is measured (default 5; 0: one try)")
    p.set_defaults(run=main)


# iperf3's errors for a test the server could not take yet (nothing measured)
NOT_YET = ("Connection refused", "Connection reset by peer", "the server is busy")
RETRY_PAUSE_S = 0.25


def _not_taken_yet(r: tools.Run) -> bool:
    """Whether the run is an iperf3 error JSON of a test that never started (see the module)."""
    try:
        doc = json.loads(r.stdout)
    except ValueError:
        return False
    if not isinstance(doc, dict) or not isinstance(doc.get("error"), str) or doc.get("intervals"):
        return False
    return any(reason in doc["error"] for reason in NOT_YET)


def _run(argv: list[str], args: argparse.Namespace) -> tools.Run:
    """One iperf3 run, tried again while the server has not taken it, for ``--connect-wait``."""
    deadline = time.monotonic() + args.connect_wait
    while True:
        r = tools.run(argv, timeout=args.time + 60)
        if not _not_taken_yet(r) or time.monotonic() + RETRY_PAUSE_S > deadline:
            return r
        time.sleep(RETRY_PAUSE_S)


def _argv(args, reverse: bool) -> list[str]:
    argv = ["iperf3", "-c", args.server, "-J", "-t", str(args.time), "-P", str(args.parallel)]
    if args.port:
        argv += ["-p", str(args.port)]
    return argv + (["-R"] if reverse else [])


def _check(r: tools.Run) -> None:
    try:
        doc = json.loads(r.stdout)
    except ValueError:
        raise tools.failure(r, "no JSON result") from None
    if isinstance(doc, dict) and doc.get("error"):
        raise CollectError(f"iperf3: {doc['error']} ({' '.join(r.argv)})")
    if r.returncode != 0 or not isinstance(doc, dict) or "sum_received" not in (doc.get("end") or {}):
        raise tools.failure(r, "no end.sum_received in its JSON")


def main(args: argparse.Namespace) -> int:
    if args.time < 1 or args.parallel < 1:
        raise CollectError("-t and -P must be at least 1")
    if args.connect_wait < 0:
        raise CollectError("--connect-wait must be 0 or more seconds")
    camp = campaign_from(args)
    version = tools.version("iperf3")
    plan = {"send": [False], "receive": [True], "both": [False, True]}[args.direction]
    outputs = []
    for reverse in plan:
        argv = _argv(args, reverse)
        r = _run(argv, args)
        _check(r)
        sender, receiver = (args.peer, args.host) if reverse else (args.host, args.peer)
        suffix = f"-{args.link}" if args.link else ""
        ctx = base_context(args) | {
            "sender": sender, "receiver": receiver, "server": args.server,
            "command": command_line(argv),
            "tool_version": version, "started": utc_iso(r.started), "ended": utc_iso(r.ended),
        }
        outputs.append(Output(f"iperf3/{sender}-to-{receiver}{suffix}.json", "iperf3", ctx, data=r.stdout))
    commit(camp, outputs)
    return 0
