"""Two campaigns that mix what the tools really print, built by ``python -m pipeline.commands.build``:

- ``mixed-deploy``: the shipped deployment with its journal exported as
  ``journalctl -o short-iso-precise`` text instead of JSON, the 1 GbE ping from Windows
  ``ping.exe``, the server's ethtool as ``ethtool --json``, an extra iperf3 UDP run on the
  2.5 GbE link, an extra log of an older build with a ``[131B blob data]`` line; and three bad
  files: a ``journalctl -o short`` export, an iperf3 ``--json-stream`` run that failed, a cut
  ``ethtool --json`` file;
- ``mixed-p2p``: the shipped tc campaign with its default setting's nccl-tests log rewritten in
  the v2.11 layout under ``mpirun --tag-output`` with NCCL INFO lines interleaved, plus an
  ``NCCL_DEBUG=INFO`` log kept on its own that names a different interface than the manifest.

Every good variant gives the figures the shipped campaign's own files give (the same
measurements in another dress), each is on its campaign page, and each bad one is named on
the page and on Data quality with its ``file:line`` reason.
"""
from __future__ import annotations

import csv
import datetime as dt
import io
import json
import re
import shutil
from pathlib import Path

import pytest

from built_tree import copy_built
from conftest import REPO, run_cli_build
from paths import FIXTURES

FIX = FIXTURES
QWEN = "raw_data/deployments/qwen38-27b-pp"
TC = "raw_data/p2p/aws-p3-tc"
PLUS_2 = dt.timezone(dt.timedelta(hours=2))


def _copy(root: Path, src: str, name: str) -> Path:
    dest = root / Path(src).parent / name
    shutil.copytree(root / src, dest)
    manifest = dest / "manifest.yaml"
    text = manifest.read_text()
    manifest.write_text(text.replace(f"campaign: {Path(src).name}", f"campaign: {name}"))
    return dest


def _replace_entry(dest: Path, old: str, new: str) -> None:
    manifest = dest / "manifest.yaml"
    text = manifest.read_text()
    assert f"path: {old}\n" in text, old
    manifest.write_text(text.replace(f"path: {old}\n", f"path: {new}\n"))


def _add_entries(dest: Path, block: str) -> None:
    manifest = dest / "manifest.yaml"
    manifest.write_text(manifest.read_text().rstrip("\n") + "\n" + block)


def short_iso_precise(json_export: Path) -> str:
    """The same journal as ``journalctl -o short-iso-precise`` prints it on a +02:00 host."""
    out = []
    for line in json_export.read_text().splitlines():
        e = json.loads(line)
        t = dt.datetime.fromtimestamp(int(e["__REALTIME_TIMESTAMP"]) / 1e6, PLUS_2)
        out.append(f"{t.isoformat(timespec='microseconds')} {e['_HOSTNAME']} "
                   f"{e['SYSLOG_IDENTIFIER']}[{e['_PID']}]: {e['MESSAGE']}")
    return "\n".join(out) + "\n"


WINDOWS_PING = (
    "\r\nPinging 192.168.0.43 with 32 bytes of data:\r\n"
    "Reply from 192.168.0.43: bytes=32 time=2ms TTL=64\r\n"
    "Reply from 192.168.0.43: bytes=32 time=1ms TTL=64\r\n"
    "Reply from 192.168.0.43: bytes=32 time=1ms TTL=64\r\n"
    "Reply from 192.168.0.43: bytes=32 time=1ms TTL=64\r\n"
    "\r\nPing statistics for 192.168.0.43:\r\n"
    "    Packets: Sent = 4, Received = 4, Lost = 0 (0% loss),\r\n"
    "Approximate round trip times in milli-seconds:\r\n"
    # ping.exe's average is the integer part of (2 + 1 + 1 + 1) / 4
    "    Minimum = 1ms, Maximum = 2ms, Average = 1ms\r\n")

SERVER_ETHTOOL_JSON = """[ {
        "ifname": "eno1",
        "supported-ports": [ "TP" ],
        "speed": 2500,
        "duplex": "Full",
        "auto-negotiation": true,
        "port": "Twisted Pair",
        "phyad": 0,
        "transceiver": "internal",
        "link-detected": true
    } ]
"""


