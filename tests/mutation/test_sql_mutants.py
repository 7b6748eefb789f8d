"""The SQL mutant generator of `make mutate` (mutation/sql_mutants.py): which mistakes it makes,
that comments and string literals are left alone, and that every mutant still parses where the
original did (so a killed mutant was killed by a test, not by a syntax error)."""
from __future__ import annotations

import duckdb

from mutation.sql_mutants import discover, mutants_of

from paths import REPO

SQL = """-- a comment: where x < 8 and median(y) → §2.3 (non-ASCII: offsets are characters)
select a.tx_bytes * 8 / 1024 as bits, median(b) as m, 'where < 1024' as s
from t as a
where a.x <= 3 and a.y = 'k'
group by all
qualify row_number() over (partition by a.campaign, a.host order by c) = 1
"""


def test_the_mutants_of_a_small_model():
    got = [(m.kind, m.old, m.new, m.line) for m in mutants_of("sql/x.sql", SQL)]
    assert got == [
        ("swap", "tx_bytes", "rx_bytes", 2),
        ("constant", "8", "1", 2),
        ("constant", "1024", "1000", 2),
        ("aggregate", "median", "min", 2),
        ("filter", "where", "where true or", 4),
        ("compare", "<=", "<", 4),
        ("compare", "=", "<>", 4),
        ("filter", "qualify", "qualify true or", 6),
        ("group", ", a.host", "", 6),
        ("compare", "=", "<>", 6),
    ]
    # nothing from the comment (line 1) or the string literal on line 2; the tokens are found
    # after the comment's non-ASCII characters (DuckDB's byte offsets made into characters)


def test_applying_a_mutant_changes_only_its_token():
    (drop,) = [m for m in mutants_of("sql/x.sql", SQL) if m.kind == "group"]
    out = drop.apply(SQL)
    assert "partition by a.campaign order by c" in out
    assert out.replace("partition by a.campaign order", "partition by a.campaign, a.host order") == SQL


def test_every_shipped_mutant_still_parses():
    root = REPO
    mutants = discover(root)
    assert len(mutants) > 500
    con = duckdb.connect()
    for m in mutants[::25]:        # a spread of files and kinds; parsing all takes a minute
        text = m.apply((root / m.file).read_text())
        con.extract_statements(text)


def test_every_mutant_has_a_name_of_its_own(tmp_path):
    # two '=' on one line would share a name: they are numbered in file order (#1, #2), so a
    # survivor can be named and run again alone (python -m mutation sql --names)
    (tmp_path / "sql").mkdir()
    (tmp_path / "sql" / "m.sql").write_text("select * from a join b on a.x = b.x and a.y = b.y\n")
    names = [m.name for m in discover(tmp_path) if m.kind == "compare"]
    assert names == ["sql/m.sql:1:compare:=-><>#1", "sql/m.sql:1:compare:=-><>#2"]
    every = [m.name for m in discover(REPO)]
    assert len(every) == len(set(every))
