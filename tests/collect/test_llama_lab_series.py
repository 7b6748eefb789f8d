"""The lab series collector's plan (pipeline/collect/llama_lab/series_plan.py): which rates, and the
shuffled interleaved rounds; the capture itself runs in the lab tests (root, namespaces)."""
from __future__ import annotations

import pytest

from pipeline.collect.campaign import CollectError
from pipeline.collect.llama_lab.series_plan import DEFAULT_RATES, parse_rates, schedule


def test_rates_are_read_in_order_with_unshaped_as_none():
    assert parse_rates("25, 50,unshaped,400") == [25, 50, None, 400]
    # the default covers 25 to 400 Mbit/s (at least five shaped rates) and the unshaped link
    rates = parse_rates(DEFAULT_RATES)
    shaped = [r for r in rates if r is not None]
    assert None in rates and len(shaped) >= 5 and min(shaped) == 25 and max(shaped) == 400


@pytest.mark.parametrize("text, word", [("0", "'0'"), ("25,fast", "'fast'"), ("-5", "'-5'"),
                                        ("25,25", "twice"), ("unshaped,unshaped", "twice"),
                                        ("", "''")])
def test_a_bad_rate_list_is_refused_before_any_capture(text, word):
    with pytest.raises(CollectError, match=word):
        parse_rates(text)


def test_every_round_runs_every_rate_once_in_a_seeded_shuffle():
    rates = [25, 50, 100, 200, 400, None]
    plan = schedule(rates, 5, seed=7)
    assert len(plan) == 30
    for rnd in range(1, 6):
        runs = [(pos, rate) for r, pos, rate in plan if r == rnd]
        assert [pos for pos, _ in runs] == [1, 2, 3, 4, 5, 6]
        assert sorted(runs, key=lambda p: p[0]) == runs
        assert sorted((r for _, r in runs), key=lambda r: -1 if r is None else r) == [None, 25, 50, 100, 200, 400]
    # the same seed gives the same plan; the rounds are not all in one order (interleaved, so a
    # slow spell of the machine falls on different rates in different rounds)
    assert schedule(rates, 5, seed=7) == plan
    orders = {tuple(rate for r, _, rate in plan if r == rnd) for rnd in range(1, 6)}
    assert len(orders) > 1
    assert schedule(rates, 5, seed=8) != plan


def test_a_hidden_size_gives_64_wide_heads_and_a_twice_as_wide_feed_forward():
    from pipeline.collect.llama_lab.model import Shape
    from pipeline.collect.llama_lab.series_plan import model_shape
    # 512 is the lab's first model, unchanged (its file name and bytes stay the same)
    assert model_shape(512) == Shape()
    s = model_shape(1024)
    assert (s.embedding, s.heads, s.kv_heads, s.ffn, s.blocks) == (1024, 16, 16, 2048, 8)
    assert s.name == "lab-llama-h1024-l8-random"
    for bad in (0, 32, 100):
        with pytest.raises(CollectError, match=f"--hidden: {bad} is not a positive multiple of 64"):
            model_shape(bad)


def test_another_family_and_grouped_query_attention():
    from pipeline.collect.llama_lab.series_plan import model_shape
    s = model_shape(512, "qwen2", 2)
    # 512 / 64 = 8 heads sharing 2 KV heads (4 each); the name says the family and the KV heads
    assert (s.arch, s.heads, s.kv_heads, s.ffn) == ("qwen2", 8, 2, 1024)
    assert s.name == "lab-qwen2-h512-l8-gqa2-random"
    assert model_shape(512, "llama", 8).name == "lab-llama-h512-l8-random"
    assert model_shape(512, "qwen2").name == "lab-qwen2-h512-l8-random"
    with pytest.raises(CollectError, match="--kv-heads: 3 does not divide the 8 heads"):
        model_shape(512, "qwen2", 3)
    with pytest.raises(CollectError, match="--arch: 'gemma'"):
        model_shape(512, "gemma")


