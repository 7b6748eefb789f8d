"""ethtool parser (jc 'ethtool', raw fields typed here): link settings per interface."""

import duckdb
import pandas as pd
import pytest

from pipeline.ingest.formats.ethtool import FORMAT, parse
from pipeline.ingest.runner import ensure_table
from pipeline.warehouse import models

from parser_cases import assert_rejects
from paths import FIXTURES, REPO

FIX = FIXTURES / "ethtool"
GOOD = sorted(p for p in (FIX / "good").iterdir() if p.suffix in (".txt", ".json"))
BAD = sorted(p for p in (FIX / "bad").iterdir() if p.suffix in (".txt", ".json"))

BAD_REASONS = {
    "empty.txt": (1, "an empty file"),
    "ip-link.txt": (1, "expected ethtool output ('Settings for <iface>:')"),
    "no-such-device.txt": (1, "netlink error: no device matches name"),
    "speed-garbled.txt": (1, "found '2.5Gb/s'"),
    # cut after "spe" of "speed" inside the first object (line 12)
    "json-truncated.json": (12, "complete ethtool --json output"),
    "json-no-ifname.json": (1, "an object with 'ifname'"),
    # "3f" is hex without the 0x only if ethtool said so; "3g" is neither base
    "phyad-garbled.txt": (1, "PHYAD as a number"),
}


def test_fixture_sets_are_complete():
    assert [p.name for p in GOOD] == ["claw-usb-and-down.txt", "forced-100-half.txt",
                                      "phyad-hex.txt", "server-eno1.txt", "veth-6.14.txt",
                                      "veth-and-lo-6.14.json"]
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
        "phyad": 0, "phyad_printed": "0", "auto_negotiation": True, "link_detected": True, "source_line": 1}]


def test_two_blocks_one_link_down():
    usb, down = parse(FIX / "good" / "claw-usb-and-down.txt")
    assert usb == {"interface": "enx00e04cc2e1e5", "speed_mbit_per_s": 1000, "duplex": "Full",
                   # "PHYAD: 32": 32 from 6.1, 0x32 = 50 from 6.11; the file alone cannot say
                   "port": "MII", "phyad": None, "phyad_printed": "32", "auto_negotiation": True, "link_detected": True,
                   "source_line": 1}
    # "Settings for enp5s0:" is line 32; Speed "Unknown!" and Duplex "Unknown! (255)" are NULL
    assert down == {"interface": "enp5s0", "speed_mbit_per_s": None, "duplex": None,
                    "port": "Twisted Pair", "phyad": 0, "phyad_printed": "0",
                    "auto_negotiation": True, "link_detected": False,
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


def test_json_output_of_ethtool_6_14():
    # captured from the Debian 6.14.2 binary on a veth pair in a namespace, then `--json lo`
    veth, lo = parse(FIX / "good" / "veth-and-lo-6.14.json")
    assert veth == {"interface": "vcap0", "speed_mbit_per_s": 10000, "duplex": "Full",
                    "port": "Twisted Pair", "phyad": 0, "phyad_printed": "0",
                    "auto_negotiation": False, "link_detected": True, "source_line": 1}
    # lo reports only ifname and link-detected: the rest is not measured, not zero;
    # its array starts on line 20, its object's "{" on the same line
    assert lo == {"interface": "lo", "speed_mbit_per_s": None, "duplex": None, "port": None,
                  "phyad": None, "phyad_printed": None, "auto_negotiation": None,
                  "link_detected": False, "source_line": 20}


def test_text_and_json_of_the_same_link_agree():
    (text,) = parse(FIX / "good" / "veth-6.14.txt")
    json_row = parse(FIX / "good" / "veth-and-lo-6.14.json")[0]
    assert {k: v for k, v in text.items() if k != "source_line"} == \
        {k: v for k, v in json_row.items() if k != "source_line"}


def test_phyad_in_hex():
    (row,) = parse(FIX / "good" / "phyad-hex.txt")
    # "PHYAD: 0x1f" is 1 * 16 + 15 = 31 whatever the version
    assert (row["phyad"], row["phyad_printed"]) == (31, "0x1f")


@pytest.mark.parametrize("printed, number", [
    ("0", 0), ("7", 7),       # one digit: the same in both bases
    ("1f", 31),               # a-f: hex (6.11's "%x")
    ("10", None),             # 16 from 6.11, 10 from 6.14: left to the staging model
])
def test_phyad_text_read_only_when_unambiguous(tmp_path, printed, number):
    path = tmp_path / "e.txt"
    path.write_text(f"Settings for eth0:\n\tPHYAD: {printed}\n\tLink detected: yes\n")
    (row,) = parse(path)
    assert (row["phyad"], row["phyad_printed"]) == (number, printed)


def test_staging_reads_phyad_in_the_base_of_the_ethtool_version():
    con = duckdb.connect()
    models.load_macros(con, REPO / "sql")       # the unit conversions the staging SQL calls
    sql = (REPO / "sql" / "staging" / "stg_deployment__ethtool.sql").read_text()
    ctx = (REPO / "sql" / "staging" / "stg_raw__file_context.sql").read_text()
    con.execute("""create table raw_files as select * from (values
        ('a.txt', 'c', 'ethtool', '{"host": "h", "tool_version": "ethtool version 6.11"}'::json),
        ('b.txt', 'c', 'ethtool', '{"host": "h", "tool_version": "ethtool version 6.14.2"}'::json),
        ('c.txt', 'c', 'ethtool', '{"host": "h", "tool_version": "ethtool version 6.12"}'::json),
        ('d.txt', 'c', 'ethtool', '{"host": "h"}'::json))
        t(source_file, campaign, format, context)""")
    con.execute(f"create view stg_raw__file_context as {ctx}")
    con.execute("""create table raw_ethtool as select * from (values
        ('a.txt', 'c', 'eth0', 10000, 'Full', true, null::integer, '10'),
        ('b.txt', 'c', 'eth1', 10000, 'Full', true, null::integer, '10'),
        ('c.txt', 'c', 'eth2', 10000, 'Full', true, null::integer, '10'),
        ('d.txt', 'c', 'eth3', 10000, 'Full', true, null::integer, '10'))
        t(source_file, campaign, interface, speed_mbit_per_s, duplex, link_detected, phyad,
          phyad_printed)""")
    got = con.execute(f"select interface, phyad from ({sql}) order by 1").fetchall()
    # "10" is 0x10 = 16 from 6.11, ten from 6.14.2; 6.12 (format not known) and a file
    # without a version stay not measured
    assert got == [("eth0", 16), ("eth1", 10), ("eth2", None), ("eth3", None)]
