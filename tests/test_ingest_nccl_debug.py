"""NCCL_DEBUG=INFO logs: what NCCL says it used, from its own format strings."""
from pathlib import Path

from parser_cases import assert_rejects

from pipeline.ingest.nccl_debug import parse

FIX = Path(__file__).parent / "fixtures" / "nccl_debug"


def test_version_interfaces_and_transport():
    (row,) = parse(FIX / "wg0.log")
    assert row["nccl_version"] == "2.18.3+cuda12.2"
    # "Bootstrap : Using" (before 2.19) and "NET/Socket : Using [0]wg0:10.8.0.5<0>"
    assert (row["bootstrap_interface"], row["bootstrap_address"]) == ("wg0", "10.8.0.5")
    assert (row["net_plugin"], row["net_interface"], row["net_address"]) == ("Socket", "wg0", "10.8.0.5")
    assert row["channel_transport"] == "NET/Socket/0" and row["source_line"] == 1


def test_newer_bootstrap_wording_and_ib(tmp_path):
    path = tmp_path / "ib.log"
    path.write_text("h:1:2 [0] NCCL INFO Bootstrap: Using ens22f0:10.1.15.172<0>\n"
                    "h:1:2 [0] NCCL INFO NET/IB : Using [0]mlx5_101:1/RoCE [RO]; OOB ens22f0:10.1.15.172<0>\n"
                    "h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] via P2P/IPC\n"
                    "h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/IB/0/GDRDMA\n")
    (row,) = parse(path)
    assert row["bootstrap_interface"] == "ens22f0" and row["net_plugin"] == "IB"
    assert row["net_interface"] == "mlx5_101"
    assert row["channel_transport"] == "NET/IB/0/GDRDMA"   # the network transport wins over P2P


def test_a_file_without_nccl_lines_is_refused(tmp_path):
    path = tmp_path / "x.log"
    path.write_text("hello\n")
    assert_rejects(parse, path, 1, "NCCL_DEBUG=INFO lines")


def test_the_p2p_direct_pointer_transport_is_named_whole(tmp_path):
    # src/transport/p2p.cc prints "via P2P/direct pointer": two words, not "P2P/direct"
    path = tmp_path / "p2p.log"
    path.write_text("h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] via P2P/direct pointer\n")
    (row,) = parse(path)
    assert row["channel_transport"] == "P2P/direct pointer"


def test_a_last_line_without_its_newline_is_not_read(tmp_path):
    # cut while NCCL wrote it: the address would be read as 10.8 instead of 10.8.0.5
    path = tmp_path / "cut.log"
    path.write_text("h:1:2 [0] NCCL INFO NCCL version 2.18.3\nh:1:2 [0] NCCL INFO NET/Socket : Using [0]wg0:10.8")
    (row,) = parse(path)
    assert row["nccl_version"] == "2.18.3" and row["net_address"] is None and row["net_interface"] is None
    path.write_text("h:1:2 [0] NCCL INFO NCCL version 2.18.3")
    assert_rejects(parse, path, 1, "NCCL_DEBUG=INFO lines")
