"""Command-line options every collector shares: which campaign, host and link.

The tools' outputs do not say which host is the head or which link was used;
these options are where the user says it, and they land in manifest.yaml.
"""
from __future__ import annotations

import argparse
import datetime as dt
import re
import time
from pathlib import Path

from pipeline.collect.campaign import Campaign, CollectError, check
from pipeline.project import KIND_OF_AREA

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


def name(value: str) -> str:
    """Host, link and interface names end up in file names: keep them plain."""
    if not _NAME.match(value):
        raise argparse.ArgumentTypeError(f"{value!r}: use letters, digits, '.', '_' or '-'")
    return value


def add_campaign_args(p: argparse.ArgumentParser, peer: bool = False) -> None:
    g = p.add_argument_group("campaign")
    g.add_argument("--campaign-dir", required=True, type=Path,
                   help="campaign folder, e.g. raw_data/deployments/my-link (created if missing)")
    g.add_argument("--campaign", help="campaign id (default: the folder name)")
    g.add_argument("--kind", choices=("deployment", "p2p"),
                   help="default: from the parent folder (deployments/ or p2p/)")
    g.add_argument("--title", help="campaign title (default: the campaign id)")
    g.add_argument("--date", help="campaign date YYYY-MM-DD (default: today, UTC)")
    g.add_argument("--host", required=True, type=name, help="name of the host this runs on")
    g.add_argument("--role", help="this host's role, e.g. head or worker")
    if peer:
        g.add_argument("--peer", required=True, type=name, help="name of the host at the other end")
        g.add_argument("--peer-role", help="the peer's role, e.g. head or worker")
    g.add_argument("--link", type=name, help="link id, e.g. gbe25")
    g.add_argument("--link-label", help='human label of the link, e.g. "2.5 GbE"')
    g.add_argument("--link-class", help="link class id, e.g. 1gbe, 2.5gbe, 10gbe")


def campaign_from(args: argparse.Namespace) -> Campaign:
    folder = args.campaign_dir
    kind = args.kind or KIND_OF_AREA.get(folder.resolve().parent.name)
    if args.date is not None:
        try:
            dt.date.fromisoformat(args.date)
        except ValueError:
            raise CollectError(f"--date {args.date!r}: expected YYYY-MM-DD") from None
    campaign = args.campaign or folder.resolve().name
    hosts = {args.host: {"role": args.role}}
    if getattr(args, "peer", None):
        hosts[args.peer] = {"role": args.peer_role}
    links = {}
    if args.link:
        links[args.link] = {"label": args.link_label, "class": args.link_class}
    camp = Campaign(folder=folder, campaign=campaign, kind=kind, title=args.title or campaign,
                    date=args.date or time.strftime("%Y-%m-%d", time.gmtime()),
                    hosts=hosts, links=links)
    check(camp)
    return camp


def base_context(args: argparse.Namespace) -> dict:
    ctx = {"host": args.host}
    if args.link:
        ctx["link"] = args.link
    return ctx
