"""Property-based round trips of environment files.

Writer: python-dotenv's syntax (``[export ]KEY=value``, ``'single'`` and ``"double"`` quotes,
with ``\\\\`` for a backslash in both and ``\\"`` in double quotes, ``#`` comments). Random values printed the way the writer prints them parse back to exactly those values;
cut short or given undecodable bytes, a file gives a ParseError naming it and a line, or the
values it still holds."""
from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from pipeline.ingest.formats import env

from roundtrip import SETTINGS
from roundtrip import write_file as _write

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
