"""A link you can measure on one machine: two network namespaces, a veth pair, tbf.

``python -m pipeline.collect lab --campaign-dir DIR`` (root only) builds namespaces ``<prefix>a``
(10.203.0.1/30, iperf3 server, host ``lab-server``) and ``<prefix>b`` (10.203.0.2/30, client,
host ``lab-client``) joined by a veth pair whose both ends are shaped with ``tc qdisc ... tbf
rate R`` (this kernel has tbf and htb, not netem). It then runs the real collectors inside them:
ethtool on both ends, the netdev sampler in both namespaces for the whole run, ping and iperf3
both ways from the client. Only the lab's own addresses are targeted, and the namespaces (which
take the veth pair with them) are deleted in a ``finally``. The lab test and the captured
campaign raw_data/deployments/lab-veth-tbf/ both come from :func:`capture`.
"""
from __future__ import annotations

import argparse
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from pipeline.collect.campaign import Campaign, CollectError, commit
from pipeline.collect.readme import write_readme
from pipeline.project import REPO_ROOT

REPO = REPO_ROOT
SERVER_ADDR, CLIENT_ADDR, PREFIX_LEN = "10.203.0.1", "10.203.0.2", 30
SERVER, CLIENT = "lab-server", "lab-client"
PORT = 5201
# tbf's bucket (KiB): after a pause that much leaves at once, so 64 makes an average-rate limiter;
# 4 (held 400 Mbit/s here, high-resolution timers) is close to a serializer, as Ethernet is
DEFAULT_BURST_KB, MIN_BURST_KB = 64, 2


@dataclass
class Lab:
    prefix: str
    rate_mbit: int | None          # None: the veth pair unshaped
    burst_kb: int = DEFAULT_BURST_KB

    def __post_init__(self):
        if not MIN_BURST_KB <= self.burst_kb <= 1024:
            raise CollectError(f"lab: tbf burst {self.burst_kb} KiB: use {MIN_BURST_KB} to 1024")
        if not re.fullmatch(r"[a-z][a-z0-9]{0,12}", self.prefix):   # interface names: <= 15 bytes
            raise CollectError(f"lab: prefix {self.prefix!r}: use 1-13 lower-case letters/digits")

    @property
    def ns_a(self) -> str:
        return f"{self.prefix}a"

    @property
    def ns_b(self) -> str:
        return f"{self.prefix}b"

    @property
    def if_a(self) -> str:
        return f"{self.prefix}va"

    @property
    def if_b(self) -> str:
        return f"{self.prefix}vb"

    @property
    def qdisc(self) -> list[str]:
        if self.rate_mbit is None:
            return []
        return ["tbf", "rate", f"{self.rate_mbit}mbit", "burst", f"{self.burst_kb}kb", "latency", "50ms"]

    @property
    def link(self) -> str:
        return "veth" if self.rate_mbit is None else f"veth_tbf{self.rate_mbit}"


def missing_prerequisites() -> str | None:
    """Why the lab cannot run here, or None when it can."""
    if os.geteuid() != 0:
        return "needs root to create network namespaces"
    for tool in ("ip", "tc", "iperf3", "ping", "ethtool"):
        if shutil.which(tool) is None:
            return f"{tool} not installed (scripts/install_lab_tools.sh)"
    return None


def sh(*argv: str) -> None:
    r = subprocess.run(argv, capture_output=True, text=True, check=False)
    if r.returncode != 0:
        raise CollectError(f"{' '.join(argv)}: {r.stderr.strip() or r.returncode}")


def up(lab: Lab) -> None:
    sh("ip", "netns", "add", lab.ns_a)
    sh("ip", "netns", "add", lab.ns_b)
    sh("ip", "link", "add", lab.if_a, "netns", lab.ns_a, "type", "veth",
        "peer", "name", lab.if_b, "netns", lab.ns_b)
    for ns, iface, addr in ((lab.ns_a, lab.if_a, SERVER_ADDR), (lab.ns_b, lab.if_b, CLIENT_ADDR)):
        sh("ip", "-n", ns, "addr", "add", f"{addr}/{PREFIX_LEN}", "dev", iface)
        sh("ip", "-n", ns, "link", "set", "lo", "up")
        sh("ip", "-n", ns, "link", "set", iface, "up")
        if lab.qdisc:
            sh("ip", "netns", "exec", ns, "tc", "qdisc", "add", "dev", iface, "root", *lab.qdisc)


def down(lab: Lab) -> None:
    # Deleting a namespace deletes the veth end inside it, and with it the peer.
    for ns in (lab.ns_a, lab.ns_b):
        subprocess.run(["ip", "netns", "del", ns], capture_output=True, check=False)


