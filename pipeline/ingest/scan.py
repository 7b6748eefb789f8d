"""What a campaign folder holds, and what may be read of it.

A campaign is a folder ``raw_data/<area>/<name>/`` (area: deployments or p2p) with a
``manifest.yaml``. Only regular files inside ``raw_data/`` are ever opened or hashed: a
symbolic link (listed or not, to a file or to a folder), a device or a FIFO is recorded as
*refused* and never followed, so nothing outside the tree can reach the warehouse or the site,
not even its size or first line. A file name that is not UTF-8 is recorded with its bytes
escaped and not opened.

Each file gets one status: ``listed`` (the manifest gives it a format and context),
``unlisted``, ``missing`` (listed but absent), ``refused``, ``bad_name``,
``duplicate`` (same bytes and same context as another listed file: one measurement listed
twice), ``no_manifest`` or ``bad_manifest``.
"""
from __future__ import annotations

import difflib
import json
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from pipeline.ingest import safe_yaml
from pipeline.ingest.digest import folder_digest
from pipeline.ingest.manifest import Campaign, ManifestError, valid_campaign_name, validate
from pipeline.project import CAMPAIGN_AREAS
from pipeline.util.hashing import file_sha, sha256_of

NOT_DATA = {"README.md", "manifest.yaml"}


@dataclass
class FileEntry:
    source_file: str          # relative to raw_data/
    campaign: str | None
    format: str | None
    status: str
    reason: str | None = None
    context: dict = field(default_factory=dict)
    size_bytes: int | None = None
    sha256: str | None = None


@dataclass
class Scan:
    """One campaign folder: its manifest (None when unusable) and every file's status."""
    area: str
    name: str
    campaign: Campaign | None
    files: list[FileEntry]
    problem: str | None = None     # why the manifest is unusable
    content_sha256: str | None = None   # the folder's digest (pipeline/ingest/digest.py)
    manifest_sha256: str | None = None  # the manifest's bytes, when it is a regular file


def shown_name(name: str) -> str:
    """A file name as text: undecodable bytes (surrogate escapes from os.listdir) as \\xNN."""
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def _is_utf8(name: str) -> bool:
    try:
        name.encode("utf-8")
        return True
    except UnicodeEncodeError:
        return False


def _regular(path: Path) -> bool:
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


def campaign_folders(raw_data: Path) -> list[tuple[str, str, Path]]:
    """(area, name, folder) of every folder that can be a campaign, in a stable order."""
    found = []
    for area in CAMPAIGN_AREAS:
        base = raw_data / area
        if not base.is_dir() or base.is_symlink():
            continue
        for entry in sorted(os.scandir(base), key=lambda e: e.name):
            if entry.is_dir(follow_symlinks=False) and valid_campaign_name(entry.name):
                found.append((area, entry.name, Path(entry.path)))
    return found


def rejected_folders(raw_data: Path) -> list[FileEntry]:
    """Entries under an area that cannot be campaigns (symlinks, bad names, stray files)."""
    out = []
    for area in CAMPAIGN_AREAS:
        base = raw_data / area
        if not base.is_dir() or base.is_symlink():
            continue
        for entry in sorted(os.scandir(base), key=lambda e: e.name):
            rel = f"{area}/{shown_name(entry.name)}"
            if entry.is_symlink():
                out.append(FileEntry(rel, None, None, "refused",
                                     f"{rel}: a symbolic link; only regular files and folders "
                                     f"inside raw_data/ are read"))
            elif entry.is_dir(follow_symlinks=False) and not valid_campaign_name(entry.name):
                out.append(FileEntry(rel, None, None, "bad_name",
                                     f"{rel}: expected a campaign folder name of letters, digits, "
                                     f"'.', '_' or '-' (at most 64, starting with a letter or "
                                     f"digit), found {shown_name(entry.name)!r}"))
            elif entry.name != "README.md" and not entry.is_dir(follow_symlinks=False):
                out.append(FileEntry(rel, None, None, "unlisted",
                                     f"{rel}: a file outside any campaign folder"))
    return out


def _present(raw_data: Path, folder: Path) -> tuple[dict[str, Path], list[FileEntry]]:
    """Regular data files under ``folder`` (never following links), and refused entries."""
    files: dict[str, Path] = {}
    refused: list[FileEntry] = []
    for dirpath, dirnames, filenames in os.walk(folder, followlinks=False):
        base = Path(dirpath)
        for d in list(dirnames):
            if (base / d).is_symlink():
                rel = (base / d).relative_to(raw_data).as_posix()
                refused.append(FileEntry(shown_name(rel), None, None, "refused",
                                         f"{shown_name(rel)}: a symbolic link to a folder; "
                                         f"links are not followed"))
                dirnames.remove(d)
        dirnames.sort()
        for name in sorted(filenames):
            path = base / name
            rel = path.relative_to(raw_data).as_posix()
            if (path.parent == folder and name in NOT_DATA) or name.startswith("."):
                continue
            if not _is_utf8(rel):
                refused.append(FileEntry(shown_name(rel), None, None, "bad_name",
                                         f"{shown_name(rel)}: expected a UTF-8 file name, found "
                                         f"undecodable bytes; rename the file"))
            elif path.is_symlink():
                refused.append(FileEntry(rel, None, None, "refused",
                                         f"{rel}: a symbolic link; only regular files inside "
                                         f"raw_data/ are read"))
            elif not _regular(path):
                refused.append(FileEntry(rel, None, None, "refused",
                                         f"{rel}: not a regular file (device, FIFO or socket)"))
            else:
                files[rel] = path
    return files, refused


