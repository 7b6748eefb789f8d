"""``collect scaffold``: write a campaign's manifest.yaml from the tool outputs in its folder.

Every file the manifest does not list yet is read by the parsers to learn its format and what
the tool wrote into it (hosts, interface, service, tasks, the date); the command then asks only
for what no tool can know: which host is which end of a transfer, each host's role, each
link's label, Ethernet class, shaping and interfaces, and which journal tasks §0 reads.
Answers come from ``--set KEY=VALUE``, a terminal, or (``--defaults``, or no terminal) the
default each question shows. Files and fields the manifest already has are kept.
"""
from __future__ import annotations

import argparse
import csv
import sys
import time
from pathlib import Path

from pipeline.collect import questions as qs
from pipeline.collect.campaign import MANIFEST, Campaign, CollectError, Output, commit, read_manifest
from pipeline.collect.common import name, rate
from pipeline.collect.readme import write_readme
from pipeline.collect.scaffold_files import LINKED, PAIRED, Found, campaign_files, examine, first_date
from pipeline.ingest.manifest import ROLES
from pipeline.project import KIND_OF_AREA, REPO_ROOT

CLASSES = REPO_ROOT / "raw_data" / "reference" / "ethernet_classes.csv"
NO_HOST = "its rows join no host (a host's figures leave it out)"
NO_LINK = "its rows join no link: the link's rate, RTT and captures leave it out"


def add_parser(sub) -> None:
    p = sub.add_parser("scaffold", help="write manifest.yaml from the files in a campaign folder",
                       description=__doc__.split("\n\n")[0])
    p.add_argument("--campaign-dir", required=True, type=Path,
                   help="the folder of tool outputs, e.g. raw_data/deployments/my-link")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="answer a question without asking, e.g. links.lan.class=1gbe "
                        "(repeat; an empty value answers 'none')")
    p.add_argument("--defaults", action="store_true",
                   help="take every question's default instead of asking (also without a terminal)")
    p.set_defaults(run=main)


def _classes() -> list[str]:
    with open(CLASSES, newline="", encoding="utf-8") as fh:
        return [row["link_class"] for row in csv.DictReader(fh)]


def _context(ask: qs.Asker, found: Found, known_links: list[str], head: str | None) -> dict:
    """The file's manifest context: what it says, then the answers for the rest."""
    ctx = dict(found.facts)
    key = f"files.{found.path}"
    if found.format in PAIRED:
        for end in ("sender", "receiver"):
            ctx[end] = ask(f"{key}.{end}", f"{found.path}: which host was the {end}",
                           found.guesses.get(end), name, NO_HOST)
    elif "host" not in ctx:
        default = found.guesses.get("host") or (head if found.format in ("env", "gguf") else None)
        ctx["host"] = ask(f"{key}.host", f"{found.path}: which host wrote it", default, name, NO_HOST)
    if found.format in LINKED:
        # a file's own name, else the campaign's only link; with several, no guess is made
        default = found.guesses.get("link") or (known_links[0] if len(known_links) == 1 else
                                                None if known_links else "lan")
        ctx["link"] = ask(f"{key}.link", f"{found.path}: the id of the link it measured", default,
                          name, NO_LINK)
        if ctx["link"] and ctx["link"] not in known_links:
            known_links.append(ctx["link"])
    return {k: v for k, v in ctx.items() if v is not None}


def _hosts(ask, kind, doc, contexts, head) -> dict:
    names = sorted({h for c in contexts for k in ("host", "sender", "receiver")
                    if (h := c.get(k))})
    hosts = {}
    for host in names:
        if (doc.get("hosts") or {}).get(host, {}).get("role"):
            continue
        default = ("head" if host == head else "worker") if kind == "deployment" and head else None
        role = ask(f"hosts.{host}.role", f"role of host {host}", default, qs.one_of(ROLES),
                   "its role is unknown: wire bytes per direction and the layer split are not "
                   "measured" if kind == "deployment" else "", optional=kind != "deployment")
        hosts[host] = {"role": role}
    return hosts


