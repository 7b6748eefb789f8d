"""The figures ledger's parts on small hand-made inputs: what a render records, the anchors,
the diff, the regression thresholds, the baseline and the carried comparison."""
from __future__ import annotations

import subprocess
from pathlib import Path

import duckdb
import pytest

from pipeline.publish import pages
from pipeline.publish.figures import baseline as baseline_mod
from pipeline.publish.figures.diff import compare, figures_changed
from pipeline.publish.figures.ledger import build_id, figure_id, from_csv, to_csv
from pipeline.publish.figures.regressions import RuleError, evaluate, rules_from_rows
from pipeline.publish.what_changed import stage


def _render(tmp_path: Path, body: str, keys=None):
    tpl = tmp_path / "t.md.j2"
    tpl.write_text("{#---\ntitle: T\nmarts: [links]\n---#}\n" + body)
    con = duckdb.connect()
    con.execute("create table links as select * from (values "
                "('a', 0.0015, 125000000.0, 'feasible', 3), "
                "('b', null, 62500000.0, 'marginal', 4)) t(link, rtt_s, rate_bits_per_s, cls, n)")
    figures: list[dict] = []
    page = pages.Page(tpl, "T", ("links",))
    text = pages.render(con, page, figures=figures, keys={"links": ("link",)} if keys is None else keys)
    return text, figures


def test_a_render_records_each_printed_figure_once_with_its_base_value(tmp_path):
    text, figures = _render(tmp_path, (
        "# Title\n\n## Links {: #the-links }\n\n"
        "{% for l in links %}| {{ l.link }} | {{ l.rtt_s | ms(1) }} | {{ l.rate_bits_per_s | rate_as('Mbit/s', 0) }} | {{ l.cls }} | {{ l.n }} |\n{% endfor %}"
        "\n## Links\n\nAgain: {{ links[0].rtt_s | us }}; sum {{ links | sum(attribute='n') }}\n"))
    # the page text has no marker left, and shows what it always showed
    assert "\ue000" not in text and "\ue001" not in text
    assert "| a | 1.5 ms | 125 Mbit/s | feasible | 3 |" in text
    assert "| b | — | 62 Mbit/s | marginal | 4 |" in text
    got = {(f["row_key"], f["column"]): f for f in figures}
    # the key column is identity, not a figure; b's missing RTT is not a figure; the second
    # print of a's RTT (in µs) is the same figure; a sum computed in the template is not one
    assert set(got) == {("link=a", "rtt_s"), ("link=a", "rate_bits_per_s"), ("link=a", "cls"),
                        ("link=a", "n"), ("link=b", "rate_bits_per_s"), ("link=b", "cls"),
                        ("link=b", "n")}
    rtt = got[("link=a", "rtt_s")]
    assert (rtt["value"], rtt["unit"], rtt["text"], rtt["kind"]) == ("0.0015", "s", "1.5 ms", "number")
    assert rtt["anchor"] == "the-links"                   # the explicit { #id }
    assert rtt["figure_id"] == "t#links[link=a].rtt_s"
    rate = got[("link=b", "rate_bits_per_s")]
    assert (rate["value"], rate["unit"], rate["text"]) == ("62500000.0", "bit/s", "62 Mbit/s")
    assert got[("link=a", "n")]["value"] == "3" and got[("link=a", "cls")]["kind"] == "text"


def test_repeated_headings_get_the_ids_mkdocs_gives_them(tmp_path):
    _, figures = _render(tmp_path, (
        "## Links\n\n{{ links[0].n }}\n\n## Links\n\n{{ links[1].n }}\n\n"
        "```text\n## not a heading\n```\n{{ links[1].cls }}\n"))
    where = {f["row_key"] + "." + f["column"]: f["anchor"] for f in figures}
    assert where == {"link=a.n": "links", "link=b.n": "links_1", "link=b.cls": "links_1"}


def test_a_table_without_a_declared_key_gives_no_figures(tmp_path):
    text, figures = _render(tmp_path, "{{ links[0].n }}\n", keys={})
    assert figures == [] and text.startswith("3")


def _row(page, table, key, column, value, kind="number", text=None):
    return {"figure_id": figure_id(page, table, key, column), "page": page, "anchor": "s",
            "table": table, "row_key": key, "column": column, "kind": kind, "value": value,
            "unit": "", "text": text if text is not None else value}


def _status(campaign, status):
    return _row("data-quality", "meta_campaign_status", f"campaign={campaign}", "status",
                status, "text")


OLD = [_row("p", "t", "k=1", "x", "100.0"), _row("p", "t", "k=1", "y", "2.0"),
       _row("p", "t", "k=1", "z", "5.0"), _row("p", "t", "k=2", "x", "10.0"),
       _row("p", "c", "k=1", "cls", "feasible", "text"), _row("gone", "t", "k=1", "x", "1.0"),
       _status("one", "published"), _status("two", "published"), _status("three", "published")]
