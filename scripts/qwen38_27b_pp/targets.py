"""The seed §0 figures the campaign must give back, and the placeholders around them.

Every other module imports its numbers from here; ``rel``/``fmt_ts``/``write`` are the
small time and file helpers they share."""
from __future__ import annotations

from pathlib import Path

CAMPAIGN = "qwen38-27b-pp"
SEED = "qwen38-27b-pp/2026-08-17"

# ---------------------------------------------------------------- seed §0 targets
PROMPT_TOKENS = 13959            # task 11924 prompt (fresh, 14k context)
PREFILL_MS = 30485.0             # "prompt eval time"
DECODE_TOKENS = 962
DECODE_MS = 40988.0
DRAFT_ACCEPTED, DRAFT_GENERATED = 712, 1000
UBATCH = 256
H2W_PER_POS = 40755              # 39.8 KiB/position head -> worker (server eno1 tx)
W2H_PER_POS = 39322              # 38.4 KiB/position worker -> head (claw eno1 tx)
SNAP_TOKENS = 98100
SNAP_TOOK_MS = 14418.0
SNAP_BYTES = 3_454_000_000       # claw eno1 tx during the snapshot, background removed
SNAP_LINK_S = 13.6               # sum of busy 20 ms intervals
SNAP_PEAK_BPS = 308e6            # byte/s of the busiest interval
BUSY_BPS = 2.5e9 / 8 * 0.05      # 5 % of 2.5 Gbit/s = 15.625 MB/s
IPERF_C2S_BPS = 2.2486e9         # -> 281 MB/s
IPERF_S2C_BPS = 2.3521e9         # -> 294 MB/s
PING = {  # link -> (min, avg, max, mdev) in microseconds, as iputils prints them
    "gbe1_usb": (239, 742, 1085, 334),
    "gbe25": (224, 585, 883, 211),
}

# ---------------------------------------------------------------- placeholders
SERVER_IP, CLAW_IP, CLAW_USB_IP, CLIENT_IP = "192.168.0.20", "192.168.0.42", "192.168.0.43", "192.168.0.15"
RPC_PORT = 50052
TASK_ID = 11924
# 2026-08-17 19:42:07.318274 UTC (12:42 PDT): task 11924's "new prompt" line
T0_US = 1786995727_318274
BOOT_US = 1786744997_204118        # server booted 2026-08-14 22:03:17 UTC
PROC_US = 1786936241_902113        # llama-server (pid 2291) started 2026-08-17 03:10:41 UTC
PID = 2291
ACK_BYTES, MSS_FRAME = 66, 1514    # L2 bytes of a pure ACK / a full TCP segment (MTU 1500)
ACK_RATIO = ACK_BYTES / (2 * MSS_FRAME)   # delayed ACK: one ACK per two segments
KV_BYTES_PER_TOKEN_LAYER = 1088 + 2048    # K q8_0 (4*256 el) + V f16 (4*256 el)


def rel(us: int) -> float:
    """Seconds relative to T0 (floats near zero keep microsecond precision)."""
    return (us - T0_US) / 1e6


def fmt_ts(us: int) -> str:
    return f"{us // 1_000_000}.{us % 1_000_000:06d}"


def write(path: Path, data: str | bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    path.write_bytes(data)

