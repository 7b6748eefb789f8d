"""End to end: a campaign mixing good and bad files (tests/fixtures/campaigns/mixed-bad) is
dropped into a copy of raw_data/deployments/. The build still succeeds, the published pages
are unchanged, every bad file is recorded with its specific reason, and the good files of the
mixed campaign are ingested."""
import re
import shutil
from pathlib import Path

import pytest

from conftest import build_copy, warehouse
from paths import FIXTURES

FIXTURE = FIXTURES / "campaigns" / "mixed-bad"
PREFIX = "deployments/mixed-bad/"

# file -> (registry status, words of its reason); reasons name the file and its line/offset
BAD = {
    "iperf3/server-to-claw-truncated.json":
        ("quarantined", ":105: expected", "Expecting property name enclosed in double quotes"),
    "iperf3/server-to-claw-refused.json":
        ("quarantined", ":12: expected", "Connection refused"),
    "journal/llama-server.json": ("quarantined", ":1: expected", "found byte 0xd0"),
    "gguf/model.gguf": ("quarantined", ":0: expected", "found b'tjgg'"),
    "env/llama.env": ("quarantined", ":1: expected", "byte 0xff"),
    "ping/server-to-claw-2.txt":
        ("duplicate", ": same content", f"as {PREFIX}ping/server-to-claw-1.txt; ingested once"),
}
GOOD = {"iperf3/claw-to-server.json": 1, "ping/server-to-claw-1.txt": 1,
        "ping/server-to-claw-all-lost.txt": 1}
UNLISTED = "ping/stray-unlisted.txt"


def add_campaign(root: Path) -> None:
    shutil.copytree(FIXTURE, root / "raw_data" / "deployments" / "mixed-bad")


@pytest.fixture(scope="module")
def mixed(tmp_path_factory):
    return build_copy(tmp_path_factory.mktemp("mixed"), edit=add_campaign, site=False)


def test_every_bad_file_is_recorded_with_its_reason(mixed):
    con = warehouse(mixed)
    found = {r[0][len(PREFIX):]: r[1:] for r in con.execute(
        "select source_file, status, reason, coalesce(rows_ingested, 0) from fct_data_sources "
        "where source_file like ? order by source_file", [PREFIX + "%"]).fetchall()}
    for name, (status, where, words) in BAD.items():
        got_status, reason, rows = found[name]
        assert (got_status, rows) == (status, 0), name
        assert reason.startswith(PREFIX + name + where) and words in reason, reason


def test_good_files_of_the_mixed_campaign_are_ingested(mixed):
    con = warehouse(mixed)
    for name, rows in GOOD.items():
        assert con.execute("select status, rows_ingested from ingest_registry where source_file = ?",
                           [PREFIX + name]).fetchall() == [("ok", rows)], name
    # every reply lost is data, not an error: loss 1 and no RTT
    assert con.execute("select packet_loss_fraction, rtt_min_s, rtt_avg_s, rtt_max_s "
                       "from stg_deployment__ping where source_file = ?",
                       [PREFIX + "ping/server-to-claw-all-lost.txt"]).fetchall() == [(1.0, None, None, None)]
    # the good iperf3 run: 844577288 bytes received over 3.000524 s (fixture's end.sum_received)
    (rate,) = con.execute("select received_bytes_per_s from stg_deployment__iperf3 where source_file = ?",
                          [PREFIX + "iperf3/claw-to-server.json"]).fetchone()
    assert rate == pytest.approx(844577288 / 3.000524)


def test_unlisted_file_is_recorded_not_ingested(mixed):
    con = warehouse(mixed)
    assert con.execute("select manifest_status from raw_files where source_file = ?",
                       [PREFIX + UNLISTED]).fetchall() == [("unlisted",)]
    assert con.execute("select count(*) from ingest_registry where source_file = ?",
                       [PREFIX + UNLISTED]).fetchall() == [(0,)]


def _provenance(line: str) -> bool:
    # the per-table source notes list every raw file behind a mart, so they rightly grow by
    # the mixed campaign's files; everything else on the page must be unchanged
    return ("raw file" in line or "sha256" in line or "Download:" in line
            or re.fullmatch(r"\s+- … and \d+ more", line) is not None)


def test_every_published_line_is_still_there(mixed, built):
    """Every figure of the reference pages is still published: each line of the build without
    the mixed campaign (other than its source notes) is on the pages built with it."""
    for page in ("ethernet-bandwidth-math.md", "point-to-point.md"):
        with_mixed = set((mixed.docs / page).read_text().splitlines())
        missing = [ln for ln in (built.docs / page).read_text().splitlines()
                   if not _provenance(ln) and ln not in with_mixed]
        assert missing == [], f"{page}: {missing[:5]}"


def test_data_quality_page_lists_every_bad_file(mixed):
    page = mixed.docs / "data-quality.md"
    if not (mixed.root / "templates" / "data-quality.md.j2").exists():
        pytest.skip("no Data quality page in this tree yet")
    text = page.read_text()
    for name in [*BAD, UNLISTED]:
        assert PREFIX + name in text or name in text, name
