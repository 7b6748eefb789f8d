"""pipeline/ingest/formats/ethtool.py's refusals word for word (file, line, what was expected, what was
found), the line each --json object is counted from, and the PHYAD and speed spellings that are
read or refused. Found by mutation testing: these branches had no test that checked a value."""
from __future__ import annotations

import pytest

from pipeline.ingest.base import ParseError
from pipeline.ingest.formats.ethtool import parse

GOOD = "Settings for eth0:\n\tSpeed: 1000Mb/s\n\tDuplex: Full\n\tPHYAD: 1\n" \
       "\tAuto-negotiation: on\n\tLink detected: yes\n"


def _file(tmp_path, text: str):
    path = tmp_path / "eth.txt"
    path.write_text(text)
    return path


def _refusal(tmp_path, text: str) -> str:
    path = _file(tmp_path, text)
    with pytest.raises(ParseError) as info:
        parse(path)
    return str(info.value).replace(str(path), "eth.txt")


LONG = "x" * 70
SETTINGS = "expected ethtool output ('Settings for <iface>:')"


@pytest.mark.parametrize("text, message", [
    # the first line that is not blank, cut at 60 characters
    (f"\n  \n{LONG}\nmore\n", f"eth.txt:1: {SETTINGS}, found '{'x' * 60}'"),
    # text: each flag named as ethtool prints it
    (GOOD.replace("Auto-negotiation: on", "Auto-negotiation: maybe"),
     "eth.txt:1: expected Auto-negotiation on/off or yes/no, found 'maybe'"),
    ("\n" + GOOD.replace("Link detected: yes", "Link detected: perhaps"),
     "eth.txt:2: expected Link detected on/off or yes/no, found 'perhaps'"),
    (GOOD.replace("1000Mb/s", "1000Gb/s"),
     "eth.txt:1: expected Speed like '2500Mb/s' or 'Unknown!', found '1000Gb/s'"),
    (GOOD.replace("PHYAD: 1", "PHYAD: zz"),
     "eth.txt:1: expected PHYAD as a number (decimal, or hex as ethtool 6.11 prints it), found 'zz'"),
    # jc gives up on a line without a colon: its exception is the found text, at the block's line
    (GOOD + "Settings for eth1:\n\tSupports Wake-on\n",
     "eth.txt:7: expected ethtool settings, found ValueError: not enough values to unpack "
     "(expected 2, got 1)"),
])
def test_each_text_refusal_word_for_word(tmp_path, text, message):
    assert _refusal(tmp_path, text) == message


OBJ_A = '{"ifname": "eth0", "speed": 1000, "link-detected": true}'


@pytest.mark.parametrize("text, message", [
    # line of the object's brace: the second object of the array is on line 3
    (f'[\n{OBJ_A},\n{{"ifname": "eth1", "auto-negotiation": "maybe"}}\n]\n',
     "eth.txt:3: expected auto-negotiation on/off or yes/no, found 'maybe'"),
    # an error in the first object is on its own line, not the last object's
    (f'[\n{{"ifname": "eth1", "link-detected": "sometimes"}},\n{OBJ_A}\n]\n',
     "eth.txt:2: expected link-detected on/off or yes/no, found 'sometimes'"),
    ('[{"ifname": "eth0", "speed": "fast"}]',
     "eth.txt:1: expected Speed like '2500Mb/s' or 'Unknown!', found 'fast'"),
    ('[{"ifname": "eth0", "speed": true}]',                 # not a number, not a crash
     "eth.txt:1: expected Speed like '2500Mb/s' or 'Unknown!', found True"),
    ('[{"ifname": "eth0", "phyad": "zz"}]',
     "eth.txt:1: expected PHYAD as a number (decimal, or hex as ethtool 6.11 prints it), found 'zz'"),
    # not an object: the line is where its document starts (no brace to count from), and the
    # found text is cut at 60 characters
    (f'\n\n[\n"{LONG}"\n]\n',
     f"eth.txt:3: expected ethtool --json settings (an object with 'ifname'), found '{'x' * 59}"),
    # a later document's brace is not this document's
    ('[1]\n[{"ifname": "eth0"}]\n',
     "eth.txt:1: expected ethtool --json settings (an object with 'ifname'), found 1"),
    ('[{"ifname": "eth0"},\n', "eth.txt:2: expected complete ethtool --json output, "
                                 "found Expecting value at line 2 column 1"),
])
def test_each_json_refusal_word_for_word(tmp_path, text, message):
    assert _refusal(tmp_path, text) == message


def test_a_single_json_object_and_leading_blanks_are_read(tmp_path):
    # ethtool --json prints an array; one object on its own (and blank lines before it) is read
    # the same way
    rows = parse(_file(tmp_path, '\n  {"ifname": "eth0", "speed": "2500Mb/s", "duplex": "Full"}\n'))
    assert [(r["interface"], r["speed_mbit_per_s"], r["duplex"], r["source_line"]) for r in rows] == \
        [("eth0", 2500, "Full", 2)]
    rows = parse(_file(tmp_path, '  \n[{"ifname": "eth0", "speed": 100}]'))
    assert rows[0]["speed_mbit_per_s"] == 100


@pytest.mark.parametrize("printed, number", [
    ("0x10", 16),      # 0x: hex, although its digits alone would read as decimal
    ("1F", 31),        # an upper-case hex letter
    ("1f", 31),
    ("7", 7),          # one digit: the same in both bases
    ("10", None),      # digits only: the base depends on the ethtool version
])
def test_phyad_spellings(tmp_path, printed, number):
    rows = parse(_file(tmp_path, GOOD.replace("PHYAD: 1", f"PHYAD: {printed}")))
    assert (rows[0]["phyad"], rows[0]["phyad_printed"]) == (number, printed)
