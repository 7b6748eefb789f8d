"""Property-based round trips of journalctl's JSON export.

Writer: systemd's JSON export (``__REALTIME_TIMESTAMP`` as text, ``_PID`` as text, a MESSAGE
that is not UTF-8 as an array of bytes). Random values printed the way the writer prints them parse back to exactly those values;
cut short or given undecodable bytes, a file gives a ParseError naming it and a line, or the
values it still holds."""
from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from pipeline.ingest.formats import journal

from roundtrip import SETTINGS
from roundtrip import write_file as _write

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