NEW = [_row("p", "t", "k=1", "x", "75.0"), _row("p", "t", "k=1", "y", "2.0000000000000004"),
       _row("p", "t", "k=1", "w", "7.0"), _row("p", "t", "k=3", "x", "1.0"),
       _row("p", "t", "k=3", "y", "1.0"), _row("p", "c", "k=1", "cls", "marginal", "text"),
       _row("new", "t", "k=1", "x", "1.0"), _row("new", "t", "k=1", "y", "1.0"),
       _status("one", "published"), _status("two", "withheld"), _status("four", "published")]


def test_compare_lists_each_kind_of_change_once():
    changes = compare(OLD, NEW)
    got = [(c["kind"], c["figure_id"]) for c in changes]
    assert got == [
        ("campaign_added", "campaign:four"), ("campaign_removed", "campaign:three"),
        ("campaign_withheld", "campaign:two"),
        ("text", "p#c[k=1].cls"),
        ("moved", "p#t[k=1].x"),                 # 100 -> 75; y's last-bit change is not a move
        ("missing", "p#t[k=1].z"), ("shown", "p#t[k=1].w"),
        ("row_added", "p#t[k=3]"), ("row_removed", "p#t[k=2]"),
        ("page_added", "new#"), ("page_removed", "gone#")]
    moved = changes[4]
    assert float(moved["relative_change"]) == pytest.approx((75 - 100) / 100)   # -0.25
    assert (moved["old_value"], moved["new_value"]) == ("100.0", "75.0")
    assert changes[7]["figures"] == "2" and changes[8]["figures"] == "1"
    # figures that differ: cls, x, z, w (4) + the 2 of row k=3 + 1 of row k=2 + 2 of page new
    # + 1 of page gone = 10; campaign entries are not figures
    assert figures_changed(changes) == 10


def test_moves_are_sorted_by_size_of_change_and_from_zero_first():
    old = [_row("p", "t", f"k={i}", "x", v) for i, v in enumerate(["10.0", "10.0", "0.0", "10.0"])]
    new = [_row("p", "t", f"k={i}", "x", v) for i, v in enumerate(["11.0", "5.0", "3.0", "10.0"])]
    got = [(c["row_key"], c["relative_change"]) for c in compare(old, new)]
    assert got == [("k=2", ""), ("k=1", "-0.5"), ("k=0", "0.1")]


RULES = [
    {"check": "link_rtt_regression", "table": "t", "column": "rtt_s", "direction": "increase",
     "threshold_fraction": 0.25, "source": "note"},
    {"check": "link_throughput_regression", "table": "t", "column": "rate", "direction": "decrease",
     "threshold_fraction": 0.10, "source": "note"},
    {"check": "feasibility_regression", "table": "c", "column": "cls", "direction": "worse",
     "threshold_fraction": None, "source": "note"},
]
RANKS = {"feasible": 1, "marginal": 2, "saturated": 3}


def test_thresholds_are_strict_and_each_figure_counts_once():
    old = [_row("p", "t", f"k={i}", "rtt_s", "1.0") for i in range(3)] + \
          [_row("p", "t", f"k={i}", "rate", "100.0") for i in range(3)] + \
          [_row("p", "c", f"k={i}", "cls", v, "text") for i, v in enumerate(["feasible", "saturated"])]
    # (1.25 - 1) / 1 = 0.25 and (90 - 100) / 100 = -0.1 exactly in binary floating point
    new = [_row("p", "t", "k=0", "rtt_s", "1.25"),          # +25 % exactly: not more than 25 %
           _row("p", "t", "k=1", "rtt_s", "1.2500001"),     # just over
           _row("p", "t", "k=2", "rtt_s", "0.5"),           # better
           _row("p", "t", "k=0", "rate", "90.0"),           # -10 % exactly
           _row("p", "t", "k=1", "rate", "89.9"),           # just over
           _row("p", "t", "k=2", "rate", "200.0"),
           _row("p", "c", "k=0", "cls", "marginal", "text"),     # worse
           _row("p", "c", "k=1", "cls", "feasible", "text")]     # better
    found = evaluate(compare(old, new), rules_from_rows(RULES), RANKS)
    assert [h["figure_id"] for h in found["link_rtt_regression"]] == ["p#t[k=1].rtt_s"]
    assert [h["figure_id"] for h in found["link_throughput_regression"]] == ["p#t[k=1].rate"]
    assert [h["figure_id"] for h in found["feasibility_regression"]] == ["p#c[k=0].cls"]


