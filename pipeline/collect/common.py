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
    g.add_argument("--kind", choices=tuple(KIND_OF_AREA.values()),
                   help="default: from the parent folder (deployments/, p2p/ or labs/)")
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
    g.add_argument("--interface", type=name,
                   help="this host's interface on the link (links.<id>.interfaces; joins ethtool)")
    if peer:
        g.add_argument("--peer-interface", type=name, help="the peer's interface on the link")
    g.add_argument("--shaped-rate", type=rate,
                   help="the rate tc shaped the link to, e.g. 150mbit, 1gbit or bits/s "
                        "(links.<id>.shaped_rate_bits_per_s: share of line rate is taken of it)")
    g.add_argument("--qdisc", help='the shaping qdisc, e.g. "tbf rate 150mbit burst 32kbit latency 400ms"')
    g.add_argument("--nominal-speed", action="store_true", default=None,
                   help="ethtool's speed is the driver's fixed figure (a veth pair), not a line rate")


_RATE = re.compile(r"^(\d+(?:\.\d+)?)\s*([kmg]?)(?:bit|bps)?(?:/s)?$", re.IGNORECASE)


def rate(value: str) -> int:
    """A rate as tc writes it (150mbit, 1gbit, 500kbit) or bits/s, as bits/s."""
    m = _RATE.match(value.strip())
    if not m:
        raise argparse.ArgumentTypeError(f"{value!r}: expected a rate like 150mbit, 1gbit or bits/s")
    bits = float(m.group(1)) * {"": 1, "k": 1e3, "m": 1e6, "g": 1e9}[m.group(2).lower()]
    if bits <= 0:
        raise argparse.ArgumentTypeError(f"{value!r}: a rate above 0")
    return int(bits)


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
    link_only = [o for o in ("interface", "peer_interface", "shaped_rate", "qdisc", "nominal_speed")
                 if getattr(args, o, None) is not None]
    if link_only and not args.link:
        raise CollectError(f"--{link_only[0].replace('_', '-')} describes a link: give --link too")
    if args.link:
        interfaces = {args.host: args.interface}
        if getattr(args, "peer", None):
            interfaces[args.peer] = getattr(args, "peer_interface", None)
        links[args.link] = {"label": args.link_label, "class": args.link_class,
                            "interfaces": {h: i for h, i in interfaces.items() if i} or None,
                            "shaped_rate_bits_per_s": args.shaped_rate, "qdisc": args.qdisc,
                            "nominal_speed": args.nominal_speed}
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
