"""The schema of a campaign's ``manifest.yaml``, checked field by field.

A manifest gives a campaign's files the context their tools do not print (format:
raw_data/README.md). Every problem is reported with the field it is in, what is allowed and
what was found, all of them at once, so one edit fixes the file. A manifest with any problem
withholds its campaign (nothing of it is ingested) and is named on Data quality; other
campaigns build as usual.
"""
from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from pipeline.project import KIND_OF_AREA

PROVENANCE = ("reconstructed", "captured")
ROLES = ("head", "worker", "sender", "receiver")
CAMPAIGN_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
_SCALARS = (str, int, float, bool)


class ManifestError(ValueError):
    def __init__(self, manifest: str, problems: list[str]):
        self.manifest = manifest
        self.problems = problems
        super().__init__(f"{manifest}: " + "; ".join(problems))


@dataclass
class Entry:
    path: str                  # relative to the campaign folder, as written
    format: str
    context: dict = field(default_factory=dict)


@dataclass
class Campaign:
    campaign: str
    area: str
    kind: str
    title: str | None
    date: str | None
    provenance: str | None
    hosts: dict
    links: dict
    params: dict
    manifest_file: str
    entries: list[Entry] = field(default_factory=list)
    # `hard_links: allowed`: listed files with other names (hard links) are read (scan.py)
    hard_links: bool = False


def valid_campaign_name(name: str) -> bool:
    return bool(CAMPAIGN_NAME.match(name))


def _type(value) -> str:
    return "nothing" if value is None else type(value).__name__


