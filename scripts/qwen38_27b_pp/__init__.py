"""Reconstruction of raw_data/deployments/qwen38-27b-pp/, split by what each part does.

``scripts/reconstruct_qwen38_27b_pp.py`` is the command-line entry point; it calls
``build.build`` and then ``self_check.self_check``.

* ``targets``      seed §0 figures and placeholders (IPs, PIDs, times), shared helpers
* ``gguf_header``, ``env_file``, ``ethtool``, ``iperf3``, ``ping``: one tool's output each
* ``session``      llama-server's log lines and the wire traffic they imply
* ``timeline``     the session itself: task 11924, the growing conversation, the snapshot
* ``snapshot``     the KV snapshot's transfer on claw's sample grid
* ``netdev``       50 Hz /proc/net/dev captures (grid, background, counters, text)
* ``journal``      the journalctl JSON export
* ``manifest``     manifest.yaml
* ``build``        writes everything, in the order that fixes the random draws
* ``self_check``   reads the files back and asserts the seed's numbers
"""
