"""What NCCL says it used (``NCCL_DEBUG=INFO``): version, interfaces and transport.

NCCL's log lines (NVIDIA/nccl src/debug.cc) start ``"%s:%d:%d [%d] NCCL INFO "`` (host, pid, tid,
CUDA device) or ``"\\n%s:%d:%d [%d] %s:%d NCCL WARN "``. The facts read here:

- the version: ``NCCL version %s`` (e.g. ``2.18.3+cuda12.2``);
- the data interface: src/transport/net_socket.cc ``INFO(NCCL_INIT|NCCL_NET, "NET/Socket : Using%s",
  line)`` with `` [%d]%s:%s`` per interface (``[0]wg0:10.8.0.5<0>``), and the same shape for the
  IB plugin (``NET/IB : Using [0]mlx5_0:1/RoCE [RO]; OOB ens3:…``);
- the bootstrap interface: src/bootstrap.cc ``"Bootstrap: Using%s"`` (``"Bootstrap : Using%s"``
  before NCCL 2.19) with `` %s:`` and the address;
- the transport of the rings: ``Channel 00/0 : 0[0] -> 1[0] [send] via NET/Socket/0`` (``via
  P2P/IPC``, ``via P2P/direct pointer`` (src/transport/p2p.cc), ``via SHM``, ``via
  NET/IB/0/GDRDMA``); the first network transport is kept.

The nccl-tests parser collects the same facts from the INFO lines interleaved with its table;
this format reads a debug log kept on its own (one row per file). A file without any NCCL line is
refused. A last line without its newline was cut while NCCL wrote it (``wg0:10.8`` of
``wg0:10.8.0.5<0>``), so it is not read: a fact only it holds stays missing rather than wrong.
"""
from __future__ import annotations

import re
from pathlib import Path

from pipeline.ingest.base import Format, ParseError, read_text_strict, require_nonempty

_TAG = re.compile(r"^\[\d+,\d+\]<(?:stdout|stderr)>:")
_PREFIX = re.compile(r"^(?P<host>[^\s:]+):(?P<pid>\d+):(?P<tid>\d+) \[(?P<dev>-?\d+)\](?: \S+:\d+)? NCCL (?P<level>INFO|WARN) ")
_VERSION = re.compile(r"NCCL version (\S+)")
_NET = re.compile(r"^NET/(?P<plugin>\w+) ?: Using \[\d+\](?P<iface>[^:\s]+):(?P<addr>[^<\s]+)")
_BOOTSTRAP = re.compile(r"^Bootstrap ?: Using (?P<iface>[^:\s]+):(?P<addr>[^<\s]+)")
_CHANNEL = re.compile(r"\bvia (?P<via>NET/\S+|P2P/direct pointer|P2P/\S+|SHM\S*|direct shared memory)")

FACTS = ("nccl_version", "net_plugin", "net_interface", "net_address", "bootstrap_interface",
         "bootstrap_address", "channel_transport")


def scan_line(line: str, facts: dict) -> bool:
    """Record what an NCCL log line says in ``facts`` (first value wins); True if it was one."""
    line = _TAG.sub("", line, count=1)
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
    version=2,
    columns={name: "VARCHAR" for name in FACTS},
    parse=parse,
    description="NCCL_DEBUG=INFO output: NCCL version, the interface and transport actually used.",
)
