"""What a lab series runs (pipeline/collect/llama_lab/series.py): the rates, the shuffled
interleaved rounds, the model's shape and where its output layer sits, and each rate's link."""
from __future__ import annotations

import random

from pipeline.collect.campaign import CollectError
from pipeline.collect.llama_lab.model import ARCHS, Shape

DEFAULT_RATES = "25,35,50,70,100,140,200,400,unshaped"
HEAD_DIM = 64
OUTPUT_PLACES = ("worker", "head")
# llama.cpp matches -ot patterns with std::regex_search: anchored, or it would also move every
# block's attn_output.weight
OUTPUT_ON_HEAD = r"^output\.weight$=CPU"


def parse_rates(text: str) -> list[int | None]:
    """``25,50,unshaped`` -> [25, 50, None]; each rate once, in the order given."""
    rates: list[int | None] = []
    for part in (p.strip() for p in text.split(",")):
        if part == "unshaped":
            rate = None
        elif part.isdigit() and int(part) > 0:
            rate = int(part)
        else:
            raise CollectError(f"--rates: {part!r} is not a rate in Mbit/s or 'unshaped'")
        if rate in rates:
            raise CollectError(f"--rates: {part} given twice")
        rates.append(rate)
    if not rates:
        raise CollectError("--rates: no rate given")
    return rates


def schedule(rates: list[int | None], repetitions: int, seed: int) -> list[tuple[int, int, int | None]]:
    """(round, position, rate) of every run: each round holds every rate once, shuffled by a
    generator seeded with ``seed`` (the same arguments give the same order)."""
    rng = random.Random(seed)
    runs = []
    for rnd in range(1, repetitions + 1):
        order = list(rates)
        rng.shuffle(order)
        runs += [(rnd, pos, rate) for pos, rate in enumerate(order, start=1)]
    return runs


def model_shape(hidden: int, arch: str = "llama", kv_heads: int | None = None) -> Shape:
    """The lab model of hidden size ``hidden``: 64-wide heads (as many KV heads unless
    ``kv_heads`` says fewer: grouped-query attention), a feed-forward twice as wide, 8 blocks, in
    ``arch``'s layout; 512 in llama's gives the lab's first model."""
    if hidden < HEAD_DIM or hidden % HEAD_DIM:
        raise CollectError(f"--hidden: {hidden} is not a positive multiple of {HEAD_DIM} "
                           f"(the lab model's head width)")
    if arch not in ARCHS:
        raise CollectError(f"--arch: {arch!r} is not one of {', '.join(ARCHS)}")
    heads = hidden // HEAD_DIM
    kv = heads if kv_heads is None else kv_heads
    if kv < 1 or heads % kv:
        raise CollectError(f"--kv-heads: {kv} does not divide the {heads} heads of hidden size "
                           f"{hidden}")
    return Shape(embedding=hidden, heads=heads, kv_heads=kv, ffn=2 * hidden, arch=arch)


def output_override(output_on: str) -> dict[str, str]:
    """llama-server settings that put the output layer's matrix on the head (its CPU); none
    when it stays with the last blocks on the worker (what -ngl does)."""
    if output_on not in OUTPUT_PLACES:
        raise CollectError(f"--output-on: {output_on!r} is not one of {', '.join(OUTPUT_PLACES)}")
    return {"LLAMA_ARG_OVERRIDE_TENSOR": OUTPUT_ON_HEAD} if output_on == "head" else {}


def label(rate: int | None) -> str:
    return "veth, unshaped (namespace lab)" if rate is None else f"veth, tbf {rate} Mbit/s (namespace lab)"


def link_class(rate: int | None) -> str:
    return "veth" if rate is None else f"tbf_{rate}mbit"


def link_id(rate: int | None) -> str:
    return "veth" if rate is None else f"veth_tbf{rate}"
