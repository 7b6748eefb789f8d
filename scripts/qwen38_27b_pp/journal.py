"""``journalctl -u frank-dragoon.service -o json`` export of llama-server's log lines."""
from __future__ import annotations

import hashlib
import json
import random

from .targets import BOOT_US, CLAW_IP, PID, RPC_PORT, SEED


def journal_text(log: list[tuple[int, str]]) -> str:
    rng = random.Random(SEED + "/journal")
    hexid = lambda: "".join(rng.choice("0123456789abcdef") for _ in range(32))
    boot, machine, seqid, stream, invocation = hexid(), hexid(), hexid(), hexid(), hexid()
    cmdline = ("/opt/llama.cpp/build/bin/llama-server --model /srv/models/qwen3.8-27b/Qwen3.8-27B-Q4_K_M.gguf "
               f"--rpc {CLAW_IP}:{RPC_PORT} --tensor-split 0.68,0.32 -ngl 999 -c 131072 -np 1 -b 2048 "
               "-ub 256 -ctk q8_0 -ctv f16 --spec-draft-n-max 4 --spec-draft-n-min 0 --cache-ram 8192 "
               "--host 0.0.0.0 --port 8080")
    seq = 0x1A3F21
    lines = []
    for us, msg in log:
        seq += rng.randint(1, 23)   # other units log in between
        mono = us - BOOT_US
        x = hashlib.sha256(f"{seq}:{msg}".encode()).hexdigest()[:16]
        entry = {
            "__CURSOR": f"s={seqid};i={seq:x};b={boot};m={mono:x};t={us:x};x={x}",
            "__REALTIME_TIMESTAMP": str(us), "__MONOTONIC_TIMESTAMP": str(mono),
            "_BOOT_ID": boot, "_MACHINE_ID": machine, "PRIORITY": "6", "SYSLOG_FACILITY": "3",
            "_UID": "998", "_GID": "998", "_SYSTEMD_SLICE": "system.slice", "_TRANSPORT": "stdout",
            "_EXE": "/opt/llama.cpp/build/bin/llama-server", "_CAP_EFFECTIVE": "0",
            "_HOSTNAME": "server", "_COMM": "llama-server", "SYSLOG_IDENTIFIER": "llama-server",
            "_RUNTIME_SCOPE": "system", "MESSAGE": msg, "_CMDLINE": cmdline,
            "_SYSTEMD_UNIT": "frank-dragoon.service",
            "_SYSTEMD_CGROUP": "/system.slice/frank-dragoon.service",
            "_STREAM_ID": stream, "_PID": str(PID), "_SYSTEMD_INVOCATION_ID": invocation,
        }
        lines.append(json.dumps(entry, separators=(",", ":")))
    return "\n".join(lines) + "\n"
