"""Run ``iperf3 -J`` against a server in both directions (the second with ``-R``).

This host is the iperf3 client (``--host``); the server is ``--peer`` at
``--server``. Without ``-R`` the client sends (host -> peer); with ``-R`` the
server sends (peer -> host). Both runs must succeed before either file is
written: a refused connection or an iperf3 error JSON writes nothing.
Files: ``iperf3/<sender>-to-<receiver>[-<link>].json``, iperf3's JSON verbatim.
"""
from __future__ import annotations

import argparse
import json

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
    p.set_defaults(run=main)


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
    camp = campaign_from(args)
    version = tools.version("iperf3")
    plan = {"send": [False], "receive": [True], "both": [False, True]}[args.direction]
    outputs = []
    for reverse in plan:
        argv = _argv(args, reverse)
        r = tools.run(argv, timeout=args.time + 60)
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
