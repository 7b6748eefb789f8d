"""The lab series collector's plan (pipeline/collect/llama_lab/series.py): which rates, and the
shuffled interleaved rounds; the capture itself runs in the lab tests (root, namespaces)."""
from __future__ import annotations

import pytest

from pipeline.collect.campaign import CollectError
from pipeline.collect.llama_lab.series import DEFAULT_RATES, parse_rates, schedule


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
