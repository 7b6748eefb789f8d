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
    DEFAULT_RATES, OUTPUT_PLACES, label, link_class, model_shape, output_override, parse_rates,
    schedule,
)
from pipeline.collect.llama_lab.setup import ENV_FILE, HEAD, IDLE_LEAD_S, IPERF_PORT, RPC_PORT
from pipeline.collect.llama_lab.topology import MAX_WORKERS, Hop, Star, down, shape, up
from pipeline.collect.netns_lab import (
    DEFAULT_BURST_KB,
    child_env, collector, missing_prerequisites, run_collector, stop_collectors, wait_listen,
    wait_ready,
)
from pipeline.collect.readme import write_readme

HEAD_CPU, WORKER_CPU = 0, 1
QUIET_S = 1.0
# 4 Hz: a run's requests are a quiet second apart, so every sampling interval holds the traffic
# of one request at most and a window counted in whole intervals takes all of its bytes
SERIES_NETDEV_HZ = 4.0


def split_settings(star: Star, tensor_split: str | None) -> dict[str, str]:
    """llama-server's RPC devices, one per worker in hop order, and the layer split over them
    (default: one device takes it all; two share it 3:4, which with -ngl 7 of 8 blocks gives
    each worker 3 blocks and the second the output layer too)."""
    split = tensor_split or ("1" if len(star.hops) == 1 else "3,4")
    if len(split.split(",")) != len(star.hops):
        raise CollectError(f"--tensor-split {split}: one share per worker ({len(star.hops)})")
    return {"LLAMA_ARG_RPC": ",".join(f"{h.worker_addr}:{RPC_PORT}" for h in star.hops),
            "LLAMA_ARG_TENSOR_SPLIT": split}


