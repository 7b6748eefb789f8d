"""Real `ethtool <iface>` outputs from jc's and node_exporter's suites (tests/corpora/ethtool/README.md):
each parses to the settings typed by hand from its text (`.expected.json`), agrees with jc's
own expected output where jc reads the text right, and the parser's path (jc given each
'Settings for' block) reads what jc reads on the whole text, field by field. Module EEPROM
dumps (`ethtool -m`) are refused: they hold no link settings."""
from __future__ import annotations

import json

import jc
import pytest

from paths import TESTS
from pipeline.ingest.base import ParseError
from pipeline.ingest.formats import ethtool

CORPUS = TESTS / "corpora" / "ethtool"
OUTPUTS = sorted(CORPUS.rglob("*.out"))
REFUSED = {"jc/module-info.out", "jc/module-info-convert-units.out"}
ACCEPTED = [o for o in OUTPUTS if str(o.relative_to(CORPUS)) not in REFUSED]


def _name(path) -> str:
    return str(path.relative_to(CORPUS))


def test_every_output_has_expected_values_or_a_listed_refusal():
    # 6 outputs: jc 5 (2 module dumps, refused), node_exporter 1
    assert len(OUTPUTS) == 6 and len(ACCEPTED) == 4
    assert all(o.with_suffix(".expected.json").is_file() for o in ACCEPTED)


@pytest.mark.parametrize("out", ACCEPTED, ids=_name)
def test_each_output_parses_to_the_settings_in_its_text(out):
    assert ethtool.parse(out) == json.loads(out.with_suffix(".expected.json").read_text())


@pytest.mark.parametrize("out", [o for o in ACCEPTED if o.with_suffix(".json").is_file()], ids=_name)
def test_jcs_own_expected_output_agrees_except_its_listed_misread(out):
    (row,) = ethtool.parse(out)
    theirs = json.loads(out.with_suffix(".json").read_text())
    assert (row["interface"], row["speed_mbit_per_s"] * 1_000_000, row["duplex"], row["port"],
            row["phyad_printed"], row["link_detected"]) == (
        theirs["name"], theirs["speed_bps"], theirs["duplex"], theirs["port"], theirs["phyad"],
        theirs["link_detected"])
    # jc's processed output gives auto_negotiation false for "on" too (README, "jc"); the
    # parser maps jc's raw text itself
    assert theirs["auto_negotiation"] is False


@pytest.mark.parametrize("out", ACCEPTED, ids=_name)
def test_the_block_path_reads_what_jc_reads_on_the_whole_text(out):
    text = out.read_text()
    whole = jc.parse("ethtool", text, raw=True, quiet=True)
    if whole.get("name") is None:
        # jc reads nothing when a line comes before 'Settings for' (node_exporter's "# ethtool
        # eth0"): the parser then reads what jc reads from that line on, never less
        whole = jc.parse("ethtool", text[text.index("Settings for"):], raw=True, quiet=True)
    (row,) = ethtool.parse(out)
    assert (row["interface"], f"{row['speed_mbit_per_s']}Mb/s", row["duplex"], row["port"],
            row["phyad_printed"], row["auto_negotiation"], row["link_detected"]) == (
        whole["name"], whole["speed"], whole["duplex"], whole["port"], whole["phyad"],
        {"on": True, "off": False}[whole["auto_negotiation"]],
        {"yes": True, "no": False}[whole["link_detected"]])


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_a_module_eeprom_dump_is_refused_for_holding_no_link_settings(name):
    with pytest.raises(ParseError) as info:
        ethtool.parse(CORPUS / name)
    assert info.value.line == 1 and "'Settings for <iface>:'" in str(info.value)
    assert "Identifier" in info.value.found
