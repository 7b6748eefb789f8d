"""ethtool parser (jc 'ethtool', raw fields typed here): link settings per interface."""
from pathlib import Path

import duckdb
import pandas as pd
import pytest

from parser_cases import assert_rejects

from pipeline.ingest.ethtool import FORMAT, parse
from pipeline.ingest.runner import ensure_table

FIX = Path(__file__).parent / "fixtures" / "ethtool"
GOOD = sorted((FIX / "good").glob("*.txt"))
BAD = sorted((FIX / "bad").glob("*.txt"))

BAD_REASONS = {
    "empty.txt": (1, "an empty file"),
    "ip-link.txt": (1, "expected ethtool output ('Settings for <iface>:')"),
    "no-such-device.txt": (1, "netlink error: no device matches name"),
    "speed-garbled.txt": (1, "found '2.5Gb/s'"),
}


def test_fixture_sets_are_complete():
    assert [p.name for p in GOOD] == ["claw-usb-and-down.txt", "forced-100-half.txt",
                                      "server-eno1.txt"]
    assert {p.name for p in BAD} == set(BAD_REASONS)


@pytest.mark.parametrize("path", GOOD, ids=lambda p: p.name)
def test_good_fixtures_have_every_column(path):
    rows = parse(path)
    assert rows
    for row in rows:
        assert set(row) == set(FORMAT.columns) | {"source_line"}


def test_2500_full_autoneg_on():
    # "Auto-negotiation: on" must read as true (jc's processed output says false)
    assert parse(FIX / "good" / "server-eno1.txt") == [{
        "interface": "eno1", "speed_mbit_per_s": 2500, "duplex": "Full", "port": "Twisted Pair",
        "auto_negotiation": True, "link_detected": True, "source_line": 1}]


def test_two_blocks_one_link_down():
    usb, down = parse(FIX / "good" / "claw-usb-and-down.txt")
    assert usb == {"interface": "enx00e04cc2e1e5", "speed_mbit_per_s": 1000, "duplex": "Full",
                   "port": "MII", "auto_negotiation": True, "link_detected": True,
                   "source_line": 1}
    # "Settings for enp5s0:" is line 32; Speed "Unknown!" and Duplex "Unknown! (255)" are NULL
    assert down == {"interface": "enp5s0", "speed_mbit_per_s": None, "duplex": None,
                    "port": "Twisted Pair", "auto_negotiation": True, "link_detected": False,
                    "source_line": 32}


def test_forced_speed_autoneg_off():
    (row,) = parse(FIX / "good" / "forced-100-half.txt")
    assert (row["speed_mbit_per_s"], row["duplex"], row["auto_negotiation"]) == (100, "Half", False)


@pytest.mark.parametrize("path", BAD, ids=lambda p: p.name)
def test_bad_fixtures_name_file_line_and_reason(path):
    line, words = BAD_REASONS[path.name]
    assert_rejects(parse, path, line, words)


@pytest.mark.parametrize("data, line, words", [
    (b"", 1, "an empty file"),
    (b"\n\n", 1, "an empty file"),
    (b"garbage\x00\x01 text\n", 1, "'Settings for <iface>:'"),
    (b"Settings for eth0:\n\tAuto-negotiation: maybe\n", 1, "found 'maybe'"),
    (b"\xff\xfe", 1, "UTF-8"),
])
def test_inline_bad_bytes(tmp_path, data, line, words):
    path = tmp_path / "inline.txt"
    path.write_bytes(data)
    assert_rejects(parse, path, line, words)


def test_rows_fit_the_declared_table():
    con = duckdb.connect()
    ensure_table(con, FORMAT)
    con.register("incoming", pd.DataFrame(parse(FIX / "good" / "claw-usb-and-down.txt")))
    con.execute(f"insert into {FORMAT.table} by name select * from incoming")
    assert con.execute(f"select interface, speed_mbit_per_s from {FORMAT.table} order by 1").fetchall() \
        == [("enp5s0", None), ("enx00e04cc2e1e5", 1000)]
