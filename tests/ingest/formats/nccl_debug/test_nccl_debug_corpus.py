"""Real NCCL_DEBUG=INFO lines of NCCL 2.4.8 from an NCCL issue thread (tests/corpora/nccl_debug/README.md)
give the facts typed by hand from them; and the NCCL lines of a 2021 nccl-tests output give
its version. The parser is the only reader of these lines: there is no fast path to compare."""
from __future__ import annotations

from paths import TESTS
from pipeline.ingest.formats import nccl_debug

CORPUS = TESTS / "corpora" / "nccl_debug"


def test_the_corpus_holds_one_log():
    assert sorted(p.name for p in CORPUS.rglob("*.log")) == ["NVIDIA+nccl-398.log"]


def test_nccl_2_4_lines_give_their_version_interfaces_and_addresses():
    # "…NCCL INFO Bootstrap : Using [0]ens5:172.31.0.112<0>" (line 6), "…NCCL INFO NET/Socket :
    # Using [0]ens5:172.31.0.112<0>", "NCCL version 2.4.8+cuda10.1"; no Channel line
    (row,) = nccl_debug.parse(CORPUS / "issues" / "NVIDIA+nccl-398.log")
    assert row == {"nccl_version": "2.4.8+cuda10.1", "net_plugin": "Socket",
                   "net_interface": "ens5", "net_address": "172.31.0.112",
                   "bootstrap_interface": "ens5", "bootstrap_address": "172.31.0.112",
                   "channel_transport": None, "source_line": 6}


def test_the_nccl_lines_inside_an_nccl_tests_output_give_its_version():
    # nccl-tests#82: two "NCCL WARN Failed to open libibverbs.so[.1]" and "NCCL version 2.9.6+cuda11.2"
    (row,) = nccl_debug.parse(TESTS / "corpora" / "nccl_tests" / "issues" / "NVIDIA+nccl-tests-82.out")
    assert row["nccl_version"] == "2.9.6+cuda11.2" and row["net_interface"] is None
