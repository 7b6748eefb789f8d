"""``python -m pipeline.collect <source> ...``: one subcommand per collector.

Exit codes: 0 done; 1 the tool or its target failed (one line on stderr,
nothing written); 2 bad command-line usage (argparse).
"""
from __future__ import annotations

import argparse
import sys

from pipeline.collect import ethtool, gguf, iperf3, journal, llama_log, netdev, ping, scaffold
from pipeline.collect import netns_lab as lab
from pipeline.collect.campaign import CollectError, command_line
from pipeline.collect.llama_lab import run as llama_lab
from pipeline.collect.llama_lab import series as llama_lab_series

MODULES = (netdev, iperf3, ping, journal, llama_log, gguf, ethtool, lab, llama_lab, llama_lab_series,
           scaffold)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m pipeline.collect",
                                description="Capture a link's raw data into a campaign folder.")
    sub = p.add_subparsers(dest="collector", required=True, metavar="SOURCE")
    for module in MODULES:
        module.add_parser(sub)
    return p


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = build_parser().parse_args(argv)
    # Recorded in the manifest so the capture can be repeated exactly.
    args.command_line = command_line(["python", "-m", "pipeline.collect", *argv])
    try:
        return args.run(args)
    except CollectError as exc:
        print(f"collect {args.collector}: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"collect {args.collector}: interrupted; nothing written", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
