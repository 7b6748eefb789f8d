"""Property-based round trip for NCCL_DEBUG=INFO logs (pipeline/ingest/formats/nccl_debug.py): a log printed
from random values through NCCL's own format strings parses back to exactly those values; cut
anywhere, it gives what its whole lines say (or a ParseError at line 1 when none is an NCCL
line), never a value cut in half.

NVIDIA/nccl: src/debug.cc prefixes ``"%s:%d:%d [%d] NCCL INFO "`` (host, pid, tid, device);
src/init.cc ``"NCCL version %s"``; src/transport/net_socket.cc ``"NET/Socket : Using%s"`` with
``" [%d]%s:%s"`` per interface (the address as ``ncclSocketToString``: ``addr<port>``), the IB plugin
``"NET/IB : Using%s"`` with ``" [%d]%s:%d/%s"`` (device, port, link layer) then
``"; OOB %s:%s"``; src/bootstrap.cc ``"Bootstrap : Using %s:%s"`` (``"Bootstrap: Using"`` from
2.19); src/transport.cc ``"Channel %02d/%d : %d[%d] -> %d[%d] [%s] via %s"``. ``mpirun
--tag-output`` puts ``[1,0]<stdout>:`` before each line.
"""
from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from pipeline.ingest.base import ParseError
from pipeline.ingest.formats import nccl_debug

SETTINGS = settings(max_examples=40, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])

word = st.from_regex(r"\A[a-z][a-z0-9]{0,7}\Z")
ipv4 = st.tuples(*[st.integers(0, 255)] * 4).map(lambda t: ".".join(map(str, t)))
version = st.tuples(st.integers(2, 2), st.integers(10, 27), st.integers(0, 9),
                    st.sampled_from(["", "+cuda12.2", "+cuda11.8"])).map(lambda t: f"{t[0]}.{t[1]}.{t[2]}{t[3]}")
TRANSPORTS = ["P2P/IPC", "P2P/direct pointer", "SHM", "NET/Socket/0", "NET/Socket/1", "NET/IB/0/GDRDMA",
              "NET/IB/1"]

log = st.fixed_dictionaries({
    "host": word, "pid": st.integers(1, 4_000_000), "tid": st.integers(1, 4_000_000),
    "dev": st.integers(0, 7), "version": version,
    "plugin": st.sampled_from(["Socket", "IB"]),
    "ifaces": st.lists(st.tuples(word, ipv4, st.integers(0, 65535)), min_size=1, max_size=3),
    "bootstrap": st.tuples(word, ipv4, st.integers(0, 65535)),
    "old_bootstrap": st.booleans(),
    "channels": st.lists(st.sampled_from(TRANSPORTS), max_size=5),
    "noise": st.lists(st.sampled_from(["# nThread 1 nGpus 1", "", "warming up", "Avg bus bandwidth : 1.2"]),
                      max_size=3),
    "tagged": st.booleans(),
})


def _print(d: dict) -> tuple[str, int]:
    """The log as NCCL prints it, and the line number of its first NCCL line."""
    prefix = f"{d['host']}:{d['pid']}:{d['tid']} [{d['dev']}] NCCL INFO "
    boot = "Bootstrap : Using" if d["old_bootstrap"] else "Bootstrap: Using"
    b_if, b_ip, b_port = d["bootstrap"]
    if d["plugin"] == "Socket":
        using = "".join(f" [{i}]{name}:{ip}<{port}>" for i, (name, ip, port) in enumerate(d["ifaces"]))
    else:
        using = "".join(f" [{i}]{name}:1/RoCE" for i, (name, _, _) in enumerate(d["ifaces"]))
        using += f" [RO]; OOB {b_if}:{b_ip}<{b_port}>"
    messages = [f"{boot} {b_if}:{b_ip}<{b_port}>", f"NCCL version {d['version']}",
                f"NET/{d['plugin']} : Using{using}"]
    messages += [f"Channel {c:02d}/0 : 0[0] -> 1[0] [send] via {via}" for c, via in enumerate(d["channels"])]
    lines = list(d["noise"]) + [prefix + m for m in messages]
    if d["tagged"]:
        lines = [f"[1,0]<stdout>:{line}" for line in lines]
    return "".join(line + "\n" for line in lines), len(d["noise"]) + 1


def _expected(d: dict) -> dict:
    name, ip, _ = d["ifaces"][0]
    vias = d["channels"]
    nets = [v for v in vias if v.startswith("NET/")]
    b_if, b_ip, _ = d["bootstrap"]
    return {"nccl_version": d["version"], "net_plugin": d["plugin"], "net_interface": name,
            "net_address": ip if d["plugin"] == "Socket" else "1/RoCE",
            "bootstrap_interface": b_if, "bootstrap_address": b_ip,
            # the first network transport, else the first of any kind
            "channel_transport": (nets or vias or [None])[0]}


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "debug.log"
    path.write_text(text)
    return path


@SETTINGS
@given(d=log)
@example(d={"host": "h", "pid": 1, "tid": 2, "dev": 0, "version": "2.18.3", "plugin": "Socket",
            "ifaces": [("wg0", "10.8.0.5", 0)], "bootstrap": ("wg0", "10.8.0.5", 0),
            "old_bootstrap": True, "channels": ["P2P/direct pointer", "SHM"], "noise": [],
            "tagged": False})
def test_a_printed_log_parses_back(tmp_path, d):
    text, first = _print(d)
    (row,) = nccl_debug.parse(_write(tmp_path, text))
    assert row == {**_expected(d), "source_line": first}


@SETTINGS
@given(d=log, data=st.data())
def test_a_log_cut_anywhere_gives_its_whole_lines_or_an_error_at_line_1(tmp_path, d, data):
    text, _ = _print(d)
    cut = data.draw(st.integers(1, len(text) - 1))
    whole = text[:text.rfind("\n", 0, cut) + 1]          # the lines the cut left whole
    path = _write(tmp_path, text[:cut])
    if not any("NCCL" in line for line in whole.splitlines()):
        with pytest.raises(ParseError) as info:
            nccl_debug.parse(path)
        assert info.value.line == 1 and info.value.path == str(path)
        return
    (row,) = nccl_debug.parse(path)
    (full,) = nccl_debug.parse(_write(tmp_path, whole))
    assert row == full           # the cut line adds nothing, not a value cut short
