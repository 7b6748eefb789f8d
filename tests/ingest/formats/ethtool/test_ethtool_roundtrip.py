"""Property-based round trips of ethtool output, text and ``--json``.

Writer: ethtool(8) ``dump_link_usettings`` (``Settings for %s:``, ``\\tSpeed: %uMb/s``,
``\\tDuplex: %s``, ``\\tAuto-negotiation: %s``, ``\\tPort: %s``, ``\\tPHYAD: %u``,
``\\tLink detected: %s``) and its netlink JSON. Random values printed the way the writer prints them parse back to exactly those values;
cut short or given undecodable bytes, a file gives a ParseError naming it and a line, or the
values it still holds."""
from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pipeline.ingest.base import ParseError
from pipeline.ingest.formats import ethtool

from parser_cases import assert_named
from roundtrip import SETTINGS
from roundtrip import write_file as _write

links = st.lists(st.tuples(
    st.from_regex(r"\A(eth|eno|enp|wg)[0-9]{1,2}\Z"),
    st.one_of(st.none(), st.sampled_from([10, 100, 1000, 2500, 10000, 25000, 100000])),
    st.sampled_from(["Full", "Half"]), st.sampled_from(["Twisted Pair", "MII", "FIBRE", "Direct Attach Copper"]),
    st.integers(0, 9), st.booleans(), st.booleans()), min_size=1, max_size=3, unique_by=lambda t: t[0])


def _ethtool_text(rows) -> str:
    out = []
    for name, speed, duplex, port, phyad, autoneg, link in rows:
        out += [f"Settings for {name}:", "\tSupported ports: [ TP ]",
                f"\tSpeed: {speed}Mb/s" if speed else "\tSpeed: Unknown!",
                f"\tDuplex: {duplex}" if speed else "\tDuplex: Unknown! (255)", f"\tPort: {port}",
                f"\tPHYAD: {phyad}", "\tTransceiver: internal",
                f"\tAuto-negotiation: {'on' if autoneg else 'off'}",
                f"\tLink detected: {'yes' if link else 'no'}"]
    return "\n".join(out) + "\n"


@SETTINGS
@given(links, st.booleans())
def test_ethtool_text_and_json_parse_back(tmp_path, rows, as_json):
    if as_json:
        text = json.dumps([{"ifname": n, **({"speed": s, "duplex": d} if s else {}), "port": p,
                            "phyad": ph, "auto-negotiation": a, "link-detected": ln}
                           for n, s, d, p, ph, a, ln in rows], indent=8) + "\n"
    else:
        text = _ethtool_text(rows)
    got = ethtool.parse(_write(tmp_path, text, "eth.txt"))
    assert [(r["interface"], r["speed_mbit_per_s"], r["duplex"], r["port"], r["phyad"],
             r["auto_negotiation"], r["link_detected"]) for r in got] == \
        [(n, s, d if s else None, p, ph, a, ln) for n, s, d, p, ph, a, ln in rows]
    if not as_json:        # each row's line is its "Settings for" line, 9 lines a block
        assert [r["source_line"] for r in got] == [1 + 9 * i for i in range(len(rows))]


@SETTINGS
@given(links, st.integers(0, 10**9))
def test_ethtool_json_cut_short_is_an_error_naming_a_line(tmp_path, rows, where):
    text = json.dumps([{"ifname": n, "speed": s or 1000, "link-detected": ln}
                       for n, s, _, _, _, _, ln in rows], indent=8)
    cut = text.encode()[: max(1, where % len(text))]
    path = _write(tmp_path, cut, "eth.json")
    with pytest.raises(ParseError) as info:
        ethtool.parse(path)
    assert_named(info.value, path)
    assert info.value.line <= cut.count(b"\n") + 1