def capture(folder: Path, binaries: Path, model: Path, rates: list[int | None], repetitions: int,
            prompt_tokens: int = 1024, decode_tokens: int = 128, ngl: int = 5, ubatch: int = 256,
            seed: int = 1, prefix: str | None = None, date: str | None = None,
            series: str | None = None, output_on: str = "worker",
            netdev_hz: float = SERIES_NETDEV_HZ, hidden: int | None = None,
            arch: str = "llama", kv_heads: int | None = None, workers: int = 1,
            tensor_split: str | None = None, burst_kb: int = DEFAULT_BURST_KB) -> list[dict]:
    """Run the series into ``folder``; returns ``params.lab_runs``. ``hidden``, ``arch`` and
    ``kv_heads`` only name the generated model's shape in the manifest and the README's command
    (``hidden`` None: ``model`` was given). ``workers`` 2 splits the model over two
    ggml-rpc-servers, each behind its own link (pipeline/collect/llama_lab/topology.py)."""
    why = missing_prerequisites()
    if why:
        raise CollectError(f"llama-lab-series: {why}")
    star = Star(prefix or f"lsr{os.getpid() % 100000}", workers, burst_kb)
    hop1 = star.hops[0]
    name = folder.resolve().name
    over = "" if workers == 1 else f" over {workers} workers"
    place = "last worker" if workers > 1 and output_on == "worker" else output_on
    title = (f"llama.cpp RPC split of {model.stem}{over}, output layer on the {place}, timed "
             f"at {len(rates)} link rates, {repetitions} rounds (namespace lab)")
    base = ["--campaign-dir", str(folder), "--kind", "lab_series", "--title", title]
    if date:
        base += ["--date", date]

    def common(hop: Hop, rate: int | None) -> list[str]:
        star.rate_mbit = rate
        return [*base, "--link", star.link(hop, rate), "--link-label", star.link_entry(hop)["label"],
                "--link-class", link_class(rate)]
    head_side = ["--host", HEAD, "--role", "head"]
    values = {**settings(model.resolve(), ngl, ubatch, 1024, 4096), **split_settings(star, tensor_split),
              **output_override(output_on)}
    plan = schedule(rates, repetitions, seed)
    links: dict[str, dict] = {}
    servers: list[subprocess.Popen] = []
    sampler = None
    try:
        down(star)
        up(star)
        for hop in star.hops:
            run_collector(collector(star.ns_head, "ethtool", *common(hop, None), *head_side,
                                    "--iface", hop.if_head))
            run_collector(collector(hop.ns, "ethtool", *common(hop, None), "--host", hop.worker,
                                    "--role", "worker", "--iface", hop.if_worker))
        for rate in rates:
            shape(star, rate)
            for hop in star.hops:
                links[star.link(hop, rate)] = star.link_entry(hop)
                measure_hop(star, hop, common(hop, rate))
        shape(star, None)
        commit(Campaign(folder, name), [Output(
            ENV_FILE, "env", {"host": HEAD, "split_hosts": ",".join(h.worker for h in star.hops),
                              "link": star.link(hop1, None),
                              "captured_by": "pipeline/collect/llama_lab/series.py (the file that "
                                             "configured llama-server)"},
            data=env_text(values, None, workers).encode())], quiet=True)
        for hop in star.hops:
            servers.append(start_logged(hop.ns, common(hop, None), hop.worker, "worker",
                                        [str(binaries / "ggml-rpc-server"), "-H", hop.worker_addr,
                                         "-p", str(RPC_PORT), "-t", "1"], cpu=WORKER_CPU))
            wait_listen(hop.ns, RPC_PORT, timeout=60)
        servers.insert(0, start_logged(star.ns_head, common(hop1, None), HEAD, "head",
                                       [str(binaries / "llama-server")], extra_env=values,
                                       cpu=HEAD_CPU))
        drive_server(star.ns_head, ["--wait-only"])
        if netdev_hz > 0:
            # the head's ends carry both directions of every hop; the capture starts quiet
            sampler = subprocess.Popen(
                collector(star.ns_head, "netdev", *common(hop1, None), *head_side,
                          "--rate", f"{netdev_hz:g}"),
                env=child_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            wait_ready(sampler)
            time.sleep(IDLE_LEAD_S)
        for number, (rnd, pos, rate) in enumerate(plan, start=1):
            shape(star, rate)
            time.sleep(QUIET_S)
            drive_server(star.ns_head, ["--prompt-tokens", str(prompt_tokens), "--decode-tokens",
                                        str(decode_tokens), "--seed", str(seed * 100_000 + number)])
            print(f"run {number}/{len(plan)}: round {rnd}, {label(rate)}", flush=True)
        time.sleep(QUIET_S)
        if sampler is not None:
            stop_collectors([sampler], "netdev sampler")
            sampler = None
        stop_collectors(servers[:1], "llama-server", timeout=120)
        stop_collectors(servers[1:], "ggml-rpc-server", timeout=120)
        servers = []
        run_collector(collector(star.ns_head, "gguf", *common(hop1, None), *head_side, str(model)))
        tasks = driven_tasks(folder / "journal" / f"{HEAD}-llama-server.log")
        if len(tasks) != 3 * len(plan):
            raise CollectError(f"llama-lab-series: llama-server's log times {len(tasks)} task(s), "
                               f"expected 3 per run, {3 * len(plan)}")
        runs = [{"run": n, "round": rnd, "position": pos, "rate_mbit": rate,
                 "link": star.link(hop1, rate),
                 **({"hop_links": [star.link(h, rate) for h in star.hops]} if workers > 1 else {}),
                 "prefill_task": tasks[3 * (n - 1)], "decode_task": tasks[3 * (n - 1) + 1],
                 "snapshot_task": tasks[3 * (n - 1) + 2]}
                for n, (rnd, pos, rate) in enumerate(plan, start=1)]
        workers_note = ("ggml-rpc-server" if workers == 1 else
                        f"each of the {workers} ggml-rpc-servers")
        commit(Campaign(folder, name, links=links, params={
            "lab_series": series or name, "lab_runs": runs,
            "lab_drive": {"prompt_tokens": prompt_tokens, "decode_tokens": decode_tokens,
                          "seed": seed, "repetitions": repetitions, "ngl": ngl, "ubatch": ubatch,
                          "output_on": output_on, "netdev_hz": netdev_hz, "tbf_burst_kb": burst_kb,
                          **({"arch": arch} if arch != "llama" else {}),
                          **({"kv_heads": kv_heads} if kv_heads is not None else {}),
                          **({"workers": workers,
                              "tensor_split": values["LLAMA_ARG_TENSOR_SPLIT"]} if workers > 1 else {})},
            "lab_pinning": f"llama-server on CPU {HEAD_CPU}, {workers_note} on CPU {WORKER_CPU} "
                           f"(taskset -c), one thread each",
            "lab_setup": star.setup_text(),
            "captured_by": "python -m pipeline.collect llama-lab-series"}), [], quiet=True)
        from pipeline.collect.llama_lab.readme import series_readme_text
        write_readme(folder, series_readme_text(folder, binaries, model, rates,
                                                date or time.strftime("%Y-%m-%d", time.gmtime()),
                                                hidden))
        return runs
    finally:
        for proc in [p for p in servers + [sampler] if p is not None]:
            proc.kill()
            proc.wait()
        down(star)


def measure_hop(star: Star, hop: Hop, common: list[str]) -> None:
    """ping and iperf3 from ``hop``'s worker to the head's end of its link (the iperf3 server
    runs in the head's namespace, bound to that end, for this measurement only)."""
    to_head = ["--host", hop.worker, "--role", "worker", "--peer", HEAD, "--peer-role", "head"]
    iperf = subprocess.Popen(["ip", "netns", "exec", star.ns_head, "iperf3", "-s", "-B",
                              hop.head_addr, "-p", str(IPERF_PORT)],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_listen(star.ns_head, IPERF_PORT)
        run_collector(collector(hop.ns, "ping", *common, *to_head, "--target", hop.head_addr,
                                "-c", "10", "-i", "0.2"))
        run_collector(collector(hop.ns, "iperf3", *common, *to_head, "--server", hop.head_addr,
                                "--port", str(IPERF_PORT), "-t", "3"))
    finally:
        iperf.terminate()
        iperf.wait()


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
    p.add_argument("--burst-kb", type=int, default=DEFAULT_BURST_KB,
                   help=f"tbf's burst in KiB on every shaped end (default {DEFAULT_BURST_KB}: after a "
                        f"pause that much leaves at once; 4 is close to a serializer, as Ethernet is)")
    p.add_argument("--repetitions", type=int, default=5, help="rounds; every rate once per round")
    p.add_argument("--prompt-tokens", type=int, default=1024)
    p.add_argument("--decode-tokens", type=int, default=128)
    p.add_argument("--ngl", type=int, help="llama-server -ngl (default 5 with one worker: 4 of "
                   "the 8 blocks and the output on it; 7 with two: 6 blocks and the output)")
    p.add_argument("--workers", type=int, default=1, choices=range(1, MAX_WORKERS + 1),
                   help="ggml-rpc-servers, each in its own namespace behind its own shaped link "
                        "to the head (default 1; 2 is a three-node split)")
    p.add_argument("--tensor-split", help="llama-server's split over the workers, one share each "
                   "(default 1, or 3,4 for two: 3 blocks each, the output on the second)")
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
                   args.prompt_tokens, args.decode_tokens,
                   args.ngl if args.ngl is not None else (5 if args.workers == 1 else 7), seed=args.seed,
                   prefix=args.prefix, date=args.date, series=args.series,
                   output_on=args.output_on, netdev_hz=args.netdev_hz,
                   hidden=None if args.model else args.hidden, arch=args.arch,
                   kv_heads=args.kv_heads, workers=args.workers, tensor_split=args.tensor_split,
                   burst_kb=args.burst_kb)
    print(f"campaign {args.campaign_dir}: {len(runs)} runs; build it with `make docs`")
    return 0