def _mixed_deploy(root: Path) -> None:
    dest = _copy(root, QWEN, "mixed-deploy")
    journal = dest / "journal/frank-dragoon.json"
    (dest / "journal/frank-dragoon.log").write_text(short_iso_precise(journal))
    journal.unlink()
    _replace_entry(dest, "journal/frank-dragoon.json", "journal/frank-dragoon.log")
    (dest / "ping/server-to-claw-gbe1_usb.txt").write_bytes(WINDOWS_PING.encode())
    (dest / "ethtool/server-eno1.txt").unlink()
    (dest / "ethtool/server-eno1.json").write_text(SERVER_ETHTOOL_JSON)
    _replace_entry(dest, "ethtool/server-eno1.txt", "ethtool/server-eno1.json")
    shutil.copy(FIX / "iperf3/good/udp-3.16.json", dest / "iperf3/claw-to-server-udp.json")
    # copied while the server was writing: its last line ends inside "n_tokens = 1099"
    old_build = (FIX / "llama_logs/good/short-iso.log").read_text()
    assert old_build.endswith("n_tokens = 1099, truncated = 0\n")
    (dest / "journal/old-build.log").write_text(old_build.removesuffix("99, truncated = 0\n"))
    shutil.copy(FIX / "llama_logs/bad/short.log", dest / "journal/short.log")
    shutil.copy(FIX / "iperf3/bad/stream-error.json", dest / "iperf3/stream-error.json")
    shutil.copy(FIX / "ethtool/bad/json-truncated.json", dest / "ethtool/cut.json")
    _add_entries(dest, """  - path: iperf3/claw-to-server-udp.json
    format: iperf3
    context: {link: gbe25, sender: claw, receiver: server}
  - path: journal/old-build.log
    format: journal
    context: {host: server, service: old-build}
  - path: journal/short.log
    format: journal
    context: {host: server}
  - path: iperf3/stream-error.json
    format: iperf3
    context: {link: gbe25, sender: claw, receiver: server}
  - path: ethtool/cut.json
    format: ethtool
    context: {host: claw, interface: eno1}
""")


def v211_tag_output(log: str) -> str:
    """A current nccl-tests log in the v2.11 layout, as ``mpirun --tag-output`` shows it,
    with the NCCL INFO lines of both ranks interleaved."""
    out = []
    for line in log.splitlines():
        if line.startswith("# nThread"):
            line = line.replace(" agg iters: 1", "").replace(" graph: 0", "")
        elif line.startswith("#  Rank"):
            line = re.sub(r" Group +\d+", "", line)
        elif "redop" in line:
            line = ("#       size         count      type     time   algbw   busbw  error"
                    "     time   algbw   busbw  error")
        elif line.startswith("#        (B)"):
            line = ("#        (B)    (elements)                (us)  (GB/s)  (GB/s)      "
                    "      (us)  (GB/s)  (GB/s)       ")
        elif line.startswith("   "):
            f = line.split()
            # size count type [redop root] time algbw busbw #wrong time algbw busbw #wrong
            line = (f"{f[0]:>12}  {f[1]:>12}  {f[2]:>8}  {f[5]:>7}  {f[6]:>6}  {f[7]:>6}  "
                    f"0e+00  {f[9]:>7}  {f[10]:>6}  {f[11]:>6}  0e+00")
        out.append(f"[1,0]<stdout>:{line}")
        if line.startswith("# Using devices"):
            out += ["[1,0]<stdout>:NCCL version 2.11.4+cuda11.4",
                    "[1,0]<stdout>:ip-172-31-10-11:58505:58505 [0] NCCL INFO Bootstrap : Using "
                    "ens3:172.31.10.11<0>",
                    "[1,1]<stdout>:ip-172-31-10-12:35652:35652 [0] NCCL INFO Bootstrap : Using "
                    "ens3:172.31.10.12<0>",
                    "[1,0]<stdout>:ip-172-31-10-11:58505:58520 [0] NCCL INFO NET/Socket : Using "
                    "[0]ens3:172.31.10.11<0>",
                    "[1,0]<stdout>:ip-172-31-10-11:58505:58520 [0] NCCL INFO Channel 00/0 : "
                    "0[0] -> 1[0] [send] via NET/Socket/0"]
    return "\n".join(out) + "\n"


