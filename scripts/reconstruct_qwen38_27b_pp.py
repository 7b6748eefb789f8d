#!/usr/bin/env python3
"""Write the *reconstructed* deployment campaign raw_data/deployments/qwen38-27b-pp/.

The seed page "Ethernet Bandwidth Math" §0 (shared/seeds/000_…) reports measurements of
the Qwen3.8-27B pipeline-parallel deployment (head ``server``, worker ``claw``) without
the raw files. This script writes those files in each tool's real output format, so that
the pipeline's parsers and SQL give back the seed's figures:

* ``gguf/``     GGUF header + metadata only (``gguf.GGUFWriter``, no tensors)
* ``env/``      the systemd EnvironmentFile of ``frank-dragoon.service``
* ``ethtool/``  ``ethtool IFACE`` text for the three NICs
* ``iperf3/``   ``iperf3 -J -c server -t 10`` (and ``-R``) run on claw, cJSON layout
* ``ping/``     iputils ``ping -c 20`` from server to claw over each path
* ``netdev/``   50 Hz ``/proc/net/dev`` captures (raw_data/README.md) on both hosts,
                one around prefill task 11924, one around the 98,100-token KV snapshot
* ``journal/``  ``journalctl -u frank-dragoon.service -o json`` of llama-server

Deterministic: fixed seeds (one ``random.Random`` per file, seeded by a string), no
clock, no numpy RNG; running it twice gives byte-identical files. It ends by reading
the files back with plain Python (json, re, struct via gguf) and asserting the seed's
numbers, printing a table. Host names, IPs, PIDs, boot ids, cursors, background
traffic and per-sample jitter are placeholders, as the campaign README says.

The work is done by the package ``scripts/qwen38_27b_pp/`` (one module per file kind,
the session model, the build and the self-check); this file is only its command line.

    .venv/bin/python scripts/reconstruct_qwen38_27b_pp.py [--out DIR]
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

# The script is run as a file (python scripts/reconstruct_qwen38_27b_pp.py), not as a
# module, so its package sibling scripts/qwen38_27b_pp/ is importable only once the
# scripts folder is on sys.path; scripts/ is not an installed package.
sys.path.insert(0, str(Path(__file__).resolve().parent))

from qwen38_27b_pp.build import build  # noqa: E402
from qwen38_27b_pp.self_check import self_check  # noqa: E402
from qwen38_27b_pp.targets import CAMPAIGN  # noqa: E402

REPO = Path(__file__).resolve().parents[1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, default=REPO / "raw_data/deployments" / CAMPAIGN)
    args = ap.parse_args()
    build(args.out)
    self_check(args.out)


if __name__ == "__main__":
    main()