def test_the_same_figure_on_two_pages_is_one_regression():
    old = [_row(p, "t", "k=0", "rtt_s", "1.0") for p in ("p", "q")]
    new = [_row(p, "t", "k=0", "rtt_s", "2.0") for p in ("p", "q")]
    found = evaluate(compare(old, new), rules_from_rows(RULES), RANKS)
    assert len(found["link_rtt_regression"]) == 1


def test_a_bad_rule_names_its_line():
    bad = [RULES[0], {**RULES[1], "check": "throughput"}]
    with pytest.raises(RuleError, match=r"regression_thresholds.csv:3: expected a check.*'throughput'"):
        rules_from_rows(bad)
    with pytest.raises(RuleError, match=r"regression_thresholds.csv:2: expected a threshold"):
        rules_from_rows([{**RULES[0], "threshold_fraction": ""}])


def _ledger_files(folder: Path, rows: list[dict]) -> None:
    data = folder / "what-changed" / "data"
    data.mkdir(parents=True, exist_ok=True)
    (data / "figures.csv").write_bytes(to_csv(rows))


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                   env={"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
                        "GIT_COMMITTER_EMAIL": "t@t", "PATH": "/usr/bin:/bin"})


def test_baseline_is_head_in_a_checkout_and_the_publish_dir_elsewhere(tmp_path, monkeypatch):
    monkeypatch.delenv("INTERCONNECT_PUBLISH_DIR", raising=False)
    root = tmp_path / "repo"
    docs = root / "docs"
    _ledger_files(docs, OLD)
    assert baseline_mod.load(docs, root).source == "the previous build in docs/"
    _git(root, "init", "-q")
    # a checkout without a commit has no baseline yet
    assert baseline_mod.load(docs, root) is baseline_mod.NONE
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "docs")
    _ledger_files(docs, NEW)                      # the working copy moved on
    head = baseline_mod.load(docs, root)
    assert head.source == "the build committed in git at HEAD" and head.ledger == to_csv(OLD)
    published = tmp_path / "site"
    _ledger_files(published, NEW)
    got = baseline_mod.load(docs, root, "published", publish_dir=str(published))
    assert got.ledger == to_csv(NEW) and got.source == "the build in the publish directory"
    with pytest.raises(baseline_mod.BaselineError, match="needs a git checkout"):
        baseline_mod.load(docs, tmp_path / "elsewhere-not-git", "head")


def _stage_pages(staged: Path, rows: list[dict]) -> set[str]:
    from pipeline.publish.figures.site_ledger import stage_figures
    pages_seen = set()
    for page in sorted({r["page"] for r in rows if r["table"] != "meta_campaign_status"}):
        (staged / f"{page}.md").parent.mkdir(parents=True, exist_ok=True)
        (staged / f"{page}.md").write_text("page\n")
        stage_figures(staged, page, [r for r in rows if r["page"] == page], [])
        pages_seen.add(page)
    return pages_seen


def test_the_same_figures_keep_the_baselines_comparison(tmp_path):
    figures = [r for r in NEW if r["table"] != "meta_campaign_status"]
    docs = tmp_path / "docs"
    staged = tmp_path / "s1"
    pages_seen = _stage_pages(staged, figures)
    base = baseline_mod.Baseline("b", {"what-changed/data/figures.csv": to_csv(OLD)})
    first, ledger, _ = stage(staged, docs, pages_seen, [("one", "published")], base)
    assert not first.carried and first.comparison["baseline_build"] == build_id(to_csv(OLD))
    files = {rel: (staged / rel).read_bytes() for rel in baseline_mod.FILES}
    # the next build has the same figures: it is that build, its page stays as it was
    staged2 = tmp_path / "s2"
    second, ledger2, _ = stage(staged2, docs, _stage_pages(staged2, figures), [("one", "published")],
                               baseline_mod.Baseline("the build committed in git at HEAD", files))
    assert ledger2 == ledger and second.carried and second.current == []
    assert {rel: (staged2 / rel).read_bytes() for rel in baseline_mod.FILES} == files
    assert from_csv(files["what-changed/data/figures.csv"]) == from_csv(ledger)


def test_a_page_not_rendered_in_this_run_keeps_its_published_figures(tmp_path):
    docs = tmp_path / "docs"
    _ledger_files(docs, [r for r in OLD if r["page"] in ("p", "gone")])
    staged = tmp_path / "staged"
    (staged / "gone.md").parent.mkdir(parents=True)
    outcome, ledger, _ = stage(staged, docs, {"p"}, [], baseline_mod.NONE)
    rows = from_csv(ledger)
    # p was not rendered: its published rows are kept; "gone" no longer exists: dropped
    assert {r["page"] for r in rows} == {"p"} and len(rows) == 5
    assert outcome.comparison["baseline_build"] == "" and outcome.changes == []