def collector(ns: str, *args: str) -> list[str]:
    return ["ip", "netns", "exec", ns, sys.executable, "-m", "pipeline.collect", *args]


def child_env() -> dict:
    # The collectors run in this working directory (so a relative
    # --campaign-dir means the same to them) and import this checkout.
    path = os.environ.get("PYTHONPATH")
    return {**os.environ, "PYTHONPATH": f"{REPO}{os.pathsep}{path}" if path else str(REPO)}


def run_collector(argv: list[str]) -> None:
    r = subprocess.run(argv, capture_output=True, text=True, env=child_env(), check=False)
    if r.returncode != 0:
        raise CollectError(r.stderr.strip().splitlines()[-1] if r.stderr.strip() else
                           f"{' '.join(argv)} exited {r.returncode}")
    # what each collector wrote, said once; the manifest lines are summed up at the end
    for line in r.stdout.splitlines():
        if line.startswith("wrote ") and "manifest.yaml" not in line:
            print(line)


def stop_collectors(procs: list[subprocess.Popen], what: str, timeout: float = 60) -> None:
    """SIGTERM every collector at once (they write their files as they stop), then wait for
    each; say what each wrote, once."""
    for proc in procs:
        proc.send_signal(signal.SIGTERM)
    for proc in procs:
        out, err = proc.communicate(timeout=timeout)
        if proc.returncode != 0:
            raise CollectError(f"{what} failed: {err.decode(errors='replace').strip()}")
        for line in out.decode(errors="replace").splitlines():
            if line.startswith("wrote ") and "manifest.yaml" not in line:
                print(line)