def test_a_qwen2_model_is_written_in_its_familys_layout_and_ingested(tmp_path):
    """A tiny qwen2 model (hidden 64, 2 blocks, 1 KV head) from a hand-made vocabulary: its keys
    are under qwen2., its Q/K/V carry biases, and the project's GGUF parser reads it whole."""
    import numpy as np
    from gguf import GGUFReader, GGUFWriter

    from pipeline.collect.llama_lab.model import Shape, write
    from pipeline.ingest.formats import gguf as gguf_format
    vocab = tmp_path / "vocab.gguf"
    w = GGUFWriter(vocab, "llama")
    w.add_string("tokenizer.ggml.model", "llama")
    w.add_string("tokenizer.ggml.pre", "default")
    w.add_array("tokenizer.ggml.tokens", ["<unk>", "<s>", "</s>", "a", "b"])
    w.add_array("tokenizer.ggml.scores", [0.0, 0.0, 0.0, -1.0, -2.0])
    w.add_array("tokenizer.ggml.token_type", [2, 3, 3, 1, 1])
    for key, value in (("bos_token_id", 1), ("eos_token_id", 2), ("unknown_token_id", 0)):
        w.add_uint32(f"tokenizer.ggml.{key}", value)
    w.add_bool("tokenizer.ggml.add_bos_token", True)
    w.add_bool("tokenizer.ggml.add_eos_token", False)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    shape = Shape(embedding=64, blocks=2, heads=2, kv_heads=1, ffn=128, arch="qwen2")
    path = write(tmp_path / f"{shape.name}.gguf", vocab, shape)
    reader = GGUFReader(path)
    keys = set(reader.fields)
    assert {"qwen2.embedding_length", "qwen2.attention.head_count_kv", "qwen2.block_count"} <= keys
    assert not any(k.startswith("llama.") for k in keys)
    tensors = {t.name: tuple(int(d) for d in t.shape) for t in reader.tensors}
    # head width 64 / 2 = 32, one KV head: K and V project to 32 values, with 32-value biases
    assert tensors["blk.1.attn_k.bias"] == (32,) and tensors["blk.0.attn_q.bias"] == (64,)
    assert np.prod(tensors["blk.0.attn_k.weight"]) == 64 * 32
    rows = {r["key"]: r for r in gguf_format.parse(path)}
    assert rows["qwen2.attention.head_count_kv"]["value"] == "1"
    assert rows["general.architecture"]["value"] == "qwen2"


def test_the_output_layer_on_the_head_is_an_anchored_override():
    import re

    from pipeline.collect.llama_lab.series_plan import output_override
    assert output_override("worker") == {}
    (value,) = output_override("head").values()
    pattern, buffer = value.rsplit("=", 1)
    # llama.cpp applies the pattern with std::regex_search to every tensor name: it must take
    # the output matrix only, not a block's attn_output.weight or the output norm
    names = ["output.weight", "blk.7.attn_output.weight", "output_norm.weight", "token_embd.weight"]
    assert [n for n in names if re.search(pattern, n)] == ["output.weight"] and buffer == "CPU"
    with pytest.raises(CollectError, match="--output-on: 'gpu'"):
        output_override("gpu")


def test_the_readme_command_spells_out_what_the_series_ran(tmp_path):
    from pipeline.collect.llama_lab.readme import series_command
    drive = {"repetitions": 3, "prompt_tokens": 1024, "decode_tokens": 128, "ngl": 5, "seed": 11,
             "output_on": "head", "netdev_hz": 4.0}
    cmd = series_command(tmp_path / "s", [25, None], drive, "2026-12-05", 1024)
    assert cmd.endswith(f"--campaign-dir {tmp_path / 's'} --rates 25,unshaped --repetitions 3 "
                        "--prompt-tokens 1024 --decode-tokens 128 --ngl 5 --seed 11 --hidden 1024 "
                        "--output-on head --netdev-hz 4 --date 2026-12-05")
    qwen = {**drive, "arch": "qwen2", "kv_heads": 2}
    assert "--hidden 512 --arch qwen2 --kv-heads 2 --output-on head" in series_command(
        tmp_path / "s", [25], qwen, "2026-12-05", 512)
    # a series captured before these options existed: only what it recorded
    old = {k: drive[k] for k in ("repetitions", "prompt_tokens", "decode_tokens", "ngl", "seed")}
    assert "--output-on" not in series_command(tmp_path / "s", [25], old, "2026-12-05", None)
    # a split over two workers says so, with its shares
    two = {**drive, "workers": 2, "tensor_split": "3,4", "ngl": 7}
    assert series_command(tmp_path / "s", [25], two, "2026-12-06", 512).endswith(
        "--ngl 7 --seed 11 --hidden 512 --output-on head --netdev-hz 4 --workers 2 "
        "--tensor-split 3,4 --date 2026-12-06")
