"""Drive llama-server through its HTTP API for the RPC lab (run inside the head's namespace).

``python -m pipeline.collect.llama_lab.drive --port P --prompt-tokens N --decode-tokens D --seed S`` sends
three requests, a quiet second apart, so that no two measured windows touch (the netdev
captures cannot split the traffic of one sampling interval between two windows):

1. *prefill*: a fresh prompt of N random token ids (no prefix shared with anything before it),
   one token generated;
2. *decode*: the same prompt again (the slot holds it, so only the last position is evaluated
   again) and D generated tokens;
3. *snapshot*: a different four-token prompt. With the host-RAM prompt cache on, llama-server
   first saves the slot's state, copying the worker's share of the KV cache (N + D positions)
   back to the head over RPC ("prompt cache update took … ms" in its log).

It prints one JSON object: the wall-clock instants of each request and llama-server's own
``timings`` for each. Only ``127.0.0.1`` inside the namespace is contacted.
"""
from __future__ import annotations

import argparse
import json
import random
import sys
import time
import urllib.error
import urllib.request

FIRST_ORDINARY_TOKEN = 3          # llama-spm: 0 <unk>, 1 <s>, 2 </s>
SNAPSHOT_PROMPT_TOKENS = 4        # as little traffic of its own as possible after the copy
QUIET_S = 1.0


def _post(url: str, body: dict, timeout: float) -> dict:
    data = json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=timeout) as response:
        return json.load(response)


def wait_healthy(base: str, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    last = ""
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{base}/health", timeout=5) as response:
                if response.status == 200:
                    return
        except (urllib.error.URLError, OSError) as exc:
            last = str(exc)
        time.sleep(0.2)
    raise SystemExit(f"drive: {base}/health not ready after {timeout:g} s ({last})")


def prompt(n: int, seed: int, vocab: int) -> list[int]:
    rng = random.Random(seed)
    return [rng.randrange(FIRST_ORDINARY_TOKEN, vocab) for _ in range(n)]


def complete(base: str, tokens: list[int], n_predict: int, timeout: float) -> dict:
    started = time.time()
    body = {"prompt": tokens, "n_predict": n_predict, "cache_prompt": True, "ignore_eos": True,
            "temperature": 0.0, "stream": False}
    result = _post(f"{base}/completion", body, timeout)
    ended = time.time()
    return {"started_unix_s": started, "ended_unix_s": ended,
            "timings": result.get("timings", {}), "tokens_evaluated": result.get("tokens_evaluated"),
            "tokens_predicted": result.get("tokens_predicted")}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m pipeline.collect.llama_lab.drive", description=__doc__.split("\n\n")[0])
    p.add_argument("--port", type=int, default=8080)
    p.add_argument("--prompt-tokens", type=int, default=1024)
    p.add_argument("--decode-tokens", type=int, default=32)
    p.add_argument("--vocab", type=int, default=32000)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--timeout", type=float, default=600.0)
    p.add_argument("--wait-only", action="store_true",
                   help="only wait until llama-server has loaded the model and answers /health")
    args = p.parse_args(argv)
    base = f"http://127.0.0.1:{args.port}"
    wait_healthy(base, 600.0)
    if args.wait_only:
        return 0
    tokens = prompt(args.prompt_tokens, args.seed, args.vocab)
    report = {"prefill": complete(base, tokens, 1, args.timeout)}
    time.sleep(QUIET_S)
    report["decode"] = complete(base, tokens, args.decode_tokens, args.timeout)
    time.sleep(QUIET_S)
    report["snapshot"] = complete(base, prompt(SNAPSHOT_PROMPT_TOKENS, args.seed + 1_000_003,
                                               args.vocab), 1, args.timeout)
    json.dump(report, sys.stdout)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
