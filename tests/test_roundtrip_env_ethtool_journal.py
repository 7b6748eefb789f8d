"""Property-based round trips for the remaining text formats: environment files, the p2p
benchmark's JSON lines, ethtool (text and --json) and journalctl's JSON export. Random values
printed the way the writer prints them parse back to exactly those values; cut short or given
undecodable bytes, a file gives a ParseError naming it and a line, or the values it still holds.

Writers: python-dotenv's syntax (``[export ]KEY=value``, ``'single'`` and ``"double"`` quotes,
with ``\\\\`` for a backslash in both and ``\\"`` in double quotes, ``#`` comments); ``pipeline.collect.p2p_bench.record``;
ethtool(8) ``dump_link_usettings`` (``Settings for %s:``, ``\\tSpeed: %uMb/s``, ``\\tDuplex: %s``,
``\\tAuto-negotiation: %s``, ``\\tPort: %s``, ``\\tPHYAD: %u``, ``\\tLink detected: %s``) and its
netlink JSON; systemd's JSON export (``__REALTIME_TIMESTAMP`` as text, ``_PID`` as text, a
MESSAGE that is not UTF-8 as an array of bytes).
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline.collect import p2p_bench
from pipeline.ingest.formats import env, ethtool, gloo_bench, journal
from pipeline.ingest.base import ParseError

from parser_cases import assert_named

SETTINGS = settings(max_examples=25, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])


def _write(tmp_path: Path, data, name: str) -> Path:
    path = tmp_path / name
    path.write_bytes(data if isinstance(data, bytes) else data.encode())
    return path


# --- environment files ---------------------------------------------------------------------

key = st.from_regex(r"\A[A-Z_][A-Z0-9_]{0,20}\Z")
value = st.text(st.characters(codec="utf-8", exclude_categories=["Cs", "Cc"]), max_size=30)


def _quoted(v: str, style: str) -> str:
    if style == "bare" and v and all(c.isalnum() or c in "_-./:,@%+" for c in v):
        return v
    if style == "single" and "'" not in v:      # python-dotenv: \\ is a backslash here too
        return "'" + v.replace("\\", "\\\\") + "'"
    return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'


@SETTINGS
@given(st.lists(st.tuples(key, value, st.sampled_from(["bare", "single", "double"]), st.booleans(),
                          st.booleans()), min_size=1, max_size=8))
def test_env_files_parse_back(tmp_path, bindings):
    lines, want = ["# written by the serve script"], {}
    for k, v, style, export, comment in bindings:
        if comment:
            lines.append(f"# {k} was {v!r}")
        lines.append(f"{'export ' if export else ''}{k}={_quoted(v, style)}")
        want.pop(k, None)                                   # the last binding wins
        want[k] = (v, len(lines))
    rows = env.parse(_write(tmp_path, "\n".join(lines) + "\n", "svc.env"))
    assert [(r["key"], r["value"], r["source_line"]) for r in rows] == \
        [(k, v, line) for k, (v, line) in sorted(want.items(), key=lambda kv: kv[1][1])]


# --- the p2p benchmark's JSON lines --------------------------------------------------------

records = st.lists(st.tuples(st.sampled_from(["gloo", "nccl"]), st.integers(2, 64), st.integers(0, 63),
                             st.integers(0, 63), st.sampled_from(["send", "recv"]), st.integers(1, 2**40),
                             st.sampled_from(["float32", "bfloat16"]), st.integers(0, 10**6),
                             st.integers(1, 10**12).map(lambda ns: ns / 1e9)), min_size=1, max_size=6)


@SETTINGS
@given(records)
def test_p2p_bench_lines_parse_back(tmp_path, recs):
    text = "".join(p2p_bench.record(*r) + "\n" for r in recs)
    rows = gloo_bench.parse(_write(tmp_path, text, "bench.jsonl"))
    names = list(gloo_bench.FORMAT.columns)
    assert [tuple(r[n] for n in names) for r in rows] == [tuple(r) for r in recs]
    assert [r["source_line"] for r in rows] == list(range(1, len(recs) + 1))


@SETTINGS
@given(records, st.integers(0, 10**9))
def test_p2p_bench_cut_short_is_an_error_or_the_lines_before(tmp_path, recs, where):
    data = "".join(p2p_bench.record(*r) + "\n" for r in recs).encode()
    cut = data[: where % len(data)]
    path = _write(tmp_path, cut, "bench.jsonl")
    try:
        rows = gloo_bench.parse(path)
    except ParseError as exc:
        assert_named(exc, path)
        assert exc.line == (cut.count(b"\n") + 1 if cut.strip() else 1)
        return
    # cut at a line's end (with or without its newline): the whole lines before, exactly
    names = list(gloo_bench.FORMAT.columns)
    assert len(rows) in (cut.count(b"\n"), cut.count(b"\n") + 1)
    assert [tuple(r[n] for n in names) for r in rows] == [tuple(r) for r in recs[:len(rows)]]


# --- ethtool -------------------------------------------------------------------------------

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


# --- journalctl -o json --------------------------------------------------------------------

entries = st.lists(st.tuples(st.integers(10**15, 2 * 10**15), st.integers(1, 2**22),
                             st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=40),
                             st.booleans()), min_size=1, max_size=6)


@SETTINGS
@given(entries)
def test_journal_json_export_parses_back(tmp_path, items):
    lines = []
    for realtime, pid, message, as_bytes in items:
        shown = list(message.encode()) if as_bytes else message      # journald's byte array
        lines.append(json.dumps({"__REALTIME_TIMESTAMP": str(realtime), "_PID": str(pid),
                                 "_HOSTNAME": "server", "_SYSTEMD_UNIT": "llama.service",
                                 "MESSAGE": shown}))
    rows = journal.parse(_write(tmp_path, "\n".join(lines) + "\n", "j.json"))
    assert [(r["realtime_us"], r["pid"], r["hostname"], r["unit"], r["message"], r["source_line"])
            for r in rows] == [(t, p, "server", "llama.service", m.removeprefix("\r"), i + 1)
                               for i, (t, p, m, _) in enumerate(items)]


# --- GGUF metadata (written with gguf-py's GGUFWriter, the writer llama.cpp ships) -----------

def _gguf_values():
    import numpy as np
    f32 = st.floats(width=32, allow_nan=False, allow_infinity=False)
    return st.one_of(
        st.tuples(st.just("UINT32"), st.integers(0, 2**32 - 1), st.just(lambda v: str(v))),
        st.tuples(st.just("INT32"), st.integers(-2**31, 2**31 - 1), st.just(lambda v: str(v))),
        st.tuples(st.just("UINT64"), st.integers(0, 2**64 - 1), st.just(lambda v: str(v))),
        st.tuples(st.just("FLOAT32"), f32, st.just(lambda v: repr(float(str(np.float32(v)))))),
        st.tuples(st.just("BOOL"), st.booleans(), st.just(lambda v: "true" if v else "false")),
        # (GGUFWriter skips an empty string and refuses an empty array: both min_size=1)
        st.tuples(st.just("STRING"), st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]),
                                              min_size=1, max_size=30),
                  st.just(lambda v: v)),
        st.tuples(st.just("ARRAY[INT32]"), st.lists(st.integers(-2**31, 2**31 - 1), min_size=1, max_size=8),
                  st.just(lambda v: json.dumps(v))),
        st.tuples(st.just("ARRAY[STRING]"), st.lists(st.text("abcxyz<>&", max_size=5), min_size=1, max_size=5),
                  st.just(lambda v: json.dumps(v, ensure_ascii=False))))


def _gguf(path: Path, kvs: list) -> None:
    from gguf import GGUFValueType, GGUFWriter
    w = GGUFWriter(path, arch="llama")
    for k, (kind, v, _) in kvs:
        add = {"UINT32": w.add_uint32, "INT32": w.add_int32, "UINT64": w.add_uint64,
               "FLOAT32": w.add_float32, "BOOL": w.add_bool, "STRING": w.add_string}.get(kind)
        if add:
            add(k, v)
        else:
            w.add_array(k, v) if kind == "ARRAY[STRING]" else \
                w.add_key_value(k, v, GGUFValueType.ARRAY, sub_type=GGUFValueType.INT32)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


gguf_kvs = st.lists(st.tuples(st.from_regex(r"\Allama\.[a-z_]{1,12}(\.[a-z_]{1,8})?\Z"), _gguf_values()),
                    min_size=1, max_size=6, unique_by=lambda kv: kv[0])


@SETTINGS
@given(gguf_kvs)
def test_gguf_metadata_parses_back(tmp_path, kvs):
    from pipeline.ingest.formats import gguf
    path = tmp_path / "m.gguf"
    _gguf(path, kvs)
    rows = {r["key"]: (r["value_type"], r["value"]) for r in gguf.parse(path)}
    assert rows.pop("general.architecture") == ("STRING", "llama")      # the writer's own
    assert rows == {k: (kind, text(v)) for k, (kind, v, text) in kvs}


@SETTINGS
@given(gguf_kvs, st.integers(0, 10**9))
def test_gguf_cut_short_is_an_error_at_an_offset_or_the_whole_header(tmp_path, kvs, where):
    from pipeline.ingest.formats import gguf
    path = tmp_path / "m.gguf"
    _gguf(path, kvs)
    data = path.read_bytes()
    whole = gguf.parse(path)
    path.write_bytes(data[: where % len(data)])
    try:
        rows = gguf.parse(path)
    except ParseError as exc:
        # GGUF errors name a byte offset (0: the magic), not a line
        assert exc.path == str(path) and exc.line is not None and 0 <= exc.line <= len(data)
        assert str(exc) == f"{path}:{exc.line}: expected {exc.expected}, found {exc.found}"
        return
    assert rows == whole                                   # only padding after the KV section was cut
