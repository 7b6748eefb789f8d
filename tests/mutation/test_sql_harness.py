"""The SQL mutation harness of `make mutate` (mutation/sql_harness.py, mutation/fingerprint.py):
which stage judges a mutant, that a build's digest sees every kind of change, and the interval
of a sampled score."""
from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from mutation import fingerprint
from mutation.sql_harness import BUILT, OWN_DATA, judge, wilson
from mutation.sql_mutants import Mutant

from paths import REPO


def _db(path: Path, rows: list[tuple]) -> Path:
    con = duckdb.connect(str(path))
    con.execute("create schema s")
    con.execute("create table s.t (a integer, b varchar)")
    con.executemany("insert into s.t values (?, ?)", rows)
    con.execute("create view v as select a * 8 as bits from s.t")
    con.close()
    return path


def test_a_relation_digest_sees_a_changed_value_a_duplicate_and_a_view(tmp_path):
    base = fingerprint.relations(_db(tmp_path / "a.duckdb", [(1, "x"), (2, "y")]))
    assert set(base) == {"s.t", "main.v"}
    same = fingerprint.relations(_db(tmp_path / "b.duckdb", [(2, "y"), (1, "x")]))
    assert fingerprint.differences(base, same) == []          # row order is not a change
    value = fingerprint.relations(_db(tmp_path / "c.duckdb", [(1, "x"), (3, "y")]))
    assert fingerprint.differences(base, value) == ["main.v", "s.t"]   # the view reads t
    dup = fingerprint.relations(_db(tmp_path / "d.duckdb", [(1, "x"), (2, "y"), (2, "y")]))
    assert fingerprint.differences(base, dup) == ["main.v", "s.t"]


def test_a_view_the_mutant_broke_has_its_error_as_digest(tmp_path):
    path = _db(tmp_path / "a.duckdb", [(1, "x")])
    con = duckdb.connect(str(path))
    con.execute("create view broken as select * from s.t")
    con.execute("alter table s.t rename to u")
    con.close()
    got = fingerprint.relations(path)
    assert got["main.broken"].startswith("error: ") and got["main.v"].startswith("error: ")


def test_a_page_digest_sees_an_edit_an_added_and_a_removed_file(tmp_path):
    docs = tmp_path / "docs"
    (docs / "sub").mkdir(parents=True)
    (docs / "a.md").write_text("1.25 Gbit/s\n")
    (docs / "sub" / "b.csv").write_text("x\n")
    base = fingerprint.pages(docs)
    (docs / "a.md").write_text("1.26 Gbit/s\n")
    (docs / "sub" / "b.csv").unlink()
    (docs / "c.md").write_text("new\n")
    assert fingerprint.differences(base, fingerprint.pages(docs)) == ["a.md", "c.md", "sub/b.csv"]


def test_wilson_interval_worked_by_hand():
    # 9 of 10: p = 0.9, z² = 3.8416; centre = (0.9 + 3.8416/20) / (1 + 3.8416/10) = 0.78898;
    # half = 1.96·sqrt(0.9·0.1/10 + 3.8416/400) / 1.38416 = 0.19314
    low, high = wilson(9, 10)
    assert low == pytest.approx(0.78898 - 0.19314, abs=1e-4)
    assert high == pytest.approx(0.78898 + 0.19314, abs=1e-4)
    assert wilson(0, 0) == (0.0, 1.0)


class FakeTree:
    """The harness's view of a scratch tree, with scripted test and build results."""

    def __init__(self, root: Path, own_ok=True, build_error=None, digest=None, built_ok=True):
        self.root, self.own_ok, self.build_error = root, own_ok, build_error
        self.digest, self.built_ok, self.runs, self.seen = digest or {"r": "1"}, built_ok, [], []

    def pytest(self, files, workers, prebuilt=False):
        self.runs.append((tuple(files), prebuilt))
        self.seen.append((self.root / "sql" / "m.sql").read_text())
        return (self.built_ok if prebuilt else self.own_ok), ""

    def build(self):
        return self.build_error

    def fingerprint(self):
        return self.digest


@pytest.fixture
def mutant(tmp_path):
    (tmp_path / "sql").mkdir()
    (tmp_path / "sql" / "m.sql").write_text("select a from t where a < 8\n")
    return Mutant("sql/m.sql", "compare", 24, "<", "<=", 1)


@pytest.mark.parametrize("tree_args, killed, stage, built_run", [
    ({"own_ok": False}, True, "own-data tests", False),
    ({"build_error": "Binder Error"}, True, "build", False),
    ({}, False, "unchanged", False),                               # digest as the original's
    ({"digest": {"r": "2"}, "built_ok": False}, True, "built-tree tests", True),
    ({"digest": {"r": "2"}}, False, "built-tree tests", True),
])
def test_each_stage_judges_and_the_file_is_put_back(tmp_path, mutant, tree_args, killed, stage, built_run):
    tree = FakeTree(tmp_path, **tree_args)
    out = judge(tree, mutant, {"r": "1"}, set(), workers=1)
    assert (out.killed, out.stage) == (killed, stage)
    assert tree.runs[0] == (tuple(OWN_DATA), False)
    assert ((tuple(BUILT), True) in tree.runs) == built_run
    assert tree.seen[0] == "select a from t where a <= 8\n"          # the tests saw the mutant
    assert (tmp_path / "sql" / "m.sql").read_text() == "select a from t where a < 8\n"
    if stage == "built-tree tests":
        assert out.changed == ["r"]


def test_a_relation_that_differs_between_two_original_builds_always_counts_as_changed(tmp_path, mutant):
    tree = FakeTree(tmp_path)
    out = judge(tree, mutant, {"r": "1"}, {"flaky"}, workers=1)
    assert out.stage == "built-tree tests" and out.changed == ["flaky"]


def test_the_built_fixture_takes_a_prebuilt_tree(monkeypatch, tmp_path):
    # the harness hands its own build to the built-tree tests through this variable
    from conftest import prebuilt
    assert prebuilt() is None
    monkeypatch.setenv("INTERCONNECT_TEST_PREBUILT", str(tmp_path))
    assert prebuilt().root == tmp_path


def test_the_equivalents_list_names_real_mutants_with_a_reason():
    from mutation.sql_harness import equivalents
    from mutation.sql_mutants import discover
    listed = equivalents()
    assert listed and all(reason for reason in listed.values())
    # every listed mutant exists in the current sql/ (a stale line would hide nothing, but would
    # claim a reason for a mutant that is gone)
    assert set(listed) <= {m.name for m in discover(REPO)}


def test_an_equivalents_line_without_a_reason_is_refused(tmp_path):
    from mutation.sql_harness import equivalents
    bad = tmp_path / "eq.txt"
    bad.write_text("# comment\nsql/x.sql:1:compare:<-><=\n")
    with pytest.raises(ValueError, match=r"eq.txt:2: expected '<mutant name><TAB><reason>'"):
        equivalents(bad)


def test_the_python_score_counts_mutmuts_exit_codes(tmp_path):
    import json

    from mutation.python_score import report
    meta = tmp_path / "pipeline" / "x.py.meta"
    meta.parent.mkdir()
    meta.write_text(json.dumps({"exit_code_by_key": {"a": 1, "b": 3, "c": 0, "d": -11, "e": 33,
                                                     "f": None, "g": 35}}))
    # killed 2 (exit 1, 3); survived 0 and suspicious 35: 2; crashed 1; no tests 1; not run 1;
    # judged 6: 2 / 6 = 33 %
    assert report(tmp_path).splitlines()[1] == "pipeline/x.py | 2 | 2 | 0 | 1 | 1 | 1 | 33% (partly run)"
