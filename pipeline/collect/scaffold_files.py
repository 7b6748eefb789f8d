"""What each file of a campaign folder says about itself, for ``collect scaffold``.

A file's format is the one parser of ``pipeline/ingest/formats/`` that reads it (with at
least one row); the env reader (python-dotenv) takes any line with an ``=``, so a file is
an env file only when every setting line looks like one and no other parser reads it.
What the tool wrote into the file becomes a *fact* (a netdev capture's ``host=``, the
journal's ``_HOSTNAME`` and unit, ethtool's interface, the first instant); what the
collectors' file names suggest (``<sender>-to-<receiver>-<link>``, ``<host>-<rest>``)
is only a *guess*, offered as the default of a question.
"""
from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from pathlib import Path

from pipeline.ingest.base import ParseError
from pipeline.ingest.formats import discover_formats

SKIPPED = {"README.md", "manifest.yaml"}
# formats whose rows belong to a link (they need context.link) and to a sender/receiver pair
LINKED = ("iperf3", "ping", "netdev")
PAIRED = ("iperf3", "ping")
_ENV_LINE = re.compile(r"^\s*(?:export\s+)?[A-Za-z_][A-Za-z0-9_.]*\s*=")
_PAIR = re.compile(r"^(?P<a>[A-Za-z0-9_.]+?)-to-(?P<b>[A-Za-z0-9_.]+?)(?:-(?P<link>[A-Za-z0-9_.-]+))?$")
_NETDEV_HOST = re.compile(rb"^# host=(\S+)", re.MULTILINE)


@dataclass
class Found:
    """One file of the folder: its format (None: no parser reads it) and what it says."""

    path: str
    format: str | None
    facts: dict = field(default_factory=dict)     # context keys the file itself gives
    guesses: dict = field(default_factory=dict)   # context keys its name suggests
    first_unix_s: float | None = None
    tasks: dict = field(default_factory=dict)     # journal: prefill/decode task proposals
    why: str = ""                                 # no format: what the likeliest parser said


def campaign_files(folder: Path, listed: set[str]) -> list[str]:
    """Regular files of ``folder`` that its manifest does not list (dot files, symbolic links
    and the README are left alone, as the scan does)."""
    out = []
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder).as_posix()
        if any(part.startswith(".") for part in path.relative_to(folder).parts):
            continue
        if path.is_symlink() or not path.is_file() or rel in SKIPPED or rel in listed:
            continue
        out.append(rel)
    return out


def _looks_like_env(path: Path) -> bool:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (UnicodeDecodeError, OSError):
        return False
    settings = [ln for ln in lines if ln.strip() and not ln.lstrip().startswith("#")]
    return bool(settings) and all(_ENV_LINE.match(ln) for ln in settings)


def detect(path: Path, formats=None) -> tuple[str | None, list | None, str]:
    """(format, its rows, '') for the one parser that reads ``path``; (None, None, why)."""
    formats = formats or discover_formats()
    readers, errors = {}, {}
    for name, fmt in formats.items():
        try:
            rows = fmt.parse(path)
        except ParseError as exc:
            errors[name] = str(exc)
            continue
        except Exception as exc:  # noqa: BLE001 - a parser refusing a file of another format
            errors[name] = f"{exc.__class__.__name__}: {exc}"
            continue
        if len(rows):
            readers[name] = rows
    if "env" in readers and (len(readers) > 1 or not _looks_like_env(path)):
        del readers["env"]
    if len(readers) == 1:
        (name, rows), = readers.items()
        return name, rows, ""
    if readers:
        return None, None, f"read by several parsers ({', '.join(sorted(readers))}): give --set files.<path>.format"
    # the parser the file's folder is named for says best what is wrong with it
    folder = Path(path).parent.name
    why = errors.get(folder) or errors.get(folder.rstrip("s")) or "no parser of pipeline/ingest/formats reads it"
    return None, None, why


def _journal(found: Found, rows: list[dict]) -> None:
    hosts = {r["hostname"] for r in rows if r.get("hostname")}
    if len(hosts) == 1:
        found.facts["host"] = hosts.pop()
    units = {r["unit"] for r in rows if r.get("unit")}
    if len(units) == 1:
        found.facts["service"] = units.pop().removesuffix(".service")
    stamps = [r["realtime_us"] for r in rows if r.get("realtime_us")]
    if stamps:
        found.first_unix_s = min(stamps) / 1e6
    for event, key in (("prompt_eval", "prefill_task"), ("eval", "decode_task")):
        sized = [(r["tokens"], r["task_id"]) for r in rows
                 if r.get("event") == event and r.get("task_id") is not None and r.get("tokens")]
        if sized:
            tokens, task = max(sized)
            found.tasks[key] = (int(task), int(tokens))


def _facts(found: Found, path: Path, rows) -> None:
    fmt = found.format
    if fmt == "journal":
        _journal(found, rows)
    elif fmt == "netdev":
        with open(path, "rb") as fh:
            m = _NETDEV_HOST.search(fh.read(4096))
        if m:
            found.facts["host"] = m.group(1).decode("utf-8", "replace")
        found.first_unix_s = float(rows["sample_unix_s"].min())     # a frame, not row objects
    elif fmt == "ethtool":
        found.facts["interface"] = rows[0]["interface"]
    elif fmt == "iperf3":
        found.first_unix_s = rows[0].get("start_unix_s")


def _guesses(found: Found) -> None:
    stem = Path(found.path).name.split(".")[0]
    pair = _PAIR.match(stem)
    if pair and found.format in PAIRED:
        found.guesses |= {"sender": pair["a"], "receiver": pair["b"]}
        if pair["link"]:
            found.guesses["link"] = pair["link"]
    elif "-" in stem and found.format in ("ethtool", "netdev"):
        found.guesses["host"] = stem.split("-", 1)[0]
    if found.format == "ethtool" and "interface" in found.facts:
        suffix = "-" + found.facts["interface"]
        if stem.endswith(suffix) and len(stem) > len(suffix):
            found.guesses["host"] = stem[: -len(suffix)]


def examine(folder: Path, paths: list[str]) -> list[Found]:
    formats = discover_formats()
    out = []
    for rel in paths:
        fmt, rows, why = detect(folder / rel, formats)
        found = Found(rel, fmt, why=why)
        if fmt is not None:
            _facts(found, folder / rel, rows)
            _guesses(found)
        out.append(found)
    return out


def first_date(found: list[Found]) -> str | None:
    """The UTC date of the earliest instant the files record."""
    stamps = [f.first_unix_s for f in found if f.first_unix_s]
    if not stamps:
        return None
    return dt.datetime.fromtimestamp(min(stamps), dt.timezone.utc).date().isoformat()
