"""Campaign model digests (pipeline/warehouse/keep.py): a digest changes with the model's SQL and
with the digest of anything it reads, and with nothing else."""
from __future__ import annotations

from pathlib import Path

from pipeline.warehouse import keep
from pipeline.warehouse.models import Model

REF = {"ref_params"}


def _models(**sql: str) -> list[Model]:
    return [Model(Path(f"/tree/sql/intermediate/{name}.sql"), text) for name, text in sql.items()]


CHAIN = dict(a="select campaign from raw_ping", b="select * from a join ref_params on true",
             c="select * from b", d="select campaign from raw_iperf3")


def _digests(chain=CHAIN, macros="m", raw="r", ref="f"):
    return keep.model_digests(_models(**chain), macros, raw, ref, REF)


def test_an_edit_reaches_what_reads_the_model_and_nothing_else():
    base = _digests()
    assert len(set(base.values())) == 4
    edited = _digests({**CHAIN, "b": CHAIN["b"] + " -- edited"})
    # b changed, so c (which reads b) changed; a and d read neither
    assert {n for n in base if base[n] != edited[n]} == {"b", "c"}


def test_raw_reference_and_macro_changes_reach_their_readers():
    base = _digests()
    # the campaign's raw inputs: a and d read raw tables, b and c through a
    assert {n for n, d in _digests(raw="r2").items() if d != base[n]} == {"a", "b", "c", "d"}
    # the reference data: only b reads it, and c through b
    assert {n for n, d in _digests(ref="f2").items() if d != base[n]} == {"b", "c"}
    # the macros: every model may call them
    assert all(d != base[n] for n, d in _digests(macros="m2").items())
    # the same inputs give the same digests (nothing from time or order of calls)
    assert _digests() == base
