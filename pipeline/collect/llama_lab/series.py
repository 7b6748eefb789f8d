"""A lab series: one real llama.cpp RPC split timed at several link rates, every rate several
times, as one campaign under ``raw_data/labs/``.

``python -m pipeline.collect llama-lab-series --campaign-dir raw_data/labs/NAME`` (root) builds
the namespace lab once (head in ``<prefix>a``, worker in ``<prefix>b``), starts
``ggml-rpc-server`` and ``llama-server`` once (each pinned to its own core, each under the
``llama-log`` collector), then:

1. for every rate (tbf on both veth ends, or unshaped): ping and iperf3 both ways, files named
   by the rate's link id (``veth_tbf<R>`` or ``veth``);
2. ``--repetitions`` rounds; each round runs every rate once, in an order shuffled afresh from
   ``--seed`` (a slow spell of the machine falls on all rates alike); a run re-shapes the link,
   waits a quiet second and drives one prefill (a fresh prompt), one decode of
   ``--decode-tokens`` and one KV snapshot (:mod:`pipeline.collect.llama_lab.drive`);
3. the GGUF header, and the manifest's ``params.lab_runs``: one entry per run (round, position
   in the round, rate, link, and its three task ids as the head's log numbers them).

The server is not restarted between runs, so every run meets the same loaded weights; each
run's prompt is new (seed + run number), so no run reuses another's cache. The head's
``/proc/net/dev`` is sampled at ``--netdev-hz`` (4 Hz) during the runs: a run's requests are a
quiet second apart, so each request's bytes on the wire are counted whole.

``--hidden`` writes a random-weight model of that hidden size; ``--output-on head`` keeps the
output layer's matrix on the head (``LLAMA_ARG_OVERRIDE_TENSOR``), so the last hidden state
crosses the link instead of the logits.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import time
from pathlib import Path

from pipeline.collect.campaign import Campaign, CollectError, Output, commit
from pipeline.collect.llama_lab.run import driven_tasks, drive_server, env_text, settings, start_logged
from pipeline.collect.llama_lab.model import ARCHS
from pipeline.collect.llama_lab.series_plan import (
    DEFAULT_RATES, OUTPUT_PLACES, label, link_class, link_id, model_shape, output_override,
    parse_rates, schedule,
)
from pipeline.collect.llama_lab.setup import (
    ENV_FILE, HEAD, HEAD_ADDR, IDLE_LEAD_S, IPERF_PORT, RPC_PORT, WORKER, WORKER_ADDR,
)
from pipeline.collect.netns_lab import (
    PREFIX_LEN, Lab, child_env, collector, down, missing_prerequisites, run_collector,
    stop_collectors, up, wait_listen, wait_ready,
)
from pipeline.collect.readme import write_readme

HEAD_CPU, WORKER_CPU = 0, 1
QUIET_S = 1.0
# 4 Hz: a run's requests are a quiet second apart, so every sampling interval holds the traffic
# of one request at most and a window counted in whole intervals takes all of its bytes
SERIES_NETDEV_HZ = 4.0


def shape(lab: Lab, rate: int | None) -> None:
    """Put tbf at ``rate`` on both veth ends (or no qdisc)."""
    lab.rate_mbit = rate
    for ns, iface in ((lab.ns_a, lab.if_a), (lab.ns_b, lab.if_b)):
        subprocess.run(["ip", "netns", "exec", ns, "tc", "qdisc", "del", "dev", iface, "root"],
                       capture_output=True, check=False)
        if lab.qdisc:
            r = subprocess.run(["ip", "netns", "exec", ns, "tc", "qdisc", "add", "dev", iface,
                                "root", *lab.qdisc], capture_output=True, text=True, check=False)
            if r.returncode != 0:
                raise CollectError(f"tc qdisc add dev {iface} root {' '.join(lab.qdisc)}: "
                                   f"{r.stderr.strip()}")


def link_entry(lab: Lab) -> dict:
    entry = {"label": label(lab.rate_mbit), "class": link_class(lab.rate_mbit),
             "interfaces": {HEAD: lab.if_a, WORKER: lab.if_b}, "status": "current",
             "nominal_speed": True}
    if lab.rate_mbit is not None:
        entry["shaped_rate_bits_per_s"] = lab.rate_mbit * 1_000_000
        entry["qdisc"] = f"tc qdisc add dev <veth end> root {' '.join(lab.qdisc)} (both ends)"
    return entry


def capture(folder: Path, binaries: Path, model: Path, rates: list[int | None], repetitions: int,
            prompt_tokens: int = 1024, decode_tokens: int = 128, ngl: int = 5, ubatch: int = 256,
            seed: int = 1, prefix: str | None = None, date: str | None = None,
            series: str | None = None, output_on: str = "worker",
            netdev_hz: float = SERIES_NETDEV_HZ, hidden: int | None = None,
            arch: str = "llama", kv_heads: int | None = None) -> list[dict]:
    """Run the series into ``folder``; returns ``params.lab_runs``. ``hidden``, ``arch`` and
    ``kv_heads`` only name the generated model's shape in the manifest and the README's command
    (``hidden`` None: ``model`` was given)."""
    why = missing_prerequisites()
    if why:
        raise CollectError(f"llama-lab-series: {why}")
    lab = Lab(prefix or f"lsr{os.getpid() % 100000}", None)
    name = folder.resolve().name
    title = (f"llama.cpp RPC split of {model.stem}, output layer on the {output_on}, timed at "
             f"{len(rates)} link rates, {repetitions} rounds (namespace lab)")
    base = ["--campaign-dir", str(folder), "--kind", "lab_series", "--title", title]
    if date:
        base += ["--date", date]

    def common(rate: int | None) -> list[str]:
        return [*base, "--link", link_id(rate),
                "--link-label", label(rate), "--link-class", link_class(rate)]
    head_side, worker_side = ["--host", HEAD, "--role", "head"], ["--host", WORKER, "--role", "worker"]
    to_head = [*worker_side, "--peer", HEAD, "--peer-role", "head"]
    values = {**settings(model.resolve(), ngl, ubatch, 1024, 4096), **output_override(output_on)}
    plan = schedule(rates, repetitions, seed)
    links: dict[str, dict] = {}
    rpc = server = iperf = sampler = None
    try:
        down(lab)
        up(lab)
        run_collector(collector(lab.ns_a, "ethtool", *common(None), *head_side, "--iface", lab.if_a))
        run_collector(collector(lab.ns_b, "ethtool", *common(None), *worker_side, "--iface", lab.if_b))
        iperf = subprocess.Popen(["ip", "netns", "exec", lab.ns_a, "iperf3", "-s", "-B", HEAD_ADDR,
                                  "-p", str(IPERF_PORT)],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_listen(lab.ns_a, IPERF_PORT)
        for rate in rates:
            shape(lab, rate)
            links[lab.link] = link_entry(lab)
            run_collector(collector(lab.ns_b, "ping", *common(rate), *to_head, "--target", HEAD_ADDR,
                                    "-c", "10", "-i", "0.2"))
            run_collector(collector(lab.ns_b, "iperf3", *common(rate), *to_head, "--server", HEAD_ADDR,
                                    "--port", str(IPERF_PORT), "-t", "3"))
        iperf.terminate()
        iperf.wait()
        iperf = None
        shape(lab, None)
        commit(Campaign(folder, name), [Output(
            ENV_FILE, "env", {"host": HEAD, "split_hosts": WORKER, "link": "veth",
                              "captured_by": "pipeline/collect/llama_lab/series.py (the file that "
                                             "configured llama-server)"},
            data=env_text(values, None).encode())], quiet=True)
        rpc = start_logged(lab.ns_b, common(None), WORKER, "worker",
                           [str(binaries / "ggml-rpc-server"), "-H", WORKER_ADDR, "-p", str(RPC_PORT),
                            "-t", "1"], cpu=WORKER_CPU)
        wait_listen(lab.ns_b, RPC_PORT, timeout=60)
        server = start_logged(lab.ns_a, common(None), HEAD, "head", [str(binaries / "llama-server")],
                              extra_env=values, cpu=HEAD_CPU)
        drive_server(lab, ["--wait-only"])
        if netdev_hz > 0:
            # the head's end carries both directions; the capture starts on a quiet link
            sampler = subprocess.Popen(
                collector(lab.ns_a, "netdev", *common(None), *head_side, "--rate", f"{netdev_hz:g}"),
                env=child_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            wait_ready(sampler)
            time.sleep(IDLE_LEAD_S)
        for number, (rnd, pos, rate) in enumerate(plan, start=1):
            shape(lab, rate)
            time.sleep(QUIET_S)
            drive_server(lab, ["--prompt-tokens", str(prompt_tokens), "--decode-tokens",
                               str(decode_tokens), "--seed", str(seed * 100_000 + number)])
            print(f"run {number}/{len(plan)}: round {rnd}, {label(rate)}", flush=True)
        time.sleep(QUIET_S)
        if sampler is not None:
            stop_collectors([sampler], "netdev sampler")
            sampler = None
        stop_collectors([server], "llama-server", timeout=120)
        server = None
        stop_collectors([rpc], "ggml-rpc-server", timeout=120)
        rpc = None
        run_collector(collector(lab.ns_a, "gguf", *common(None), *head_side, str(model)))
        tasks = driven_tasks(folder / "journal" / f"{HEAD}-llama-server.log")
        if len(tasks) != 3 * len(plan):
            raise CollectError(f"llama-lab-series: llama-server's log times {len(tasks)} task(s), "
                               f"expected 3 per run, {3 * len(plan)}")
        runs = [{"run": n, "round": rnd, "position": pos, "rate_mbit": rate,
                 "link": link_id(rate),
                 "prefill_task": tasks[3 * (n - 1)], "decode_task": tasks[3 * (n - 1) + 1],
                 "snapshot_task": tasks[3 * (n - 1) + 2]}
                for n, (rnd, pos, rate) in enumerate(plan, start=1)]
        commit(Campaign(folder, name, links=links, params={
            "lab_series": series or name, "lab_runs": runs,
            "lab_drive": {"prompt_tokens": prompt_tokens, "decode_tokens": decode_tokens,
                          "seed": seed, "repetitions": repetitions, "ngl": ngl, "ubatch": ubatch,
                          "output_on": output_on, "netdev_hz": netdev_hz,
                          **({"arch": arch} if arch != "llama" else {}),
                          **({"kv_heads": kv_heads} if kv_heads is not None else {})},
            "lab_pinning": f"llama-server on CPU {HEAD_CPU}, ggml-rpc-server on CPU {WORKER_CPU} "
                           f"(taskset -c), one thread each",
            "lab_setup": (f"veth pair {lab.if_a} ({HEAD_ADDR}/{PREFIX_LEN}, netns {lab.ns_a}, {HEAD}) "
                          f"<-> {lab.if_b} ({WORKER_ADDR}/{PREFIX_LEN}, netns {lab.ns_b}, {WORKER}); "
                          f"both ends re-shaped before each run"),
            "captured_by": "python -m pipeline.collect llama-lab-series"}), [], quiet=True)
        from pipeline.collect.llama_lab.readme import series_readme_text
        write_readme(folder, series_readme_text(folder, binaries, model, rates,
                                                date or time.strftime("%Y-%m-%d", time.gmtime()),
                                                hidden))
        return runs
    finally:
        for proc in (p for p in (server, rpc, iperf, sampler) if p is not None):
            proc.kill()
            proc.wait()
        down(lab)


def add_parser(sub) -> None:
    p = sub.add_parser("llama-lab-series", help="time a real llama.cpp RPC split at several tbf "
                       "rates, several shuffled rounds, into one lab-series campaign (root)",
                       description=__doc__.split("\n\n")[0])
    p.add_argument("--campaign-dir", required=True, type=Path)
    p.add_argument("--binaries", type=Path, help="folder with llama-server and ggml-rpc-server "
                   "(default: scripts/build_llama_cpp.sh's cache, built when missing)")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--model", type=Path, help="GGUF model (default: the lab's random-weight model)")
    which.add_argument("--hidden", type=int, default=512, help="hidden size of the random-weight "
                       "model written for the series (default 512; 64-wide heads, 8 blocks)")
    p.add_argument("--arch", choices=ARCHS, default="llama",
                   help="the random-weight model's family: llama, or qwen2 (biases on Q, K and V; "
                        "keys under qwen2.)")
    p.add_argument("--kv-heads", type=int, help="KV heads of the random-weight model (default: as "
                   "many as attention heads; fewer is grouped-query attention)")
    p.add_argument("--output-on", choices=OUTPUT_PLACES, default="worker",
                   help="where the output layer's matrix runs: with the last blocks on the worker "
                        "(what -ngl does; the logits cross the link) or on the head (-ot; the last "
                        "hidden state crosses it)")
    p.add_argument("--netdev-hz", type=float, default=SERIES_NETDEV_HZ,
                   help=f"the head's /proc/net/dev sampling rate during the runs (default "
                        f"{SERIES_NETDEV_HZ:g}; 0: no capture)")
    p.add_argument("--rates", default=DEFAULT_RATES, help=f"tbf rates in Mbit/s and 'unshaped' "
                   f"(default {DEFAULT_RATES})")
    p.add_argument("--repetitions", type=int, default=5, help="rounds; every rate once per round")
    p.add_argument("--prompt-tokens", type=int, default=1024)
    p.add_argument("--decode-tokens", type=int, default=128)
    p.add_argument("--ngl", type=int, default=5)
    p.add_argument("--seed", type=int, default=1, help="seeds the rounds' order and the prompts")
    p.add_argument("--series", help="the series name (default: the folder name)")
    p.add_argument("--date", help="campaign date YYYY-MM-DD (default today)")
    p.add_argument("--prefix", help="namespace/interface name prefix (default: lsr<pid>)")
    p.set_defaults(run=main)


def main(args: argparse.Namespace) -> int:
    from pipeline.collect.llama_lab.tools import binaries_dir, lab_model
    if args.repetitions < 1:
        raise CollectError("--repetitions: at least 1")
    binaries = args.binaries or binaries_dir()
    if args.model and (args.arch != "llama" or args.kv_heads is not None):
        raise CollectError("--arch and --kv-heads shape the generated model: not with --model")
    model = args.model or lab_model(binaries, model_shape(args.hidden, args.arch, args.kv_heads))
    runs = capture(args.campaign_dir, binaries, model, parse_rates(args.rates), args.repetitions,
                   args.prompt_tokens, args.decode_tokens, args.ngl, seed=args.seed,
                   prefix=args.prefix, date=args.date, series=args.series,
                   output_on=args.output_on, netdev_hz=args.netdev_hz,
                   hidden=None if args.model else args.hidden, arch=args.arch,
                   kv_heads=args.kv_heads)
    print(f"campaign {args.campaign_dir}: {len(runs)} runs; build it with `make docs`")
    return 0
