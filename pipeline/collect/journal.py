"""Export a systemd unit's journal for a time window: ``journalctl -u UNIT -o json``.

One JSON object per line, as journalctl writes it (the ``journal`` parser
reads it). A window with no entries is an error, not an empty file, because
an empty file would only be quarantined later. File:
``journal/<host>-<unit>.json``.
"""
from __future__ import annotations

import argparse

from pipeline.collect import tools
from pipeline.collect.campaign import CollectError, Output, command_line, commit, utc_iso
from pipeline.collect.common import add_campaign_args, base_context, campaign_from


def add_parser(sub) -> None:
    p = sub.add_parser("journal", help="journalctl -u UNIT --since --until -o json",
                       description=__doc__.split("\n\n")[0])
    add_campaign_args(p)
    p.add_argument("--unit", required=True, help="systemd unit, e.g. llama-server.service")
    p.add_argument("--since", required=True, help='window start, journalctl syntax ("2026-08-17 10:00:00")')
    p.add_argument("--until", required=True, help="window end, journalctl syntax")
    p.add_argument("--directory", help="read journal files from this directory (journalctl -D)")
    p.set_defaults(run=main)


def main(args: argparse.Namespace) -> int:
    camp = campaign_from(args)
    version = tools.version("journalctl")
    argv = ["journalctl", "-u", args.unit, "--since", args.since, "--until", args.until,
            "-o", "json", "--no-pager"]
    if args.directory:
        argv += ["-D", args.directory]
    r = tools.run(argv, timeout=600)
    if r.returncode != 0:
        raise tools.failure(r, f"cannot read the journal of {args.unit}")
    lines = [ln for ln in r.stdout.splitlines() if ln.strip()]
    if not lines or not lines[0].lstrip().startswith(b"{"):
        raise CollectError(f"journalctl: no entries for unit {args.unit} between "
                           f"{args.since} and {args.until}")
    unit = args.unit.replace("/", "_")
    ctx = base_context(args) | {
        "unit": args.unit, "since": args.since, "until": args.until,
        "command": command_line(argv), "tool_version": version,
        "started": utc_iso(r.started), "ended": utc_iso(r.ended),
    }
    commit(camp, [Output(f"journal/{args.host}-{unit}.json", "journal", ctx, data=r.stdout)])
    return 0
