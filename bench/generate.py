"""Inputs for the benchmark, written from the tools' own format strings (never committed).

``netdev_capture`` writes a procnetdev-capture v1 file (raw_data/README.md) of about the asked
size: 50 Hz samples of three interfaces whose counters grow, printed with the kernel's
``dev_seq_printf_stats`` widths. ``ping_run`` writes a ping run of the asked number of lines in
one of three dialects (iputils, iputils with ``-D -O``, BSD): the ``PING`` header, one line per
probe and the statistics summary the tool prints.
"""
from __future__ import annotations

from pathlib import Path

_TITLES = ("Inter-|   Receive                                                |  Transmit\n"
           " face |bytes    packets errs drop fifo frame compressed multicast"
           "|bytes    packets errs drop fifo colls carrier compressed\n")
_IFACE = ("%6s: %7d %7d %4d %4d %4d %5d %10d %9d %8d %7d %4d %4d %4d %5d %7d %10d\n")
_INTERFACES = ("lo", "eth0", "wg0")


def netdev_capture(path: Path, size_bytes: int, host: str = "bench", start: float = 1.8e9) -> int:
    """Write about ``size_bytes`` of capture to ``path``; returns the number of samples."""
    path = Path(path)
    counters = {name: [0] * 16 for name in _INTERFACES}
    written = 0
    n = 0
    with open(path, "w", encoding="ascii", buffering=1 << 20) as fh:
        head = (f"# procnetdev-capture v1\n# host={host} rate_hz=50 achieved_hz=50.00 "
                f"worst_gap_ms=20.0 started={start:.6f}\n")
        fh.write(head)
        written += len(head)
        while written < size_bytes:
            block = [f"@ {start + n * 0.02:.6f}\n", _TITLES]
            for i, name in enumerate(_INTERFACES):
                c = counters[name]
                c[0] += 1500 * (i + 1) * 7 + n % 13      # rx bytes
                c[1] += 7 + i                           # rx packets
                c[8] += 900 * (i + 1) * 5 + n % 7       # tx bytes
                c[9] += 5 + i                           # tx packets
                block.append(_IFACE % (name, *c))
            text = "".join(block)
            fh.write(text)
            written += len(text)
            n += 1
    return n


PING_DIALECTS = ("iputils", "iputils -D -O", "bsd")


def _loss(transmitted: int, received: int) -> str:
    return f"{(transmitted - received) * 100.0 / transmitted:g}%"


def ping_run(path: Path, lines: int, destination: str = "10.200.0.2",
             dialect: str = "iputils") -> dict:
    """Write a ping run of about ``lines`` lines in one of ``PING_DIALECTS``; returns what its
    statistics say (packets sent and received, min/avg/max round trip in ms).

    - ``iputils``: ``%d bytes from %s: icmp_seq=%u ttl=%d time=%.3f ms`` per reply.
    - ``iputils -D -O``: each reply line after ``[<unix seconds>.<us>] ``, and every 10th probe
      unanswered, reported as ``no answer yet for icmp_seq=%u`` (ping_common.c,
      ``print_timestamp`` and ``-O``); the summary counts those as lost.
    - ``bsd``: FreeBSD/macOS ``ping``: ``PING %s (%s): %d data bytes``, ``icmp_seq`` from 0,
      ``%d packets received, %.1f%% packet loss`` and ``round-trip min/avg/max/stddev``.
    """
    path = Path(path)
    probes = max(lines - 6, 1)
    stamped = dialect == "iputils -D -O"
    times = []
    with open(path, "w", encoding="ascii", buffering=1 << 20) as fh:
        if dialect == "bsd":
            fh.write(f"PING {destination} ({destination}): 56 data bytes\n")
        else:
            fh.write(f"PING {destination} ({destination}) 56(84) bytes of data.\n")
        for seq in range(1, probes + 1):
            stamp = f"[{1796183039 + seq // 100}.{seq % 100 * 10000:06d}] " if stamped else ""
            if stamped and seq % 10 == 0:
                fh.write(f"{stamp}no answer yet for icmp_seq={seq}\n")
                continue
            t = 0.2 + (seq % 97) / 1000
            times.append(t)
            icmp_seq = seq - 1 if dialect == "bsd" else seq
            fh.write(f"{stamp}64 bytes from {destination}: icmp_seq={icmp_seq} ttl=64 time={t:.3f} ms\n")
        received = len(times)
        mean = sum(times) / received
        dev = (sum((t - mean) ** 2 for t in times) / received) ** 0.5
        fh.write(f"\n--- {destination} ping statistics ---\n")
        if dialect == "bsd":
            fh.write(f"{probes} packets transmitted, {received} packets received, "
                     f"{(probes - received) * 100.0 / probes:.1f}% packet loss\n")
            fh.write(f"round-trip min/avg/max/stddev = {min(times):.3f}/{mean:.3f}/"
                     f"{max(times):.3f}/{dev:.3f} ms\n")
        else:
            fh.write(f"{probes} packets transmitted, {received} received, "
                     f"{_loss(probes, received)} packet loss, time {probes * 10}ms\n")
            fh.write(f"rtt min/avg/max/mdev = {min(times):.3f}/{mean:.3f}/{max(times):.3f}/"
                     f"{dev:.3f} ms\n")
    return {"packets_transmitted": probes, "packets_received": received,
            **{name: float(f"{v:.3f}") for name, v in
               (("rtt_min_ms", min(times)), ("rtt_avg_ms", mean), ("rtt_max_ms", max(times)))}}
