"""Point-to-point transfer benchmark: torch.distributed send/recv between two ranks.

An optional tool, not part of the docs build: torch is imported only inside
``main()``, so the pipeline (which only parses this tool's output, format
``gloo_bench``) never needs it. Run it on both hosts, e.g.::

    MASTER_ADDR=10.0.0.1 MASTER_PORT=29500 WORLD_SIZE=2 RANK=0 \\
        python -m pipeline.collect.p2p_bench --backend gloo --sizes 67108864,134217728 \\
        --iters 10 --warmup 2 --output send.jsonl
    # … and RANK=1 on the receiver, writing recv.jsonl

Rank 0 sends, rank 1 receives. Before each timed transfer both ranks meet at a
barrier; the time is taken on each rank from just after the barrier to the end of
its own ``send``/``recv`` (for NCCL, after ``torch.cuda.synchronize()``), so the
receiver's time includes waiting for the first byte. Warm-up iterations are not
written.

Output: JSON lines, one object per timed transfer per rank, keys in this order::

    {"bench": "p2p_bench", "schema": 1, "backend": "gloo", "world_size": 2,
     "rank": 1, "peer": 0, "op": "recv", "size_bytes": 67108864,
     "dtype": "float32", "iteration": 0, "time_s": 0.107123}

``size_bytes`` is the tensor's size (elements x element size), ``iteration``
counts timed transfers from 0 per size, ``time_s`` is wall time in seconds
(``time.perf_counter``). Which host, link and tc setting a file belongs to is
recorded in the campaign manifest, not in the lines.
"""
from __future__ import annotations

import argparse
import json
import sys
import time

SCHEMA = 1


def record(backend: str, world_size: int, rank: int, peer: int, op: str, size_bytes: int,
           dtype: str, iteration: int, time_s: float) -> str:
    """One output line (kept separate from torch so tests can check the format)."""
    return json.dumps({
        "bench": "p2p_bench", "schema": SCHEMA, "backend": backend, "world_size": world_size,
        "rank": rank, "peer": peer, "op": op, "size_bytes": size_bytes, "dtype": dtype,
        "iteration": iteration, "time_s": round(time_s, 9),
    })


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--backend", choices=["gloo", "nccl"], default="gloo")
    parser.add_argument("--sizes", default="67108864,134217728",
                        help="comma-separated transfer sizes in bytes")
    parser.add_argument("--iters", type=int, default=10)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--output", default="-", help="JSON-lines file ('-' = stdout)")
    args = parser.parse_args(argv)

    import torch  # optional dependency: only the benchmark needs it
    import torch.distributed as dist

    dist.init_process_group(backend=args.backend)   # env:// (MASTER_ADDR, RANK, WORLD_SIZE)
    rank, world = dist.get_rank(), dist.get_world_size()
    if world != 2:
        print(f"p2p_bench: needs exactly 2 ranks, found {world}", file=sys.stderr)
        return 2
    device = torch.device("cuda", 0) if args.backend == "nccl" else torch.device("cpu")
    peer, op = (1, "send") if rank == 0 else (0, "recv")
    out = sys.stdout if args.output == "-" else open(args.output, "w", encoding="utf-8")
    try:
        for size in (int(s) for s in args.sizes.split(",")):
            tensor = torch.zeros(size // 4, dtype=torch.float32, device=device)
            for i in range(args.warmup + args.iters):
                dist.barrier()
                start = time.perf_counter()
                (dist.send if op == "send" else dist.recv)(tensor, peer)
                if device.type == "cuda":
                    torch.cuda.synchronize(device)
                elapsed = time.perf_counter() - start
                if i >= args.warmup:
                    out.write(record(args.backend, world, rank, peer, op, tensor.numel() * 4,
                                     "float32", i - args.warmup, elapsed) + "\n")
            out.flush()
    finally:
        if out is not sys.stdout:
            out.close()
        dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
