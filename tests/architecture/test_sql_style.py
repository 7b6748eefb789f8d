"""The SQL reads one way (README, "SQL models"; DESIGN §5): a staging model is ``source`` CTEs
then ``renamed`` and ends ``select * from renamed``; intermediate models and marts end
``select * from final``; a mart reads staging, intermediate and other mart models (and the
declared ``ref_*`` and catalog ``meta_*`` tables), never the raw layer; a unit factor is a
macro of ``sql/macros.sql``, written nowhere else. Each failure names the file."""
from __future__ import annotations

import re
from pathlib import Path

from pipeline.warehouse import models

from paths import REPO

SQL = REPO / "sql"
RAW_LAYER = re.compile(r"^(raw_[a-z0-9_]+|ingest_registry)$")
# bytes <-> bits, ms/us -> s, Mbit/s and Gbit/s -> bit/s, as literals in code
FACTOR = re.compile(r"[*/]\s*(8|1000|1e3|1e6|1e9|1000000|1024)\b(?!\.)")


def code(text: str) -> str:
    """The SQL without its comments and string literals (a factor in prose is not code)."""
    text = "\n".join(line.split("--", 1)[0] for line in text.splitlines())
    return re.sub(r"'(?:[^']|'')*'", "''", text)


def _ending(text: str) -> str | None:
    found = re.findall(r"^select \* from (\w+)", code(text), flags=re.M)
    return found[-1] if found else None


def style_problems(sql_dir: Path) -> list[str]:
    out = []
    for model in models.discover(sql_dir):
        rel = f"sql/{model.layer}/{model.path.name}"
        text = model.path.read_text()
        body = code(text)
        if model.layer == "staging":
            if not re.search(r"\Awith source as \(", body.strip()):
                out.append(f"{rel}: a staging model opens with 'with source as (select * from <raw table>)'")
            if _ending(text) != "renamed":
                out.append(f"{rel}: a staging model ends 'select * from renamed'")
        elif _ending(text) != "final":
            out.append(f"{rel}: an {model.layer} model ends 'select * from final'")
        if model.layer == "marts":
            raw = sorted(u for u in model.upstreams if RAW_LAYER.match(u))
            if raw:
                out.append(f"{rel}: a mart reads the raw layer ({', '.join(raw)}); read its "
                           f"staging model (sql/staging/stg_raw__*.sql)")
    for path in sorted(sql_dir.rglob("*.sql")):
        if path.name == "macros.sql":
            continue
        for n, line in enumerate(code(path.read_text()).splitlines(), start=1):
            if FACTOR.search(line):
                out.append(f"sql/{path.relative_to(sql_dir)}:{n}: a unit factor in code; use "
                           f"a macro of sql/macros.sql ({line.strip()})")
    return out


def test_the_sql_reads_one_way():
    assert style_problems(SQL) == []


def test_the_style_check_names_each_breach(tmp_path):
    for layer in ("staging", "intermediate", "marts"):
        (tmp_path / layer).mkdir()
    (tmp_path / "staging" / "stg_x__a.sql").write_text(
        "-- grain: one row per a\nwith source as (\n    select * from raw_a\n),\nfinal as (\n"
        "    select a / 1000 as a_s from source\n)\nselect * from final\n")
    (tmp_path / "marts" / "fct_b.sql").write_text(
        "-- grain: one row per b\n-- a comment's * 8 is prose\nwith b as (\n"
        "    select *, 'x / 8' as t from raw_a\n)\nselect * from b\n")
    assert style_problems(tmp_path) == [
        "sql/staging/stg_x__a.sql: a staging model ends 'select * from renamed'",
        "sql/marts/fct_b.sql: an marts model ends 'select * from final'",
        "sql/marts/fct_b.sql: a mart reads the raw layer (raw_a); read its staging model "
        "(sql/staging/stg_raw__*.sql)",
        "sql/staging/stg_x__a.sql:6: a unit factor in code; use a macro of sql/macros.sql "
        "(select a / 1000 as a_s from source)",
    ]
