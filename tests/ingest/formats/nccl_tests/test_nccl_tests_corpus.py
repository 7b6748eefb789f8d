"""Real nccl-tests outputs from aws-samples/awsome-distributed-training (tests/corpora/nccl_tests/README.md),
as Open MPI (--tag-output) and Slurm (srun --label) print them: the complete run parses to the
rows read by hand from its table, and each excerpt the project's README cut short is refused
for what it lacks, at its line, after its table was read (not for its launcher prefix).
nccl-tests has no library parser and this one has one path: there is no fast path to compare."""
from __future__ import annotations

import pytest

from parser_cases import assert_rejects
from paths import TESTS
from pipeline.ingest.formats import nccl_tests

CORPUS = TESTS / "corpora" / "nccl_tests"
OUTPUTS = sorted(CORPUS.rglob("*.out"))
# file -> (line, words): README, "Refused"
REFUSED = {
    "awsome-distributed-training/p4de-srun-label.out": (31, "the '# Avg bus bandwidth' footer"),
    "awsome-distributed-training/p5-srun-label.out": (34, "the '# Avg bus bandwidth' footer"),
    "awsome-distributed-training/p5-eks-mpirun-tag.out": (5, "found 1 field(s): '...'"),
}


def _name(path) -> str:
    return str(path.relative_to(CORPUS))


def test_the_corpus_holds_one_complete_run_and_three_excerpts():
    assert sorted(map(_name, OUTPUTS)) == sorted(
        [*REFUSED, "awsome-distributed-training/aws-batch-mpirun-tag.out"])


def test_the_complete_run_parses_to_its_table():
    rows = nccl_tests.parse(CORPUS / "awsome-distributed-training" / "aws-batch-mpirun-tag.out")
    # 32 sizes, 8 B to 16 GiB doubling (8 * 2**k, k = 0..31), each out-of-place and in-place
    assert sorted({r["size_bytes"] for r in rows}) == [8 * 2 ** k for k in range(32)]
    assert len(rows) == 64
    assert {(r["type"], r["redop"], r["root"], r["layout"]) for r in rows} == {
        ("float", "sum", -1, "current")}
    # the last line: 17179869184 4294967296 float sum -1 62239 276.03 483.05 0 62200 276.20 483.35 0
    last = {r["placement"]: r for r in rows if r["size_bytes"] == 17179869184}
    assert last["out-of-place"]["count"] == 4294967296
    assert last["out-of-place"]["time_s"] == pytest.approx(62239e-6)
    assert last["out-of-place"]["algbw_bytes_per_s"] == pytest.approx(276.03e9)
    assert last["out-of-place"]["busbw_bytes_per_s"] == pytest.approx(483.05e9)
    assert last["in-place"]["time_s"] == pytest.approx(62200e-6)
    assert last["in-place"]["busbw_bytes_per_s"] == pytest.approx(483.35e9)
    assert {r["wrong_count"] for r in rows} == {0}
    # the first: 8 2 float sum -1 12.90 0.00 0.00 0 12.87 …
    first = {r["placement"]: r for r in rows if r["size_bytes"] == 8}
    assert first["out-of-place"]["time_s"] == pytest.approx(12.90e-6)
    assert first["in-place"]["time_s"] == pytest.approx(12.87e-6)


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_an_excerpt_is_refused_for_what_it_lacks(name):
    assert_rejects(nccl_tests.parse, CORPUS / name, *REFUSED[name])


def test_an_srun_label_is_read_as_the_table_beneath_it(tmp_path):
    # the p5 excerpt with the footer nccl-tests prints after its table: every one of its 32
    # sizes (8 B to 16 GiB) is then read through the "0: " labels
    text = (CORPUS / "awsome-distributed-training" / "p5-srun-label.out").read_text()
    whole = tmp_path / "p5.out"
    whole.write_text(text + "0: # Out of bounds values : 0 OK\n0: # Avg bus bandwidth    : 1\n")
    rows = nccl_tests.parse(whole)
    assert sorted({r["size_bytes"] for r in rows}) == [8 * 2 ** k for k in range(32)]