def _scalar_map(value, where: str, problems: list[str]) -> dict:
    """A mapping of names to strings, numbers or booleans (manifest context, link attributes)."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        problems.append(f"{where}: expected a mapping of names to values, found {_type(value)}")
        return {}
    out = {}
    for key, item in value.items():
        if not isinstance(key, str):
            problems.append(f"{where}: expected text keys, found {key!r}")
        elif item is not None and not isinstance(item, _SCALARS):
            problems.append(f"{where}.{key}: expected a string or a number, found {_type(item)}")
        else:
            out[key] = item
    return out


def _relative_path(value, where: str, problems: list[str]) -> str | None:
    if not isinstance(value, str) or not value.strip():
        problems.append(f"{where}: expected a path relative to the campaign folder, "
                        f"found {_type(value) if not isinstance(value, str) else 'an empty string'}")
        return None
    pure = PurePosixPath(value)
    if pure.is_absolute() or value.startswith("~") or "\\" in value:
        problems.append(f"{where}: expected a path relative to the campaign folder, found the "
                        f"absolute path {value!r} (only files inside raw_data/ are read)")
        return None
    if ".." in pure.parts:
        problems.append(f"{where}: expected a path inside the campaign folder, found {value!r} "
                        f"(it climbs out with '..')")
        return None
    if pure.name in ("manifest.yaml", "README.md"):
        problems.append(f"{where}: {value!r} is the campaign's own {pure.name}, not a data file")
        return None
    return pure.as_posix()


def _date(value, problems: list[str]) -> str | None:
    if value is None:
        return None
    if isinstance(value, dt.datetime):
        return value.date().isoformat()
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, str):
        try:
            return dt.date.fromisoformat(value.strip()).isoformat()
        except ValueError:
            pass
    problems.append(f"date: expected an ISO date such as 2026-08-17, found {value!r}")
    return None


def _hosts(value, problems: list[str]) -> dict:
    if value is None:
        return {}
    if not isinstance(value, dict):
        problems.append(f"hosts: expected a mapping of host names to {{role: …}}, found {_type(value)}")
        return {}
    out = {}
    for name, attrs in value.items():
        where = f"hosts.{name}"
        if not isinstance(name, str):
            problems.append(f"hosts: expected host names as text, found {name!r}")
            continue
        attrs = _scalar_map(attrs, where, problems)
        role = attrs.get("role")
        if role is not None and role not in ROLES:
            problems.append(f"{where}.role: expected one of {', '.join(ROLES)}, found {role!r}")
        out[name] = attrs
    return out


def _links(value, problems: list[str]) -> dict:
    if value is None:
        return {}
    if not isinstance(value, dict):
        problems.append(f"links: expected a mapping of link ids to attributes, found {_type(value)}")
        return {}
    out = {}
    for link_id, attrs in value.items():
        where = f"links.{link_id}"
        if not isinstance(link_id, str):
            problems.append(f"links: expected link ids as text, found {link_id!r}")
            continue
        if not isinstance(attrs, dict):
            problems.append(f"{where}: expected a mapping (label, class, interfaces …), "
                            f"found {_type(attrs)}")
            continue
        interfaces = attrs.get("interfaces")
        rest = _scalar_map({k: v for k, v in attrs.items() if k != "interfaces"}, where, problems)
        if interfaces is not None:
            rest["interfaces"] = _scalar_map(interfaces, f"{where}.interfaces", problems)
        out[link_id] = rest
    return out


def _params(value, problems: list[str]) -> dict:
    if value is None:
        return {}
    if not isinstance(value, dict):
        problems.append(f"params: expected a mapping, found {_type(value)}")
        return {}
    return value


def _entries(value, problems: list[str]) -> list[Entry]:
    if not isinstance(value, list):
        problems.append(f"files: expected a list of {{path, format, context}} entries, "
                        f"found {_type(value)}")
        return []
    entries, seen = [], set()
    for i, item in enumerate(value):
        where = f"files[{i}]"
        if not isinstance(item, dict):
            problems.append(f"{where}: expected a mapping with path and format, found {_type(item)}")
            continue
        unknown = sorted(str(k) for k in item if k not in ("path", "format", "context"))
        if unknown:
            problems.append(f"{where}: expected only path, format and context, found {', '.join(unknown)}")
        path = _relative_path(item.get("path"), f"{where}.path", problems)
        fmt = item.get("format")
        if not isinstance(fmt, str) or not fmt:
            problems.append(f"{where}.format: expected a format name (iperf3, ping …), found {_type(fmt)}")
            fmt = None
        context = _scalar_map(item.get("context"), f"{where}.context", problems)
        if path is not None and path in seen:
            problems.append(f"{where}.path: {path} is listed twice")
            continue
        if path is not None and fmt is not None:
            seen.add(path)
            entries.append(Entry(path, fmt, context))
    return entries


def validate(doc, folder: str, area: str, manifest_file: str) -> Campaign:
    """A checked Campaign, or ManifestError listing every problem."""
    problems: list[str] = []
    if not isinstance(doc, dict):
        raise ManifestError(manifest_file, [f"expected a mapping with campaign, kind and files, "
                                            f"found {_type(doc)}"])
    name = doc.get("campaign")
    if name != folder:
        problems.append(f"campaign: expected the folder's name {folder!r} (each campaign folder is "
                        f"one campaign), found {name!r}")
    kind = doc.get("kind")
    if kind != KIND_OF_AREA[area]:
        problems.append(f"kind: expected {KIND_OF_AREA[area]!r} for a campaign under {area}/, found {kind!r}")
    title = doc.get("title")
    if title is not None and not isinstance(title, str):
        problems.append(f"title: expected text, found {_type(title)}")
    provenance = doc.get("provenance")
    if provenance not in PROVENANCE:
        problems.append(f"provenance: expected one of {', '.join(PROVENANCE)}, found {provenance!r}")
    date = _date(doc.get("date"), problems)
    hosts = _hosts(doc.get("hosts"), problems)
    links = _links(doc.get("links"), problems)
    params = _params(doc.get("params"), problems)
    if "files" not in doc:
        problems.append("files: expected a list of the campaign's data files, found no 'files' key")
        entries = []
    else:
        entries = _entries(doc.get("files"), problems)
    hard_links = doc.get("hard_links")
    if hard_links not in (None, "allowed"):
        problems.append(f"hard_links: expected 'allowed' (or no key), found {hard_links!r}")
    known = {"campaign", "kind", "title", "date", "provenance", "hosts", "links", "params", "files",
             "hard_links"}
    unknown = sorted(str(k) for k in doc if k not in known)
    if unknown:
        problems.append(f"expected only the keys {', '.join(sorted(known))}, found {', '.join(unknown)}")
    if problems:
        raise ManifestError(manifest_file, problems)
    return Campaign(campaign=folder, area=area, kind=kind, title=title, date=date,
                    provenance=provenance, hosts=hosts, links=links, params=params,
                    manifest_file=manifest_file, entries=entries,
                    hard_links=hard_links == "allowed")