def _link(ask, link: str, have: dict, contexts: list[dict]) -> dict:
    """The link's fields the manifest does not have yet (``have``), asked for."""
    key, attrs = f"links.{link}", {}
    if "label" not in have:
        attrs["label"] = ask(f"{key}.label", f"link {link}: its label on the pages", link)
    if "class" not in have:
        attrs["class"] = ask(f"{key}.class", f"link {link}: its Ethernet class", None,
                             qs.one_of(_classes()), "no class: the link gets no what-if prediction",
                             optional=True)
    if "shaped_rate_bits_per_s" not in have and not have.get("nominal_speed"):
        shaped = ask(f"{key}.shaped_rate", f"link {link}: the rate tc shaped it to (e.g. 150mbit)",
                     None, rate, optional=True)
        if shaped:
            attrs["shaped_rate_bits_per_s"] = shaped
            attrs["qdisc"] = ask(f"{key}.qdisc", f"link {link}: the shaping qdisc", None, optional=True)
        elif "nominal_speed" not in have:
            attrs["nominal_speed"] = ask(f"{key}.nominal_speed", f"link {link}: is ethtool's "
                                         "speed the driver's fixed figure (a veth pair)", None,
                                         qs.yes_no, optional=True) or None
    on_link = {c.get(k) for c in contexts if c.get("link") == link for k in ("host", "sender", "receiver")}
    ifaces = dict(have.get("interfaces") or {})
    for host in sorted(h for h in on_link if h and h not in ifaces):
        seen = sorted({c["interface"] for c in contexts if c.get("host") == host and c.get("interface")})
        ifaces[host] = ask(f"{key}.interfaces.{host}", f"link {link}: {host}'s interface on it"
                           + (f" ({', '.join(seen)})" if len(seen) > 1 else ""),
                           seen[0] if len(seen) == 1 else None, name,
                           "ethtool's speed is not joined to the link: no share of line rate"
                           if seen else "", optional=True)
    attrs["interfaces"] = {h: i for h, i in ifaces.items() if i} or None
    return {k: v for k, v in attrs.items() if v is not None}


def _params(ask, doc, found: list[Found]) -> dict:
    params = {}
    have = doc.get("params") or {}
    journals = [f for f in found if f.format == "journal" and f.tasks]
    why = {"prefill_task": "§0's prefill reads not measured",
           "decode_task": "§0's decode reads not measured"}
    for key, what in (("prefill_task", "the prompt"), ("decode_task", "generated")):
        if key in have or not journals:
            continue
        task, tokens = max(j.tasks[key] for j in journals if key in j.tasks)
        params[key] = ask(f"params.{key}", f"the journal task §0 reads ({key}; the default has "
                          f"the most tokens {what}: {tokens:,})", task, qs.whole, why[key])
    envs = [Path(f.path).stem for f in found if f.format == "env"]
    if "service" not in have and len(envs) == 1:
        params["service"] = ask("params.service", "the env file the service reads", envs[0])
    return {k: v for k, v in params.items() if v is not None}


def scaffold(folder: Path, ask: qs.Asker) -> tuple[Campaign, list[Output], list[Found]]:
    """What to merge into the folder's manifest; nothing is written here."""
    if not folder.is_dir():
        raise CollectError(f"{folder}: no such folder")
    doc = read_manifest(folder / MANIFEST)
    listed = {f.get("path") for f in doc.get("files") or [] if isinstance(f, dict)}
    found = examine(folder, campaign_files(folder, listed))
    campaign = doc.get("campaign") or folder.resolve().name
    kind = doc.get("kind") or KIND_OF_AREA.get(folder.resolve().parent.name) or ask(
        "kind", "kind of campaign", "deployment", qs.one_of(("deployment", "p2p")))
    heads = {f.facts.get("host") for f in found if f.format == "journal"} - {None}
    head = next(iter(heads)) if len(heads) == 1 else None
    known = list(doc.get("links") or {})
    known += [g for f in found if (g := f.guesses.get("link")) and g not in known]
    readable = [f for f in found if f.format]
    contexts = [_context(ask, f, known, head) for f in readable]
    # the files listed before count too: their hosts and links may still lack a field
    every = [f.get("context") or {} for f in doc.get("files") or [] if isinstance(f, dict)] + contexts
    hosts = _hosts(ask, kind, doc, every, head)
    have = doc.get("links") or {}
    links = {link: _link(ask, link, have.get(link) or {}, every) for link in known}
    camp = Campaign(folder=folder, campaign=campaign, kind=kind,
                    title=doc.get("title") or ask("title", "the campaign's title", campaign),
                    date=doc.get("date") or ask("date", "the campaign's date", first_date(found)
                                                or time.strftime("%Y-%m-%d", time.gmtime())),
                    hosts=hosts, links=links, params=_params(ask, doc, found))
    ask.leftover()
    outputs = [Output(f.path, f.format, ctx) for f, ctx in zip(readable, contexts)]
    return camp, outputs, found


README = """# {campaign} — *captured*

Tool outputs placed in this folder by their user; `manifest.yaml` was written by
`python -m pipeline.collect scaffold`, which read each file's format and what the tool wrote
into it, and took the rest (hosts' roles, links, tasks) from the answers it lists.
"""


def main(args: argparse.Namespace) -> int:
    interactive = not args.defaults and sys.stdin.isatty()
    ask = qs.Asker(qs.parse_sets(args.set), interactive)
    camp, outputs, found = scaffold(args.campaign_dir, ask)
    commit(camp, outputs, quiet=True)
    print(f"manifest {args.campaign_dir / MANIFEST}: {len(outputs)} file(s) added")
    for line in ask.summary():
        print(line)
    for f in found:
        if f.format is None:
            print(f"  not listed: {f.path}: {f.why}")
    write_readme(args.campaign_dir, README.format(campaign=camp.campaign))
    return 0
