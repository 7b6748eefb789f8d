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
    "issues/NVIDIA+nccl-tests-82.out": (15, "the '# Avg bus bandwidth' footer"),
    "issues/NVIDIA+nccl-tests-104.out": (4, "the '# Avg bus bandwidth' footer"),
    "issues/NVIDIA+nccl-tests-214.out": (14, "the '# Avg bus bandwidth' footer"),
}
FOOTER = "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 1\n"


def _name(path) -> str:
    return str(path.relative_to(CORPUS))


def test_the_corpus_holds_one_complete_run_and_six_excerpts():
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
    whole.write_text(text + "".join(f"0: {line}\n" for line in FOOTER.splitlines()))
    rows = nccl_tests.parse(whole)
    assert sorted({r["size_bytes"] for r in rows}) == [8 * 2 ** k for k in range(32)]


def _with_footer(name, tmp_path) -> list[dict]:
    whole = tmp_path / "whole.out"
    whole.write_text((CORPUS / "issues" / name).read_text() + FOOTER)
    return nccl_tests.parse(whole)


def test_the_2021_broadcast_excerpt_reads_the_pre_2_13_layout_with_root_and_nccls_lines(tmp_path):
    # nccl-tests#82: "size count type root time algbw busbw error" twice, NCCL 2.9.6; the row
    # "8 2 float 0 45.82 0.00 0.00 N/A 38.17 0.00 0.00 N/A"
    rows = _with_footer("NVIDIA+nccl-tests-82.out", tmp_path)
    assert [(r["placement"], r["size_bytes"], r["count"], r["root"], r["redop"], r["layout"],
             r["max_error"]) for r in rows] == [
        ("out-of-place", 8, 2, 0, None, "pre-2.13", None), ("in-place", 8, 2, 0, None, "pre-2.13", None)]
    assert [r["time_s"] for r in rows] == pytest.approx([45.82e-6, 38.17e-6])
    assert {r["nccl_version"] for r in rows} == {"2.9.6+cuda11.2"}


def test_the_2022_sendrecv_excerpt_reads_its_error_values(tmp_path):
    # nccl-tests#104: "37748744 37748744 uint8 11732 3.22 3.22 0e+00 11698 3.23 3.23 3e+02"
    rows = _with_footer("NVIDIA+nccl-tests-104.out", tmp_path)
    assert [(r["time_s"], r["busbw_bytes_per_s"], r["max_error"], r["type"]) for r in rows] == [
        (pytest.approx(11732e-6), pytest.approx(3.22e9), 0.0, "uint8"),
        (pytest.approx(11698e-6), pytest.approx(3.23e9), 300.0, "uint8")]


def test_the_2024_sendrecv_excerpt_reads_n_a_as_not_checked(tmp_path):
    # nccl-tests#214: 5 sizes 256 to 4096 B, out-of-place #wrong 0, in-place "N/A"
    rows = _with_footer("NVIDIA+nccl-tests-214.out", tmp_path)
    assert sorted({r["size_bytes"] for r in rows}) == [256, 512, 1024, 2048, 4096]
    assert {(r["placement"], r["wrong_count"]) for r in rows} == {("out-of-place", 0), ("in-place", None)}
    # "4096 1024 float sum -1 30.74 0.13 0.13 0 30.69 0.13 0.13 N/A"
    last = [r for r in rows if r["size_bytes"] == 4096]
    assert [r["time_s"] for r in last] == pytest.approx([30.74e-6, 30.69e-6])
