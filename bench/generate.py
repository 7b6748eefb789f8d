"""Inputs for the benchmark, written from the tools' own format strings (never committed).

``netdev_capture`` writes a procnetdev-capture v1 file (raw_data/README.md) of about the asked
size: 50 Hz samples of three interfaces whose counters grow, printed with the kernel's
``dev_seq_printf_stats`` widths. ``ping_run`` writes an iputils ping run of the asked number of
lines: the ``PING`` header, one reply line per probe (``%d bytes from %s: icmp_seq=%u ttl=%d
time=%.3f ms``) and the statistics summary that ``finish()`` prints.
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


def ping_run(path: Path, lines: int, destination: str = "10.200.0.2") -> int:
    """Write an iputils ping run of ``lines`` lines; returns the number of replies."""
    path = Path(path)
    replies = max(lines - 6, 1)
    total_ms = 0.0
    times = []
    with open(path, "w", encoding="ascii", buffering=1 << 20) as fh:
        fh.write(f"PING {destination} ({destination}) 56(84) bytes of data.\n")
        for seq in range(1, replies + 1):
            t = 0.2 + (seq % 97) / 1000
            times.append(t)
            total_ms += t
            fh.write(f"64 bytes from {destination}: icmp_seq={seq} ttl=64 time={t:.3f} ms\n")
        mean = total_ms / replies
        mdev = (sum((t - mean) ** 2 for t in times) / replies) ** 0.5
        fh.write(f"\n--- {destination} ping statistics ---\n")
        fh.write(f"{replies} packets transmitted, {replies} received, 0% packet loss, "
                 f"time {replies * 10}ms\n")
        fh.write(f"rtt min/avg/max/mdev = {min(times):.3f}/{mean:.3f}/{max(times):.3f}/{mdev:.3f} ms\n")
    return replies
