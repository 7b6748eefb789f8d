"""Collectors: run the measurement tools and file their output into a campaign.

``python -m pipeline.collect <source> --campaign-dir raw_data/deployments/<id> --host <name> ...``
writes the tool's own output plus its manifest.yaml entry (raw_data/README.md),
so the ingester can read the campaign without guessing any context. One module
per source: netdev, iperf3, ping, journal, gguf, ethtool. ``lab`` builds a
two-namespace veth link shaped with tbf and runs them all on it.
"""