def _mixed_p2p(root: Path) -> None:
    dest = _copy(root, TC, "mixed-p2p")
    log = dest / "nccl/aws-default.log"
    log.write_text(v211_tag_output(log.read_text()))
    shutil.copy(FIX / "nccl_debug/wg0.log", dest / "nccl/debug-wg0.log")
    _add_entries(dest, """- path: nccl/debug-wg0.log
  format: nccl_debug
  context:
    interface: ens3
""")


@pytest.fixture(scope="module")
def mixed_build(tmp_path_factory):
    root = copy_built(tmp_path_factory.mktemp("mixed"))      # the session's build, copied
    _mixed_deploy(root)
    _mixed_p2p(root)
    proc = run_cli_build(root, "--no-site")
    assert proc.returncode == 0, proc.stderr[-3000:]
    return root, proc


@pytest.fixture(scope="module")
def mixed(mixed_build):
    return mixed_build[0]


def _page(root: Path, slug: str) -> str:
    return (root / "docs" / f"{slug}.md").read_text()


def _csv(path: Path) -> list[dict]:
    return list(csv.DictReader(io.StringIO(path.read_text())))


def _without(row: dict, *keys: str) -> dict:
    return {k: v for k, v in row.items() if k not in keys and "file" not in k}


def test_text_journal_gives_the_json_journals_figures(mixed, built):
    # the same entries with the same microsecond timestamps: every constant (prefill window,
    # wire bytes inside it, decode) is the shipped campaign's, only names differ
    got = _csv(mixed / "docs/deployments/mixed-deploy/data/fct_deployment_constants.csv")[0]
    want = _csv(built.docs / "deployments/qwen38-27b-pp/data/fct_deployment_constants.csv")[0]
    names = ("campaign", "campaign_title")
    assert _without(got, *names) == _without(want, *names)
    assert float(got["prefill_s"]) > 0 and got["prefill_window_basis"] == want["prefill_window_basis"]


def test_windows_ping_json_ethtool_and_udp_on_the_page(mixed, built):
    page = _page(mixed, "deployments/mixed-deploy")
    links = page.split("## Links measured in this campaign")[1].split("##")[0]
    usb = next(l for l in links.splitlines() if l.startswith("| 1 GbE USB-C |"))
    # ping.exe: Average = 1ms; it prints no deviation, so none is shown (not a 0)
    assert "| 1.000 ms (—) |" in usb
    # the UDP run is not a throughput: the 2.5 GbE rows are the shipped campaign's TCP runs
    shipped = _page(built.root, "deployments/qwen38-27b-pp").split(
        "## Links measured in this campaign")[1].split("##")[0]
    assert [l for l in links.splitlines() if l.startswith("| 2.5 GbE |")] == \
        [l for l in shipped.splitlines() if l.startswith("| 2.5 GbE |")]
    udp = page.split("## UDP runs (loss and jitter)")[1].split("\n## ")[0]
    row = next(l for l in udp.splitlines() if "claw-to-server-udp.json" in l)
    # sent 37503200 B x 8 / 3.000041 s = 100.0 Mbit/s; received 37485824 x 8 / 3.000398 = 99.9
    assert f"{37503200 * 8 / 3.000041 / 1e6:.1f} Mbit/s" in row
    assert f"{37485824 * 8 / 3.000398 / 1e6:.1f} Mbit/s" in row
    # jitter 0.0213 ms; 12 of the 25888 received packets lost, 12 / 25900 = 0.046 %
    assert "0.021 ms" in row and "12 / 25,888 (0.046%)" in row
    # its sources are the UDP file and the manifest, not the campaign's TCP runs
    sources = udp.split("Data behind this table")[1]
    assert "claw-to-server-udp.json" in sources and "iperf3/server-to-claw.json" not in sources
    # the JSON ethtool gives the server's 2.5 GbE line rate like the text one did
    got = {(r["link_id"], r["negotiated_bits_per_s"]) for r in
           _csv(mixed / "docs/deployments/mixed-deploy/data/fct_deployment_links.csv")}
    want = {(r["link_id"], r["negotiated_bits_per_s"]) for r in
            _csv(built.docs / "deployments/qwen38-27b-pp/data/fct_deployment_links.csv")}
    assert got == want


