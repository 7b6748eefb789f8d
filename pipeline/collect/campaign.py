"""A campaign folder as the collectors write it: tool outputs plus manifest.yaml.

The ingester trusts what it finds (raw_data/README.md), so a collector must
never leave a half-written campaign behind. Two rules give that:

* every output file is written to a hidden temp file in the same folder and
  renamed into place (rename is atomic within a file system; the ingester's
  scan skips dot files, so a temp file left by a hard kill is never read);
* the manifest is updated last, under an exclusive lock on the folder (the
  netdev samplers of two hosts or namespaces may finish at the same instant),
  again through temp file + rename.

A collector first gathers everything in memory (or an anonymous temp file),
then calls :func:`commit` once, so a failing tool writes nothing at all.
"""
from __future__ import annotations

import datetime as dt
import fcntl
import os
import shlex
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, Callable

import yaml

from pipeline.util.atomic import atomic_write

MANIFEST = "manifest.yaml"
TOP_KEYS = ("campaign", "kind", "title", "date", "provenance", "hosts", "links", "params", "files")


class CollectError(Exception):
    """A collector cannot do its job; the message is the one line the user sees."""


@dataclass
class Output:
    """One file a collector produces: where it goes, how to fill it, its manifest entry."""

    path: str                              # relative to the campaign folder
    format: str                            # a FORMAT.name from pipeline/ingest/
    context: dict
    data: bytes | None = None              # small outputs: the bytes
    writer: Callable[[BinaryIO], None] | None = None   # big outputs: stream into the file
    # neither: a file already in the folder (collect scaffold), only listed

    @property
    def in_place(self) -> bool:
        return self.data is None and self.writer is None


@dataclass
class Campaign:
    """Campaign-level facts a collector run contributes to the manifest."""

    folder: Path
    campaign: str
    kind: str | None = None
    title: str | None = None
    date: str | None = None
    hosts: dict = field(default_factory=dict)    # host -> {role: ...}
    links: dict = field(default_factory=dict)    # link id -> {label: ..., class: ...}
    params: dict = field(default_factory=dict)   # campaign-level values (setup, commands)


def utc_iso(unix_s: float) -> str:
    """Wall-clock instants in the manifest: ISO 8601 UTC, microseconds."""
    return dt.datetime.fromtimestamp(unix_s, dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def command_line(argv: list[str]) -> str:
    return shlex.join(str(a) for a in argv)


@contextmanager
def _locked(folder: Path):
    # flock on the directory itself: no lock file that the ingester would
    # have to ignore, and the lock dies with the process.
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def _merge(doc: dict, camp: Campaign, outputs: list[Output]) -> dict:
    if doc.get("campaign") not in (None, camp.campaign):
        raise CollectError(f"{camp.folder / MANIFEST}: belongs to campaign "
                           f"{doc['campaign']!r}, not {camp.campaign!r}")
    if doc.get("provenance") not in (None, "captured"):
        raise CollectError(f"{camp.folder / MANIFEST}: campaign is {doc['provenance']}; "
                           "collect captured data into a campaign folder of its own")
    doc["campaign"] = camp.campaign
    for key in ("kind", "title", "date"):
        value = getattr(camp, key)
        if doc.get(key) is None and value is not None:
            doc[key] = value
    doc["provenance"] = "captured"
    if camp.params:
        doc["params"] = dict(sorted({**(doc.get("params") or {}), **camp.params}.items()))
    for key in ("hosts", "links"):
        merged = dict(doc.get(key) or {})
        for name, attrs in getattr(camp, key).items():
            before = dict(merged.get(name) or {})
            given = {k: v for k, v in attrs.items() if v is not None}
            if isinstance(given.get("interfaces"), dict):   # each host's run adds its own
                given["interfaces"] = dict(sorted({**(before.get("interfaces") or {}),
                                                   **given["interfaces"]}.items()))
            merged[name] = {**before, **given}
        if merged:
            doc[key] = dict(sorted(merged.items()))
    files = {f["path"]: f for f in doc.get("files") or [] if isinstance(f, dict) and "path" in f}
    for out in outputs:
        files[out.path] = {"path": out.path, "format": out.format,
                           "context": dict(sorted(out.context.items()))}
    doc["files"] = [files[p] for p in sorted(files)]
    # A fixed key order keeps the manifest readable and its diffs small.
    return {k: doc[k] for k in TOP_KEYS if k in doc} | {k: v for k, v in doc.items() if k not in TOP_KEYS}


def read_manifest(manifest: Path) -> dict:
    if not manifest.exists():
        return {}
    try:
        doc = yaml.safe_load(manifest.read_text(encoding="utf-8")) or {}
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise CollectError(f"{manifest}: not readable YAML ({exc.__class__.__name__})") from None
    if not isinstance(doc, dict):
        raise CollectError(f"{manifest}: not a manifest mapping")
    return doc


def check(camp: Campaign) -> None:
    """Refuse early (before a long capture) a campaign the results could not join."""
    _merge(read_manifest(camp.folder / MANIFEST), camp, [])


def commit(camp: Campaign, outputs: list[Output], quiet: bool = False) -> list[Path]:
    """Write every output, then merge their entries into manifest.yaml; say what was written
    (one line per file, then the manifest) unless ``quiet``."""
    camp.folder.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    with _locked(camp.folder):
        manifest = camp.folder / MANIFEST
        doc = read_manifest(manifest)
        merged = _merge(doc, camp, outputs)     # validate before touching any file
        try:
            for out in (o for o in outputs if not o.in_place):
                target = camp.folder / out.path
                target.parent.mkdir(parents=True, exist_ok=True)
                fill = out.writer or (lambda fh, data=out.data: fh.write(data))
                atomic_write(target, fill)
                written.append(target)
        except BaseException:
            # An output that failed half way takes the ones written before it
            # with it, unless they were already listed (then they are old data).
            listed = {f["path"] for f in doc.get("files") or [] if isinstance(f, dict)}
            for path in written:
                if path.relative_to(camp.folder).as_posix() not in listed:
                    path.unlink(missing_ok=True)
            raise
        text = yaml.safe_dump(merged, sort_keys=False, allow_unicode=True, width=100)
        atomic_write(manifest, lambda fh: fh.write(text.encode("utf-8")))
    if not quiet:
        for out, path in zip([o for o in outputs if not o.in_place], written):
            print(f"wrote {path} ({out.format}, {path.stat().st_size:,} bytes)")
        print(f"manifest {manifest}: "
              f"{len(merged.get('files') or [])} file(s) listed")
    return written
