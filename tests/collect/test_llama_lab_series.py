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
    # a series captured before these options existed: only what it recorded
    old = {k: drive[k] for k in ("repetitions", "prompt_tokens", "decode_tokens", "ngl", "seed")}
    assert "--output-on" not in series_command(tmp_path / "s", [25], old, "2026-12-05", None)
