"""NCCL_DEBUG=INFO logs: what NCCL says it used, from its own format strings."""

import pytest

from pipeline.ingest.base import ParseError
from pipeline.ingest.formats.nccl_debug import parse

from parser_cases import assert_rejects
from paths import FIXTURES

FIX = FIXTURES / "nccl_debug"


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


def test_refusals_word_for_word(tmp_path):
    path = tmp_path / "x.log"
    path.write_text("hello\n")
    with pytest.raises(ParseError) as info:
        parse(path)
    assert str(info.value) == (f"{path}:1: expected NCCL_DEBUG=INFO lines ('<host>:<pid>:<tid> [<dev>] "
                               "NCCL INFO …'), found none in the file")
    path.write_text("hello\nh:1:2 [0] NCCL INFO NCCL version 2.18.3")
    with pytest.raises(ParseError) as info:
        parse(path)
    assert str(info.value).endswith("found none in the file (its last line has no newline: cut, not read)")


def test_lines_ending_in_a_bare_carriage_return_are_whole(tmp_path):
    path = tmp_path / "cr.log"
    path.write_bytes(b"h:1:2 [0] NCCL INFO NCCL version 2.18.3\rh:1:2 [0] NCCL INFO Bootstrap: Using eth0:10.0.0.1<0>\r")
    (row,) = parse(path)
    assert (row["nccl_version"], row["bootstrap_interface"]) == ("2.18.3", "eth0")


def test_tagged_lines_a_trailing_comma_and_the_first_network_transport(tmp_path):
    # mpirun --tag-output before every line; a transport followed by a comma; two network
    # transports: the first is kept
    path = tmp_path / "t.log"
    path.write_text("[1,0]<stdout>:h:1:2 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>\n"
                    "[1,0]<stdout>:h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] via SHM/direct/direct, x\n"
                    "[1,0]<stdout>:h:1:2 [0] NCCL INFO Channel 01/0 : 0[0] -> 1[0] via NET/Socket/0\n"
                    "[1,0]<stdout>:h:1:2 [0] NCCL INFO Channel 02/0 : 0[0] -> 1[0] via NET/IB/1\n")
    (row,) = parse(path)
    assert (row["net_interface"], row["channel_transport"]) == ("eth0", "NET/Socket/0")
    path.write_text("h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] via SHM/direct/direct,\n")
    (row,) = parse(path)
    assert row["channel_transport"] == "SHM/direct/direct"
