"""What a reader's first screen answers (issue 40, finding 4 and the collapsed row groups):
Point to Point's bottom line names the best region pairs by city and code with what they carry
and calls the latency bound compute-free; Home's verdict table keeps the reference models and
the featured deployment, and folds every other deployment's rows (the lab's runs) below it."""
from __future__ import annotations

import csv


def _rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def _box(page: str) -> str:
    start = page.index('!!! abstract "Bottom line"')
    end = page.index("\n\n", page.index("\n\n", start) + 2)
    return page[start:end]


def test_point_to_points_bottom_line_names_the_best_pairs_with_their_codes(built):
    page = (built.docs / "point-to-point.md").read_text()
    box = _box(page)
    rows = _rows(built.docs / "point-to-point" / "data" / "fct_p2p_pp_verdict.csv")
    first = rows[0]["model"]                       # the csv is in the page's model order
    carrying = sorted((r for r in rows if r["model"] == first and int(r["workloads_carried"] or 0) > 0),
                      key=lambda r: int(r["pair_rank"]))
    best = carrying[0]
    assert (f"**Best pair**: **{best['region_a_name']} ↔ {best['region_b_name']}**\n"
            f"      ({best['region_a']} ↔ {best['region_b']})") in box
    assert (f"carries {best['workloads_carried']} of {best['workloads']} workloads of "
            f"{best['model_label']}, up to\n      batch {best['heaviest_carried_batch_size']} at "
            f"{best['heaviest_carried_tokens_per_s']} tok/s per sequence") in box
    assert box.count("Next: **") == min(2, len(carrying) - 1)
    assert "compute-free bound" in box and "allows" not in box
    # the ranked table names each pair by code too
    top = next(r for r in rows if r["model"] == first and r["pair_rank"] == "1")
    assert (f"| 1 | {top['region_a_name']} ↔ {top['region_b_name']} "
            f"({top['region_a']} ↔ {top['region_b']}) |") in page


def test_homes_verdict_table_folds_the_other_deployments_rows(built):
    page = (built.docs / "index.md").read_text()
    section = page[page.index("## Feasibility verdict per link class"):page.index("## Pages")]
    table, folded = section.split('??? note "The other ', 1)
    rows = _rows(built.docs / "index" / "data" / "fct_feasibility_summary.csv")
    featured = next(r["campaign"] for r in _rows(built.docs / "index" / "data" / "dim_featured_campaigns.csv")
                    if r["slot"] == "deployment")
    shown = [r for r in rows if r["campaign"] in ("", featured)]
    others = [r for r in rows if r not in shown]
    assert table.count("\n| ") - 2 == len(shown)               # less the header and its rule
    assert folded.count("\n    | ") - 2 == len(others) > 0
    assert folded.startswith(f"{len({r['campaign'] for r in others})} deployments' models: "
                             f"{len(others)} rows\"")
    assert "lab-rpc-tbf050" not in table and "lab-rpc-tbf050" in folded
