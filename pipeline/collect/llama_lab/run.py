"""One real llama.cpp RPC pipeline split on a shaped link, captured as a deployment campaign.

``python -m pipeline.collect llama-lab --campaign-dir DIR --rate-mbit R`` (root) builds the
namespace lab of ``pipeline/collect/netns_lab.py`` (veth pair, both ends shaped with tbf at R Mbit/s,
or unshaped without ``--rate-mbit``) with the head in ``<prefix>a`` (10.203.0.1) and the worker
in ``<prefix>b`` (10.203.0.2), then:

1. ethtool on both ends; the 50 Hz netdev sampler in both namespaces for the whole run;
   ping and iperf3 both ways (the project's collectors);
2. ``ggml-rpc-server`` in the worker's namespace and ``llama-server`` in the head's, each
   under the ``llama-log`` collector (timestamped logs); llama-server is configured by the
   campaign's env file (``LLAMA_ARG_*``; ``-ngl`` puts the last blocks and the output on the
   worker, the first on the head's CPU), so the file that the pipeline reads is the one that
   configured it;
3. :mod:`pipeline.collect.llama_lab.drive` sends a fresh long prompt (prefill), the same prompt decoding
   (decode) and a short different prompt (llama-server's prompt cache then copies the worker's
   KV back to the head: the snapshot), a quiet second apart;
4. the GGUF header (``gguf`` collector), and the manifest's params: the three tasks (found in
   the head's log with the project's own parser), the series and the lab setup.

Only the lab's own addresses are targeted; the namespaces are deleted in a ``finally``.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from pipeline.collect.campaign import Campaign, CollectError, Output, commit
from pipeline.collect.llama_lab.readme import readme_text
from pipeline.collect.llama_lab.setup import (
    ENV_FILE,
    HEAD,
    HEAD_ADDR,
    HTTP_PORT,
    IDLE_LEAD_S,
    IPERF_PORT,
    NETDEV_HZ,
    RPC_PORT,
    SERIES,
    WORKER,
    WORKER_ADDR,
)
from pipeline.collect.netns_lab import (
    PREFIX_LEN,
    Lab,
    child_env,
    collector,
    down,
    missing_prerequisites,
    run_collector,
    stop_collectors,
    up,
    wait_listen,
    wait_ready,
)
from pipeline.collect.readme import write_readme


def settings(model: Path, ngl: int, ubatch: int, batch: int, ctx: int) -> dict[str, str]:
    """llama-server's configuration, as the env file the campaign keeps (LLAMA_ARG_* names of
    llama.cpp common/arg.cpp)."""
    return {
        "LLAMA_ARG_MODEL": str(model),
        "LLAMA_ARG_RPC": f"{WORKER_ADDR}:{RPC_PORT}",
        "LLAMA_ARG_N_GPU_LAYERS": str(ngl),
        "LLAMA_ARG_TENSOR_SPLIT": "1",
        "LLAMA_ARG_CTX_SIZE": str(ctx),
        "LLAMA_ARG_BATCH": str(batch),
        "LLAMA_ARG_UBATCH": str(ubatch),
        "LLAMA_ARG_N_PARALLEL": "1",
        "LLAMA_ARG_THREADS": "1",
        "LLAMA_ARG_CACHE_RAM": "1024",
        "LLAMA_ARG_LOG_VERBOSITY": "4",
        "LLAMA_ARG_HOST": "127.0.0.1",
        "LLAMA_ARG_PORT": str(HTTP_PORT),
    }


def env_text(values: dict[str, str], rate_mbit: int | None, workers: int = 1) -> str:
    link = "unshaped veth" if rate_mbit is None else f"veth shaped with tbf at {rate_mbit} Mbit/s"
    head = [f"# llama-server of the RPC lab (pipeline/collect/llama_lab/run.py), head {HEAD}, {link}."]
    if workers == 1:
        head += ["# TENSOR_SPLIT lists one device, the worker's RPC device; -ngl puts the last",
                 "# LLAMA_ARG_N_GPU_LAYERS - 1 blocks and the output layer on it, the rest on the",
                 "# head's CPU. Verbosity 4 (trace) logs the prompt-cache lines."]
    else:
        head += [f"# RPC lists {workers} devices, one per worker, each behind its own link; -ngl",
                 "# offloads the last LLAMA_ARG_N_GPU_LAYERS - 1 blocks and the output layer and",
                 "# TENSOR_SPLIT shares them out in RPC's order, the rest stay on the head's CPU.",
                 "# A copy between two workers goes through the head. Verbosity 4 (trace) logs",
                 "# the prompt-cache lines."]
    if "LLAMA_ARG_OVERRIDE_TENSOR" in values:
        head.append("# OVERRIDE_TENSOR keeps the output layer's matrix on the head's CPU: the last")
        head.append("# hidden state crosses the link back instead of the logits.")
    return "\n".join(head + [f"{k}={v}" for k, v in values.items()]) + "\n"


def driven_tasks(log: Path) -> list[int]:
    """The task ids of the driver's requests, in order, from the head's log: every task with a
    prompt eval timing (the project's own parser). The driver sends prefill, decode and
    snapshot, and nothing else reaches the server."""
    from pipeline.ingest.formats.journal import parse
    return [r["task_id"] for r in parse(log) if r.get("event") == "prompt_eval"
            and r.get("task_id") is not None]


def start_logged(ns: str, common: list[str], host: str, role: str, argv: list[str],
                 extra_env: dict[str, str] | None = None, cpu: int | None = None) -> subprocess.Popen:
    """``argv`` under the llama-log collector in namespace ``ns``; pinned to one core when
    ``cpu`` is given (taskset's affinity is inherited by the collector's child)."""
    env = {**child_env(), **(extra_env or {})}
    pin = [] if cpu is None else ["taskset", "-c", str(cpu)]
    return subprocess.Popen(pin + collector(ns, "llama-log", *common, "--host", host, "--role", role,
                                            "--", *argv),
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def drive_server(ns: str, args: list[str]) -> str:
    """The driver, run in the head's namespace ``ns``; returns what it printed."""
    r = subprocess.run(["ip", "netns", "exec", ns, sys.executable, "-m", "pipeline.collect.llama_lab.drive",
                        "--port", str(HTTP_PORT), *args],
                       env=child_env(), capture_output=True, text=True, check=False, timeout=1800)
    if r.returncode != 0:
        raise CollectError(f"llama-lab: driving llama-server failed: "
                           f"{r.stderr.strip()[-400:] or r.returncode}")
    return r.stdout


def capture(folder: Path, binaries: Path, model: Path, rate_mbit: int | None,
            prompt_tokens: int = 1024, decode_tokens: int = 32, ngl: int = 5,
            ubatch: int = 256, batch: int = 1024, ctx: int = 4096, iperf_s: int = 3,
            ping_count: int = 10, netdev_hz: float = NETDEV_HZ, prefix: str | None = None,
            date: str | None = None, seed: int = 1) -> dict:
    """Build the lab, run the split and every collector into ``folder``; returns the driver's
    report (wall-clock instants and llama-server's timings)."""
    why = missing_prerequisites()
    if why:
        raise CollectError(f"llama-lab: {why}")
    for exe in ("llama-server", "ggml-rpc-server"):
        if not (binaries / exe).is_file():
            raise CollectError(f"llama-lab: {binaries / exe} missing (scripts/build_llama_cpp.sh)")
    lab = Lab(prefix or f"prl{os.getpid() % 100000}", rate_mbit)
    shaped = "unshaped" if rate_mbit is None else f"tbf {rate_mbit} Mbit/s"
    common = ["--campaign-dir", str(folder), "--link", lab.link,
              "--link-label", f"veth, {shaped} (namespace lab)",
              "--link-class", "veth" if rate_mbit is None else f"tbf_{rate_mbit}mbit",
              "--kind", "deployment",
              "--title", f"llama.cpp RPC split on a veth link, {shaped} (namespace lab)"]
    if date:
        common += ["--date", date]
    head_side = ["--host", HEAD, "--role", "head"]
    worker_side = ["--host", WORKER, "--role", "worker"]
    to_head = [*worker_side, "--peer", HEAD, "--peer-role", "head"]
    iperf = rpc = server = None
    samplers: list[subprocess.Popen] = []
    values = settings(model.resolve(), ngl, ubatch, batch, ctx)
    try:
        down(lab)
        up(lab)
        run_collector(collector(lab.ns_a, "ethtool", *common, *head_side, "--iface", lab.if_a))
        run_collector(collector(lab.ns_b, "ethtool", *common, *worker_side, "--iface", lab.if_b))
        iperf = subprocess.Popen(["ip", "netns", "exec", lab.ns_a, "iperf3", "-s", "-B", HEAD_ADDR,
                                  "-p", str(IPERF_PORT)],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_listen(lab.ns_a, IPERF_PORT)
        run_collector(collector(lab.ns_b, "ping", *common, *to_head, "--target", HEAD_ADDR,
                      "-c", str(ping_count), "-i", "0.2"))
        run_collector(collector(lab.ns_b, "iperf3", *common, *to_head, "--server", HEAD_ADDR,
                      "--port", str(IPERF_PORT), "-t", str(iperf_s)))
        iperf.terminate()
        iperf.wait()
        iperf = None
        commit(Campaign(folder, folder.resolve().name), [Output(
            ENV_FILE, "env", {"host": HEAD, "split_hosts": WORKER, "link": lab.link,
                              "captured_by": "pipeline/collect/llama_lab/run.py (the file that configured "
                                             "llama-server)"},
            data=env_text(values, rate_mbit).encode())], quiet=True)
        rpc = start_logged(lab.ns_b, common, WORKER, "worker",
                            [str(binaries / "ggml-rpc-server"), "-H", WORKER_ADDR,
                             "-p", str(RPC_PORT), "-t", "1"])
        wait_listen(lab.ns_b, RPC_PORT, timeout=60)
        server = start_logged(lab.ns_a, common, HEAD, "head", [str(binaries / "llama-server")],
                               extra_env=values)
        drive_server(lab.ns_a, ["--wait-only"])     # the weights are uploaded and the warmup is done
        # The captures start on a quiet link: their first seconds are the idle baseline
        # (ref_measurement_params.idle_guard_s) that the window traffic subtracts.
        for ns, side in ((lab.ns_a, head_side), (lab.ns_b, worker_side)):
            samplers.append(subprocess.Popen(
                collector(ns, "netdev", *common, *side, "--rate", f"{netdev_hz:g}"),
                env=child_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE))
        for proc in samplers:
            wait_ready(proc)
        time.sleep(IDLE_LEAD_S)
        drive = drive_server(lab.ns_a, ["--prompt-tokens", str(prompt_tokens),
                             "--decode-tokens", str(decode_tokens), "--seed", str(seed)])
        report = json.loads(drive)
        time.sleep(1.0)          # the last RPC replies and an idle tail
        stop_collectors([server], "llama-server", timeout=120)
        server = None
        stop_collectors([rpc], "ggml-rpc-server", timeout=120)
        rpc = None
        stop_collectors(samplers, "netdev sampler")
        samplers = []
        run_collector(collector(lab.ns_a, "gguf", *common, *head_side, str(model)))
        tasks = driven_tasks(folder / "journal" / f"{HEAD}-llama-server.log")
        if len(tasks) != 3:
            raise CollectError(f"llama-lab: llama-server's log times {len(tasks)} task(s), "
                               f"expected the driver's 3 (prefill, decode, snapshot)")
        prefill_task, decode_task, snapshot_task = tasks
        setup = " ".join(lab.qdisc) or "no qdisc (unshaped)"
        # a veth end reports the driver's fixed 10000Mb/s to ethtool: no line rate
        links = {lab.link: {"interfaces": {HEAD: lab.if_a, WORKER: lab.if_b},
                            "status": "current", "nominal_speed": True}}
        if rate_mbit is not None:
            links[lab.link]["shaped_rate_bits_per_s"] = rate_mbit * 1_000_000
            links[lab.link]["qdisc"] = f"tc qdisc add dev <veth end> root {setup} (both ends)"
        commit(Campaign(folder, folder.resolve().name, links=links, params={
            "prefill_task": prefill_task, "decode_task": decode_task,
            "snapshot_task": snapshot_task, "lab_series": SERIES,
            "lab_rate_mbit": rate_mbit,
            "lab_setup": (f"veth pair {lab.if_a} ({HEAD_ADDR}/{PREFIX_LEN}, netns {lab.ns_a}, "
                          f"{HEAD}) <-> {lab.if_b} ({WORKER_ADDR}/{PREFIX_LEN}, netns {lab.ns_b}, "
                          f"{WORKER}); both ends: {setup}"),
            "lab_drive": {"prompt_tokens": prompt_tokens, "decode_tokens": decode_tokens,
                          "seed": seed},
            "captured_by": "python -m pipeline.collect llama-lab"}), [], quiet=True)
        write_readme(folder, readme_text(folder, lab, binaries, model, ngl, prompt_tokens,
                                         decode_tokens,
                                         date or time.strftime("%Y-%m-%d", time.gmtime())))
        return report
    finally:
        for proc in [p for p in (server, rpc, iperf) if p is not None] + samplers:
            proc.kill()
            proc.wait()
        down(lab)


def add_parser(sub) -> None:
    p = sub.add_parser("llama-lab", help="run a real llama.cpp RPC split between two namespaces "
                                         "on a tbf-shaped veth link and capture it (root)",
                       description=__doc__.split("\n\n")[0])
    p.add_argument("--campaign-dir", required=True, type=Path)
    p.add_argument("--binaries", type=Path, help="folder with llama-server and ggml-rpc-server "
                   "(default: scripts/build_llama_cpp.sh's cache, built when missing)")
    p.add_argument("--model", type=Path, help="GGUF model (default: the lab's random-weight "
                   "model, written when missing: pipeline/collect/llama_lab/model.py)")
    p.add_argument("--rate-mbit", type=int, help="tbf rate; omit for an unshaped veth pair")
    p.add_argument("--prompt-tokens", type=int, default=1024)
    p.add_argument("--decode-tokens", type=int, default=32)
    p.add_argument("--ngl", type=int, default=5, help="llama-server -ngl (default 5: 4 of the "
                   "model's 8 blocks and the output on the worker)")
    p.add_argument("--ubatch", type=int, default=256)
    p.add_argument("--date", help="campaign date YYYY-MM-DD (default today)")
    p.add_argument("--prefix", help="namespace/interface name prefix (default: prl<pid>)")
    p.set_defaults(run=main)


def main(args: argparse.Namespace) -> int:
    from pipeline.collect.llama_lab.tools import binaries_dir, lab_model
    binaries = args.binaries or binaries_dir()
    model = args.model or lab_model(binaries)
    report = capture(args.campaign_dir, binaries, model, args.rate_mbit, args.prompt_tokens,
                     args.decode_tokens, args.ngl, args.ubatch, prefix=args.prefix, date=args.date)
    pre, dec = report["prefill"]["timings"], report["decode"]["timings"]
    print(f"campaign {args.campaign_dir}: prefill {pre.get('prompt_n')} tokens in "
          f"{pre.get('prompt_ms', 0):.0f} ms, decode {dec.get('predicted_n')} tokens in "
          f"{dec.get('predicted_ms', 0):.0f} ms; build it with `make docs`")
    return 0