def wait_listen(ns: str, port: int, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        out = subprocess.run(["ip", "netns", "exec", ns, "ss", "-Hltn", f"sport = :{port}"],
                             capture_output=True, text=True, check=False).stdout
        if out.strip():
            return
        time.sleep(0.05)
    raise CollectError(f"iperf3 server in {ns} not listening on port {port} after {timeout:g} s")


def wait_ready(proc: subprocess.Popen, timeout: float = 15.0) -> None:
    """Block until a netdev sampler says it took its first sample."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([proc.stderr], [], [], 0.1)
        if ready:
            line = proc.stderr.readline()
            if b"sampling" in line:
                return
            if not line and proc.poll() is not None:
                break
    raise CollectError("netdev sampler did not start")


def capture(folder: Path, rate_mbit: int = 200, seconds: int = 5, ping_count: int = 10,
            netdev_hz: float = 50.0, prefix: str | None = None, date: str | None = None) -> Lab:
    """Build the lab, run every collector into ``folder``, tear the lab down."""
    why = missing_prerequisites()
    if why:
        raise CollectError(f"lab: {why}")
    lab = Lab(prefix or f"pcl{os.getpid() % 100000}", rate_mbit)
    common = ["--campaign-dir", str(folder), "--link", lab.link,
              "--link-label", f"veth + tbf {rate_mbit} Mbit/s (namespace lab)",
              "--link-class", f"tbf_{rate_mbit}mbit", "--kind", "deployment",
              "--title", f"Namespace lab: veth pair shaped with tbf at {rate_mbit} Mbit/s"]
    if date:
        common += ["--date", date]
    server_side = ["--host", SERVER, "--role", "head"]
    client_side = ["--host", CLIENT, "--role", "worker", "--peer", SERVER, "--peer-role", "head"]
    server = None
    samplers: list[subprocess.Popen] = []
    try:
        down(lab)
        up(lab)
        run_collector(collector(lab.ns_a, "ethtool", *common, *server_side, "--iface", lab.if_a))
        run_collector(collector(lab.ns_b, "ethtool", *common, "--host", CLIENT, "--role", "worker",
                      "--iface", lab.if_b))
        server = subprocess.Popen(["ip", "netns", "exec", lab.ns_a, "iperf3", "-s",
                                   "-B", SERVER_ADDR, "-p", str(PORT)],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_listen(lab.ns_a, PORT)
        for ns, side in ((lab.ns_a, server_side), (lab.ns_b, ["--host", CLIENT, "--role", "worker"])):
            samplers.append(subprocess.Popen(
                collector(ns, "netdev", *common, *side, "--rate", f"{netdev_hz:g}"),
                env=child_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE))
        for proc in samplers:
            wait_ready(proc)
        run_collector(collector(lab.ns_b, "ping", *common, *client_side, "--target", SERVER_ADDR,
                      "-c", str(ping_count), "-i", "0.2"))
        run_collector(collector(lab.ns_b, "iperf3", *common, *client_side, "--server", SERVER_ADDR,
                      "--port", str(PORT), "-t", str(seconds)))
        time.sleep(0.5)      # let the last ACKs and the idle tail into the capture
        stop_collectors(samplers, "netdev sampler")
        samplers = []
        setup = " ".join(lab.qdisc)
        commit(Campaign(Path(folder), Path(folder).resolve().name, links={lab.link: {
            "shaped_rate_bits_per_s": rate_mbit * 1_000_000,
            "qdisc": f"tc qdisc add dev <veth end> root {setup} (both ends)"}},
            params={"lab_setup": (f"veth pair {lab.if_a} ({SERVER_ADDR}/{PREFIX_LEN}, netns "
                                  f"{lab.ns_a}) <-> {lab.if_b} ({CLIENT_ADDR}/{PREFIX_LEN}, netns "
                                  f"{lab.ns_b}); both ends: tc qdisc add root {setup}"),
                    "iperf3_server": f"ip netns exec {lab.ns_a} iperf3 -s -B {SERVER_ADDR} -p {PORT}",
                    "captured_by": "python -m pipeline.collect lab"}), [], quiet=True)
        write_readme(Path(folder), readme_text(Path(folder), lab, seconds, ping_count, netdev_hz))
    finally:
        for proc in samplers:
            proc.kill()
            proc.wait()
        if server is not None:
            server.terminate()
            server.wait()
        down(lab)
    return lab


README = """# {name} — *captured*

Real output of real tools, captured on one machine by `python -m pipeline.collect lab` (the
project's own collectors, `pipeline/collect/`): nothing here is reconstructed or edited by hand,
and `manifest.yaml` was written by the collectors as they ran.

## The link

Two Linux network namespaces joined by a veth pair, both ends shaped with the token-bucket
filter:

| end | namespace | interface | address | host in the manifest | role |
| --- | --- | --- | --- | --- | --- |
| iperf3 server | `{ns_a}` | `{if_a}` | {server}/{plen} | `{server_host}` | head |
| iperf3 client | `{ns_b}` | `{if_b}` | {client}/{plen} | `{client_host}` | worker |

```
tc qdisc add dev <veth end> root {qdisc}    # on both ends
```

Link id `{link}`, shaped rate {rate:,} bit/s. Only the lab's own addresses were targeted; the
namespaces were deleted afterwards.

## How it was made

```
python -m pipeline.collect lab --campaign-dir {folder} --rate-mbit {rate_mbit} -t {seconds} --ping-count {pings} --netdev-rate {hz:g}
```

ethtool on both ends, the `/proc/net/dev` sampler in both namespaces for the whole run, ping
and iperf3 (both directions) from the client. The kernel, tool versions and command lines are
in each file's `context` in `manifest.yaml`.
"""


def readme_text(folder: Path, lab: Lab, seconds: int, pings: int, hz: float) -> str:
    """The campaign's README.md: the link as it was set up and the command that captured it."""
    return README.format(
        name=folder.resolve().name, ns_a=lab.ns_a, ns_b=lab.ns_b, if_a=lab.if_a, if_b=lab.if_b,
        server=SERVER_ADDR, client=CLIENT_ADDR, plen=PREFIX_LEN, server_host=SERVER,
        client_host=CLIENT, qdisc=" ".join(lab.qdisc), link=lab.link,
        rate=lab.rate_mbit * 1_000_000, rate_mbit=lab.rate_mbit, folder=folder, seconds=seconds,
        pings=pings, hz=hz)


def add_parser(sub) -> None:
    p = sub.add_parser("lab", description=__doc__.split("\n\n")[0], help="build a tbf-shaped "
                       "veth link between two namespaces and capture a campaign on it (root)")
    p.add_argument("--campaign-dir", required=True, type=Path)
    p.add_argument("--rate-mbit", type=int, default=200, help="tbf rate (default 200 Mbit/s)")
    p.add_argument("-t", "--time", type=int, default=5, help="iperf3 seconds per direction")
    p.add_argument("--ping-count", type=int, default=10)
    p.add_argument("--netdev-rate", type=float, default=50.0)
    p.add_argument("--date", help="campaign date YYYY-MM-DD (default today)")
    p.add_argument("--prefix", help="namespace/interface name prefix (default: pcl<pid>)")
    p.set_defaults(run=main)


def main(args: argparse.Namespace) -> int:
    capture(args.campaign_dir, args.rate_mbit, args.time, args.ping_count, args.netdev_rate,
            prefix=args.prefix, date=args.date)
    import yaml
    listed = yaml.safe_load((manifest := args.campaign_dir / "manifest.yaml").read_text()).get("files") or []
    print(f"campaign {args.campaign_dir}: {len(listed)} file(s) listed in {manifest}; "
          f"build it with `make docs`")
    return 0
