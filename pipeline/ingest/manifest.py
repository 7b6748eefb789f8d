"""Campaign manifests: the context a tool's output lacks.

Every campaign folder under ``raw_data/<area>/<campaign>/`` holds a
``manifest.yaml`` (format: raw_data/README.md). This module turns all of them
into two tables: ``raw_campaigns`` (one row per campaign) and ``raw_files`` (one
row per file found or listed, with its format, context and a status saying
whether it can be parsed at all: listed, unlisted, missing, no_manifest,
bad_manifest).
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

import yaml

AREAS = ("deployments", "p2p")
NOT_DATA = {"README.md", "manifest.yaml"}


@dataclass
class FileEntry:
    source_file: str          # relative to raw_data/
    campaign: str | None
    format: str | None
    status: str               # listed | unlisted | missing | no_manifest | bad_manifest
    reason: str | None = None
    context: dict = field(default_factory=dict)
    size_bytes: int | None = None
    sha256: str | None = None


@dataclass
class Campaign:
    campaign: str
    area: str
    kind: str | None
    title: str | None
    date: str | None
    provenance: str | None
    hosts: dict
    links: dict
    params: dict
    manifest_file: str


def sha256_of(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _campaign_dirs(raw_data: Path):
    for area in AREAS:
        base = raw_data / area
        if base.is_dir():
            for d in sorted(p for p in base.iterdir() if p.is_dir()):
                yield area, d


def _data_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*")
                  if p.is_file() and p.name not in NOT_DATA and not p.name.startswith("."))


def _load_yaml(path: Path) -> dict:
    try:
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark else str(path)
        raise ValueError(f"{where}: expected valid YAML, found {getattr(exc, 'problem', exc)}") from None
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path}: expected UTF-8 YAML, found byte 0x{exc.object[exc.start]:02x}") from None
    if not isinstance(doc, dict):
        raise ValueError(f"{path}:1: expected a mapping with campaign/files, found {type(doc).__name__}")
    for key in ("campaign", "files"):
        if key not in doc:
            raise ValueError(f"{path}: expected a '{key}' key, found keys {sorted(doc)}")
    if not isinstance(doc["files"], list):
        raise ValueError(f"{path}: expected 'files' to be a list, found {type(doc['files']).__name__}")
    return doc


def scan(raw_data: Path) -> tuple[list[Campaign], list[FileEntry]]:
    """Read every manifest; never raises on bad input, records it instead."""
    campaigns: list[Campaign] = []
    files: list[FileEntry] = []
    for area, folder in _campaign_dirs(raw_data):
        rel = lambda p: p.relative_to(raw_data).as_posix()  # noqa: E731
        present = {rel(p): p for p in _data_files(folder)}
        manifest = folder / "manifest.yaml"
        if not manifest.exists():
            for name in present:
                files.append(FileEntry(name, folder.name, None, "no_manifest",
                                       f"{rel(folder)}: no manifest.yaml gives this file its context"))
            continue
        try:
            doc = _load_yaml(manifest)
        except ValueError as exc:
            for name in present:
                files.append(FileEntry(name, folder.name, None, "bad_manifest", str(exc)))
            continue
        name = str(doc["campaign"])
        campaigns.append(Campaign(
            campaign=name, area=area, kind=doc.get("kind"), title=doc.get("title"),
            date=str(doc["date"]) if doc.get("date") is not None else None,
            provenance=doc.get("provenance"), hosts=doc.get("hosts") or {},
            links=doc.get("links") or {}, params=doc.get("params") or {},
            manifest_file=rel(manifest)))
        listed: set[str] = set()
        for i, item in enumerate(doc["files"]):
            if not isinstance(item, dict) or "path" not in item or "format" not in item:
                files.append(FileEntry(f"{rel(manifest)}#files[{i}]", name, None, "bad_manifest",
                                       f"{rel(manifest)}: files[{i}] needs 'path' and 'format', "
                                       f"found {item!r}"))
                continue
            source = rel(folder / item["path"])
            if source in listed:
                files.append(FileEntry(source, name, item["format"], "bad_manifest",
                                       f"{rel(manifest)}: {item['path']} is listed twice"))
                continue
            listed.add(source)
            context = item.get("context") or {}
            if source in present:
                files.append(FileEntry(source, name, str(item["format"]), "listed", None, context))
            else:
                files.append(FileEntry(source, name, str(item["format"]), "missing",
                                       f"{rel(manifest)} lists {item['path']}, which does not exist",
                                       context))
        for source in sorted(set(present) - listed):
            files.append(FileEntry(source, name, None, "unlisted",
                                   f"{source}: not listed in {rel(manifest)}, so its context is unknown"))
    for entry in files:
        path = raw_data / entry.source_file
        if entry.status != "missing" and path.is_file():
            entry.size_bytes = path.stat().st_size
            entry.sha256 = sha256_of(path)
    return campaigns, files


def write_tables(con, campaigns: list[Campaign], files: list[FileEntry]) -> None:
    con.execute("""create or replace table raw_campaigns (
        campaign varchar, area varchar, kind varchar, title varchar, date date,
        provenance varchar, hosts json, links json, params json, manifest_file varchar)""")
    con.executemany("insert into raw_campaigns values (?,?,?,?,?,?,?,?,?,?)", [
        (c.campaign, c.area, c.kind, c.title, c.date, c.provenance,
         json.dumps(c.hosts, sort_keys=True, default=str), json.dumps(c.links, sort_keys=True, default=str),
         json.dumps(c.params, sort_keys=True, default=str), c.manifest_file) for c in campaigns])
    con.execute("""create or replace table raw_files (
        source_file varchar, campaign varchar, format varchar, manifest_status varchar,
        reason varchar, context json, size_bytes bigint, sha256 varchar)""")
    con.executemany("insert into raw_files values (?,?,?,?,?,?,?,?)", [
        (f.source_file, f.campaign, f.format, f.status, f.reason,
         json.dumps(f.context, sort_keys=True, default=str), f.size_bytes, f.sha256) for f in files])