def _links_to(path: Path) -> int:
    """How many names the file's bytes have (st_nlink): more than one is a hard link."""
    try:
        return os.lstat(path).st_nlink
    except OSError:
        return 1


def _inside(raw_data: Path, path: Path) -> bool:
    """No component between raw_data/ and ``path`` is a link (so the path stays in the tree)."""
    rel = path.relative_to(raw_data)
    cur = raw_data
    for part in rel.parts:
        cur = cur / part
        if cur.is_symlink():
            return False
    return True


def _check_formats(campaign, formats: set[str] | None, manifest_rel: str) -> None:
    """A format no parser has is a manifest problem (a typo such as 'pnig' would otherwise
    leave the file's figures out without a word): the campaign is withheld, naming it."""
    if formats is None:
        return
    problems = []
    for i, item in enumerate(campaign.entries):
        if item.format not in formats:
            near = difflib.get_close_matches(item.format, sorted(formats), n=1)
            problems.append(f"files[{i}].format: {item.format!r} ({item.path}) has no parser "
                            f"(known: {', '.join(sorted(formats))})"
                            + (f"; did you mean {near[0]!r}?" if near else ""))
    if problems:
        raise ManifestError(manifest_rel, problems)


def scan_campaign(raw_data: Path, area: str, name: str, formats: set[str] | None = None) -> Scan:
    folder = raw_data / area / name
    rel = lambda p: p.relative_to(raw_data).as_posix()  # noqa: E731
    # taken before anything is read: a file that changes during the scan makes the next
    # digest differ, so the sensor builds the campaign again
    digest = folder_digest(folder)
    present, refused = _present(raw_data, folder)
    for entry in refused:
        entry.campaign = name
    manifest = folder / "manifest.yaml"
    manifest_rel = rel(manifest)
    problem = None
    campaign = None
    manifest_sha = None
    if manifest.is_symlink():
        problem = f"{manifest_rel}: a symbolic link; the manifest must be a regular file"
    elif not manifest.exists():
        problem = f"{rel(folder)}: no manifest.yaml gives these files their context"
    else:
        try:
            manifest_sha = sha256_of(manifest) if _regular(manifest) else None
            campaign = validate(safe_yaml.load(manifest, manifest_rel), name, area, manifest_rel)
            _check_formats(campaign, formats, manifest_rel)
        except (safe_yaml.ManifestYamlError, ManifestError) as exc:
            problem, campaign = str(exc), None
    if campaign is None:
        status = "no_manifest" if "no manifest.yaml" in (problem or "") else "bad_manifest"
        files = [FileEntry(p, name, None, status, problem) for p in sorted(present)]
        return Scan(area, name, None, _hashed(files, raw_data) + refused, problem, digest, manifest_sha)

    files: list[FileEntry] = []
    listed: set[str] = set()
    for item in campaign.entries:
        path = folder / item.path
        source = rel(path)
        listed.add(source)
        entry = FileEntry(source, name, item.format, "listed", None, item.context)
        if not _inside(raw_data, path) or (path.exists() and not _regular(path)):
            entry.status = "refused"
            entry.reason = (f"{source}: listed in {manifest_rel} but a symbolic link or not a "
                            f"regular file; only regular files inside raw_data/ are read")
            refused = [r for r in refused if r.source_file != source]
        elif source in present and not campaign.hard_links and (links := _links_to(path)) > 1:
            entry.status = "refused"
            entry.reason = (f"{source}: a hard link ({links} names for the same bytes), so a file "
                            f"outside raw_data/ may be it and change it; copy it in (cp without -l), "
                            f"or put 'hard_links: allowed' in {manifest_rel} if every name is yours")
        elif source not in present:
            entry.status = "missing"
            entry.reason = f"{manifest_rel} lists {item.path}, which does not exist"
        files.append(entry)
    for source in sorted(set(present) - listed):
        files.append(FileEntry(source, name, None, "unlisted",
                               f"{source}: not listed in {manifest_rel}, so its context is unknown"))
    files = _hashed(files, raw_data)
    _mark_duplicates(files)
    return Scan(area, name, campaign, files + refused, content_sha256=digest,
                manifest_sha256=manifest_sha)


def _hashed(files: list[FileEntry], raw_data: Path) -> list[FileEntry]:
    """Each readable entry's size and sha256. The hash is the one the folder's digest took a
    moment before (``file_sha``, remembered per path, inode, size, mtime and ctime of what
    ``open`` reads), so a scan reads each file's bytes once, not twice."""
    for entry in files:
        if entry.status in ("listed", "unlisted", "bad_manifest", "no_manifest"):
            path = raw_data / entry.source_file
            entry.size_bytes = os.lstat(path).st_size
            entry.sha256 = file_sha(path, os.stat(path))
    return files


def _mark_duplicates(files: list[FileEntry]) -> None:
    first: dict[tuple[str, str, str], str] = {}
    for entry in files:
        if entry.status != "listed":
            continue
        key = (entry.format, entry.sha256, json.dumps(entry.context, sort_keys=True, default=str))
        twin = first.setdefault(key, entry.source_file)
        if twin != entry.source_file:
            entry.status = "duplicate"
            entry.reason = (f"{entry.source_file}: same content (sha256 {entry.sha256[:12]}) and "
                            f"context as {twin}; ingested once")
