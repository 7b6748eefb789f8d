"""A failed check's rows as the build and Data quality tell them (pipeline/warehouse/check_report.py)."""
from pipeline.warehouse.check_report import describe_failures, withhold_reason

NAMES = ["campaign", "host"]


def test_three_rows_are_shown_and_the_rest_counted():
    rows = [("c", f"h{i}") for i in range(6)]
    # 6 rows: h0..h2 shown, 6 - 3 = 3 more counted
    assert describe_failures(NAMES, rows) == (
        "campaign=c, host=h0; campaign=c, host=h1; campaign=c, host=h2; (and 3 more row(s))")
    # 3 rows or fewer: all shown, no count
    assert describe_failures(NAMES, rows[:3]).count("campaign=") == 3
    assert "more row(s)" not in describe_failures(NAMES, rows[:3])


def test_a_withheld_reason_says_what_holds_how_many_fail_and_how_to_fix_it():
    reason = withhold_reason("every window lies inside a capture", "capture longer",
                             NAMES, [("c", "server"), ("c", "claw")])
    assert reason == ("every window lies inside a capture — 2 failing row(s): campaign=c, "
                      "host=server; campaign=c, host=claw. To fix: capture longer")
    # a check without a "-- fix:" line ends after its rows
    assert withhold_reason("s", None, NAMES, [("c", "h")]).endswith("host=h")
