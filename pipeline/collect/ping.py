"""Run ``ping -c N`` to the peer and keep its text output verbatim.

iputils ping exits 1 when replies were lost; a run with a statistics block is
still a measurement (100 % loss is data), so only a run without one (unknown
host, bad option, no permission) is an error. File:
``ping/<host>-to-<peer>[-<link>].txt``.
"""
from __future__ import annotations

import argparse

from pipeline.collect import tools
from pipeline.collect.campaign import CollectError, Output, command_line, commit, utc_iso
from pipeline.collect.common import add_campaign_args, base_context, campaign_from


def add_parser(sub) -> None:
    p = sub.add_parser("ping", help="ping -c N the peer, keep the text",
                       description=__doc__.split("\n\n")[0])
    add_campaign_args(p, peer=True)
    p.add_argument("--target", required=True, help="address of the peer to ping")
    p.add_argument("-c", "--count", type=int, default=20, help="echo requests (ping -c; default 20)")
    p.add_argument("-i", "--interval", type=float, help="seconds between requests (ping -i)")
    p.set_defaults(run=main)


def main(args: argparse.Namespace) -> int:
    if args.count < 1:
        raise CollectError("-c must be at least 1")
    camp = campaign_from(args)
    version = tools.version("ping", "-V")
    argv = ["ping", "-c", str(args.count)]
    if args.interval is not None:
        argv += ["-i", f"{args.interval:g}"]
    argv.append(args.target)
    r = tools.run(argv, timeout=args.count * max(args.interval or 1.0, 1.0) + 30)
    if b"packets transmitted" not in r.stdout or r.returncode not in (0, 1):
        raise tools.failure(r, f"no statistics from pinging {args.target}")
    suffix = f"-{args.link}" if args.link else ""
    ctx = base_context(args) | {
        "sender": args.host, "receiver": args.peer, "target": args.target,
        "command": command_line(argv), "tool_version": version,
        "started": utc_iso(r.started), "ended": utc_iso(r.ended),
    }
    commit(camp, [Output(f"ping/{args.host}-to-{args.peer}{suffix}.txt", "ping", ctx, data=r.stdout)])
    return 0
