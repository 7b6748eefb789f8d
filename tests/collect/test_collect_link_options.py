"""What the tools cannot know about a link, said on any collector's command line: each host's
interface, the rate tc shaped it to, the qdisc, whether ethtool's speed is nominal (issue 38,
item 1). Two runs on the two hosts of a link add up in manifest.yaml; the pages then take the
share of line rate of the shaped rate, and none of a nominal speed."""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

import pytest
import yaml

from pipeline.collect.common import rate

from paths import REPO

ENTRY = {"__REALTIME_TIMESTAMP": "1755456000000000", "_HOSTNAME": "h", "MESSAGE": "hello"}


@pytest.fixture
def journalctl(tmp_path):
    """A journalctl stand-in (no journald in a container) on PATH."""
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "journalctl").write_text(
        "#!/bin/sh\n[ \"$1\" = --version ] && { echo 'systemd 252 (252.38)'; exit 0; }\n"
        f"echo '{json.dumps(ENTRY)}'\n")
    (fake / "journalctl").chmod(0o755)
    return f"{fake}{os.pathsep}{os.environ['PATH']}"


def collect(path, *args):
    env = {**os.environ, "PYTHONPATH": str(REPO), "PATH": path}
    window = ["--since", "2026-08-17 10:00", "--until", "2026-08-17 11:00"]
    return subprocess.run([sys.executable, "-m", "pipeline.collect", "journal", *window, *map(str, args)],
                          capture_output=True, text=True, env=env, cwd=REPO)


def test_two_hosts_runs_add_up_to_the_links_description(tmp_path, journalctl):
    camp = tmp_path / "deployments" / "mine"
    common = ("--campaign-dir", camp, "--unit", "x.service", "--link", "lab")
    r = collect(journalctl, *common, "--host", "head", "--interface", "veth-a",
                "--shaped-rate", "150mbit", "--qdisc", "tbf rate 150mbit burst 64kb latency 50ms")
    assert r.returncode == 0, r.stderr
    r = collect(journalctl, *common, "--host", "worker", "--interface", "veth-b", "--nominal-speed")
    assert r.returncode == 0, r.stderr
    link = yaml.safe_load((camp / "manifest.yaml").read_text())["links"]["lab"]
    # 150mbit = 150 x 10^6 bit/s; the second run's interface joins the first's, not replaces it
    assert link == {"interfaces": {"head": "veth-a", "worker": "veth-b"},
                    "nominal_speed": True, "qdisc": "tbf rate 150mbit burst 64kb latency 50ms",
                    "shaped_rate_bits_per_s": 150_000_000}


def test_a_link_option_without_a_link_is_refused_and_nothing_written(tmp_path, journalctl):
    camp = tmp_path / "deployments" / "mine"
    r = collect(journalctl, "--campaign-dir", camp, "--unit", "x", "--host", "h",
                "--shaped-rate", "1gbit")
    assert r.returncode == 1
    assert "--shaped-rate describes a link: give --link too" in r.stderr
    assert not camp.exists()


@pytest.mark.parametrize("text, bits", [("150mbit", 150_000_000), ("1gbit", 1_000_000_000),
                                        ("500kbit", 500_000), ("2.5Gbit", 2_500_000_000),
                                        ("123456", 123_456)])
def test_rates_read_as_tc_writes_them(text, bits):
    assert rate(text) == bits


@pytest.mark.parametrize("text", ["fast", "0mbit", "-5mbit", "10 parsecs"])
def test_a_rate_that_is_not_one_is_a_usage_error(text):
    with pytest.raises(argparse.ArgumentTypeError, match="rate"):
        rate(text)