def test_bad_files_named_on_the_page_and_on_data_quality(mixed):
    page = _page(mixed, "deployments/mixed-deploy")
    notes = page.split("## Files not used")[1]
    quality = _page(mixed, "data-quality")
    cases = {
        # journalctl -o short: no year, no zone
        "journal/short.log": "short.log:1",
        # --json-stream: the error event is line 3
        "iperf3/stream-error.json": "stream-error.json:3",
        # cut inside the first object
        "ethtool/cut.json": "cut.json:12",
    }
    for path, where in cases.items():
        row = next(l for l in notes.splitlines() if path in l)
        assert where in row, row
        assert f"deployments/mixed-deploy/{path}" in quality
    # the old build's "[131B blob data]" line (line 10) is named, the rest of it read
    blob = next(l for l in notes.splitlines() if "journal/old-build.log" in l and "partly read" in l)
    assert "partly read" in blob and "1 line(s)" in blob and "first at line 10" in blob
    # and its last line, cut after "n_tokens = 10", is named, not read as 10 tokens
    last = (FIX / "llama_logs/good/short-iso.log").read_text().count("\n")
    cut = next(l for l in notes.splitlines() if "journal/old-build.log" in l and "cut short" in l)
    assert f"the last line ({last})" in cut and "not read" in cut


def test_v211_tagged_nccl_log_gives_the_same_times(mixed, built):
    got = {(r["setting_id"], r["backend"], r["size_bytes"]): r["median_time_s"]
           for r in _csv(mixed / "docs/p2p/mixed-p2p/data/fct_p2p_tc_times.csv")}
    want = {(r["setting_id"], r["backend"], r["size_bytes"]): r["median_time_s"]
            for r in _csv(built.docs / "p2p/aws-p3-tc/data/fct_p2p_tc_times.csv")}
    # the v2.11 layout carries the same out-of-place times (us), so the medians agree
    assert got == want


def test_what_nccl_used_and_the_interface_check(mixed):
    page = _page(mixed, "p2p/mixed-p2p")
    table = page.split("## What NCCL used")[1].split("\n## ")[0]
    default = next(l for l in table.splitlines() if "nccl/aws-default.log" in l)
    assert "2.11.4+cuda11.4" in default and "Socket ens3" in default
    assert "NET/Socket/0" in default
    debug = next(l for l in table.splitlines() if "nccl/debug-wg0.log" in l)
    # the debug log says wg0 while its manifest entry names ens3
    assert "Socket wg0" in debug and "| ens3 |" in debug
    # its sources are the two files in it, not the campaign's other nccl-tests logs
    assert "nccl/delay-10ms.log" not in table.split("Data behind this table")[1]
    quality = _page(mixed, "data-quality")
    assert "assert_nccl_interface_matches_manifest" in quality
    assert "p2p/mixed-p2p/nccl/debug-wg0.log" in quality


def test_the_build_names_each_quarantined_file(mixed_build):
    _, proc = mixed_build
    out = proc.stderr
    assert "raw files: " in out and ", 3 quarantined," in out
    listing = out.split("quarantined (3), each named on Data quality:")[1].split("\n", 4)[:4]
    assert [l.split(":")[0].strip("- ") for l in listing[1:4]] == [
        "deployments/mixed-deploy/ethtool/cut.json", "deployments/mixed-deploy/iperf3/stream-error.json",
        "deployments/mixed-deploy/journal/short.log"]
    assert "failed checks (1):\n  - assert_nccl_interface_matches_manifest [mixed-p2p]" in out
    assert out.rstrip().endswith("quarantined 3 file(s)")
