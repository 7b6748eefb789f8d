"""Keep ``ethtool IFACE`` output for each interface of the campaign.

The interface must exist in this host's (or network namespace's) view;
otherwise nothing is written. File: ``ethtool/<host>-<iface>.txt``.
"""
from __future__ import annotations

import argparse
import socket

from pipeline.collect import tools
from pipeline.collect.campaign import CollectError, Output, command_line, commit, utc_iso
from pipeline.collect.common import add_campaign_args, base_context, campaign_from, name


def add_parser(sub) -> None:
    p = sub.add_parser("ethtool", help="ethtool IFACE for each interface",
                       description=__doc__.split("\n\n")[0])
    add_campaign_args(p)
    p.add_argument("--iface", required=True, action="append", type=name,
                   help="interface name; repeat for several")
    p.set_defaults(run=main)


def main(args: argparse.Namespace) -> int:
    camp = campaign_from(args)
    tools.require("ethtool")
    for iface in args.iface:
        try:
            socket.if_nametoindex(iface)
        except OSError:
            raise CollectError(f"ethtool: no such interface {iface!r} on this host") from None
    version = tools.version("ethtool")
    outputs = []
    for iface in sorted(set(args.iface)):
        argv = ["ethtool", iface]
        r = tools.run(argv, timeout=30)
        if r.returncode != 0 or b"Settings for" not in r.stdout:
            raise tools.failure(r, f"cannot read settings of {iface}")
        ctx = base_context(args) | {
            "interface": iface, "command": command_line(argv), "tool_version": version,
            "started": utc_iso(r.started), "ended": utc_iso(r.ended),
        }
        outputs.append(Output(f"ethtool/{args.host}-{iface}.txt", "ethtool", ctx, data=r.stdout))
    commit(camp, outputs)
    return 0
