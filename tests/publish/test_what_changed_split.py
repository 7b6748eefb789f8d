"""What changed tells measurements from the pipeline's own benchmark timings (a page whose
template says ``figures_of: pipeline``, Scaling out): Home's line counts measurements, the
page lists the timings in a section of their own, last (pipeline/publish/what_changed.py)."""
from __future__ import annotations

from pathlib import Path

from pipeline.publish.what_changed import Outcome, counts, render_page, split, summary_line

from conftest import REPO

COMPARISON = {"build": "b2", "figures": "100", "baseline_build": "b1",
              "baseline_source": "the build committed in git at HEAD", "figures_changed": "4"}


def _change(kind, page, figure, old="1 s", new="2 s", rel="1.0", figures=""):
    return {"kind": kind, "figure_id": f"{page}#{figure}", "page": page, "anchor": "",
            "table": "t", "row_key": f"k={figure}", "column": "c", "old_value": "", "new_value": "",
            "unit": "", "old_text": old, "new_text": new, "relative_change": rel,
            "figures": figures}


CHANGES = [_change("moved", "point-to-point", "rtt"),
           _change("moved", "scaling-out", "parse_s"),
           _change("moved", "scaling-out", "build_s"),
           _change("shown", "scaling-out", "peak_mb", old="", new="300 MB"),
           _change("row_added", "index", "row", figures="3")]


def test_split_by_page():
    measured, ours = split(CHANGES, {"scaling-out"})
    assert [c["figure_id"] for c in ours] == ["scaling-out#parse_s", "scaling-out#build_s",
                                             "scaling-out#peak_mb"]
    assert [c["page"] for c in measured] == ["point-to-point", "index"]


def test_the_build_summary_counts_measurements_and_timings_apart():
    # measured: point-to-point's moved figure (1) + index's added row of 3 figures = 4;
    # timings: scaling-out's three entries, one figure each = 3
    assert counts(CHANGES, {"scaling-out"}) == (4, 3)
    assert counts(CHANGES, set()) == (7, 0)


def test_homes_line_counts_measurements_and_names_the_timings_apart():
    line = summary_line(COMPARISON, changes=CHANGES, pipeline_pages={"scaling-out"})
    # measurements: 1 moved figure + a row of 3 figures = 4; the benchmark: 3 figures
    assert line == ("**What changed:** 4 figures of measurements changed (and 3 figures of the "
                    "pipeline's own benchmark) in build `b2` since build `b1` (the build "
                    "committed in git at HEAD): see [What changed](what-changed.md).")
    only_ours = summary_line(COMPARISON, changes=CHANGES[1:4], pipeline_pages={"scaling-out"})
    assert only_ours.startswith("**What changed:** 0 figures of measurements changed (and 3 figures")


def test_the_page_lists_the_timings_last_in_their_own_section():
    outcome = Outcome(COMPARISON, CHANGES, CHANGES, False)
    page = render_page(Path(REPO / "templates"), outcome, {}, pipeline_pages={"scaling-out"})
    assert "**4**\nof measurements, 3 of the pipeline's own benchmark" in page
    moved = page[page.index("## Figures that moved"):page.index("## Rows added")]
    assert "point-to-point" in moved and "scaling-out" not in moved
    ours = page[page.index("## Benchmark timings of the pipeline"):]
    assert "## " not in ours[3:]                                   # the last section
    assert ours.count("| t · ") == 3
    # a figure newly shown: nothing before it, its value now
    assert "| not shown | 300 MB |  |" in ours


def test_what_is_gone_is_named_without_a_link_to_a_page_or_section_that_is_gone():
    # labs/old-lab was removed; a figure no longer shown and a row removed keep their page's
    # link, without the anchor of the previous build (its section may be gone); a moved figure
    # links its section
    changes = [dict(_change("moved", "point-to-point", "rtt"), anchor="rtt-table"),
               dict(_change("missing", "index", "gone", new=""), anchor="old-section"),
               dict(_change("row_removed", "index", "row", figures="2"), anchor="old-rows"),
               dict(_change("page_removed", "labs/old-lab", "", figures="7"), anchor=""),
               dict(_change("row_removed", "labs/old-lab", "row2", figures="1"), anchor="x")]
    page = render_page(Path(REPO / "templates"), Outcome(COMPARISON, changes, changes, False),
                       {}, pipeline_pages=set())
    assert "[point-to-point](point-to-point.md#rtt-table)" in page
    assert "[index](index.md) |" in page and "old-section" not in page and "old-rows" not in page
    assert "| labs/old-lab | removed | 7 |" in page
    assert "old-lab.md" not in page
