"""What NCCL says it used (``NCCL_DEBUG=INFO``): version, interfaces and transport.

The format and its variants, tool version by tool version: raw_data/FORMATS.md, "nccl_debug".
"""
from __future__ import annotations

import re
from pathlib import Path

from pipeline.ingest.base import Format, ParseError, read_text_strict, require_nonempty

# what a launcher puts before each line: Open MPI's --tag-output ("[1,0]<stdout>:") or Slurm's
# srun --label ("0: ", padded to the widest task number); nccl-tests' result rows have no colon
LAUNCHER_PREFIX = re.compile(r"^(?:\[\d+,\d+\]<(?:stdout|stderr)>:|\s*\d+: )")
_PREFIX = re.compile(r"^(?P<host>[^\s:]+):(?P<pid>\d+):(?P<tid>\d+) \[(?P<dev>-?\d+)\](?: \S+:\d+)? NCCL (?P<level>INFO|WARN) ")
_VERSION = re.compile(r"NCCL version (\S+)")
_NET = re.compile(r"^NET/(?P<plugin>\w+) ?: Using \[\d+\](?P<iface>[^:\s]+):(?P<addr>[^<\s]+)")
# NCCL 2.4 numbered the bootstrap interface as it numbers the NET ones: "Using [0]ens5:…"
_BOOTSTRAP = re.compile(r"^Bootstrap ?: Using (?:\[\d+\])?(?P<iface>[^:\s]+):(?P<addr>[^<\s]+)")
_CHANNEL = re.compile(r"\bvia (?P<via>NET/\S+|P2P/direct pointer|P2P/\S+|SHM\S*|direct shared memory)")

FACTS = ("nccl_version", "net_plugin", "net_interface", "net_address", "bootstrap_interface",
         "bootstrap_address", "channel_transport")


def scan_line(line: str, facts: dict) -> bool:
    """Record what an NCCL log line says in ``facts`` (first value wins); True if it was one."""
    line = LAUNCHER_PREFIX.sub("", line, count=1)
    m = _PREFIX.match(line)
    text = line[m.end():] if m else line
    if not m and "NCCL version" not in line:
        return False
    if (v := _VERSION.search(text)):
        facts.setdefault("nccl_version", v[1])
    elif (n := _NET.match(text)):
        facts.setdefault("net_plugin", n["plugin"])
        facts.setdefault("net_interface", n["iface"])
        facts.setdefault("net_address", n["addr"])
    elif (b := _BOOTSTRAP.match(text)):
        facts.setdefault("bootstrap_interface", b["iface"])
        facts.setdefault("bootstrap_address", b["addr"])
    elif (c := _CHANNEL.search(text)):
        via, current = c["via"].rstrip(","), facts.get("channel_transport")
        if current is None or (via.startswith("NET/") and not current.startswith("NET/")):
            facts["channel_transport"] = via
    return True


def parse(path: Path) -> list[dict]:
    text = read_text_strict(path)
    require_nonempty(path, text)
    facts: dict = {}
    first = None
    lines = text.splitlines()
    if not text.endswith(("\n", "\r")):
        lines = lines[:-1]                       # cut while being written
    for line_no, line in enumerate(lines, start=1):
        if scan_line(line, facts) and first is None:
            first = line_no
    if first is None:
        raise ParseError(path, 1, "NCCL_DEBUG=INFO lines ('<host>:<pid>:<tid> [<dev>] NCCL INFO …')",
                         "none in the file" + ("" if text.endswith(("\n", "\r")) else
                                               " (its last line has no newline: cut, not read)"))
    return [{**dict.fromkeys(FACTS), **facts, "source_line": first}]


FORMAT = Format(
    name="nccl_debug",
    table="raw_nccl_debug",
    version=4,                  # 3: NCCL 2.4's bootstrap names ens5; 4: srun --label read
    columns={name: "VARCHAR" for name in FACTS},
    parse=parse,
    description="NCCL_DEBUG=INFO output: NCCL version, the interface and transport actually used.",
)
