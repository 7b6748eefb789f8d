"""What the search index holds (pipeline/publish/search_tuning.py): provenance lists and the
build stamp out, every page's sections in; campaign pages ranked below the pages readers come
for."""
from __future__ import annotations

import json

from pipeline.publish.search_tuning import (
    CAMPAIGN_BOOST,
    WORD_JOINER,
    boost_of,
    evidence_sections,
    exclude_provenance,
    tune_index,
    unprefix_numbers,
)

NOTE = ('<details class="abstract">\n<summary>Data behind this table: 3 raw file(s)</summary>\n'
        '<ul><li>p2p/a/ping/x.txt · sha256 0123</li></ul></details>')
FOLD = ('<details class="note">\n<summary>21 files, 61.9 <abbr title="kilobyte">KB</abbr>; all '
        'ingested (click to list them)</summary><table></table></details>')
OTHER = '<details class="abstract">\n<summary>How this is computed</summary></details>'
STAMP = '<p class="build-stamp"><strong>Build stamp</strong>: …</p>'


def test_provenance_blocks_and_the_stamp_are_marked_and_nothing_else():
    out = exclude_provenance(NOTE + FOLD + OTHER + STAMP)
    assert out.count("data-search-exclude") == 3
    assert '<details class="abstract" data-search-exclude>\n<summary>Data behind' in out
    assert '<details class="note" data-search-exclude>\n<summary>21 files' in out
    assert OTHER in out                                    # an explanatory note stays searchable
    assert '<p class="build-stamp" data-search-exclude>' in out


def test_boosts():
    assert boost_of("point-to-point.md") > 1 and boost_of("index.md") > 1
    assert boost_of("deployments/lab-rpc-tbf050.md") == boost_of("p2p/aws.md") == CAMPAIGN_BOOST < 1
    assert boost_of("data-dictionary.md") < 1 and boost_of("data-sources.md") < 1
    assert boost_of("scaling-out.md") is None


def test_a_number_in_a_search_title_starts_after_a_word_joiner():
    j = WORD_JOINER
    # "2.3": one number (the "3" follows a point); "2026-08-17": three (each follows a hyphen,
    # the query reader's separator); "Qwen3.8-27B": "27B" follows a hyphen, "3.8" a letter
    assert unprefix_numbers("2.3 Feasibility matrix") == f"{j}2.3 Feasibility matrix"
    assert unprefix_numbers("(2026-08-17)") == f"({j}2026-{j}08-{j}17)"
    assert unprefix_numbers("Qwen3.8-27B") == f"Qwen3.8-{j}27B"
    assert unprefix_numbers("hidden_size") == "hidden_size"


def test_the_index_file_keeps_its_text_and_changes_titles_only(tmp_path):
    path = tmp_path / "search_index.json"
    path.write_text(json.dumps({"config": {"separator": "x"}, "docs": [
        {"location": "a/#b", "title": "0.5 Decode (5 positions)", "text": "5 positions"},
        {"location": "c/", "title": "", "text": "x"}]}))
    tune_index(path)
    docs = json.loads(path.read_text())["docs"]
    assert docs[0]["title"] == f"{WORD_JOINER}0.5 Decode ({WORD_JOINER}5 positions)"
    assert docs[0]["text"] == "5 positions" and docs[1] == {"location": "c/", "title": "", "text": "x"}


def test_lab_evidence_is_its_heading_and_the_sections_under_it():
    html = ('<h2 id="a">A</h2><p>x</p>'
            '<h3 class="lab-evidence" id="m">Model</h3><h4 id="m1">Runs</h4><h4 id="m2">Fit</h4>'
            '<h3 id="b">B</h3>'                          # same level: evidence ends
            '<h3 id="c" class="lab-evidence other">C</h3><h2 id="d">D</h2><h4 id="e">E</h4>')
    assert evidence_sections(html) == ["m", "m1", "m2", "c"]
    assert evidence_sections('<h3 class="lab-evidence-not">x</h3><h3 id="z">z</h3>') == []


def test_the_index_file_ranks_lab_evidence_as_a_campaign_page(tmp_path):
    path = tmp_path / "search_index.json"
    path.write_text(json.dumps({"config": {}, "docs": [
        {"location": "p/#decode", "title": "Decode", "text": "", "boost": 1.5},
        {"location": "p/#decode-model", "title": "Decode model", "text": "", "boost": 1.5}]}))
    tune_index(path, frozenset({"p/#decode-model"}))
    boosts = [d["boost"] for d in json.loads(path.read_text())["docs"]]
    assert boosts == [1.5, CAMPAIGN_BOOST]


def test_the_built_index_has_no_provenance_list_and_ranks_campaign_pages_lower(built):
    index = json.loads((built.site.resolve() / "search" / "search_index.json").read_text())
    docs = index["docs"]
    listed = [d["location"] for d in docs
              if "Data behind this table" in d["text"] or "Build stamp" in d["text"]
              or "click to list them" in d["text"]]
    assert not listed, listed[:5]
    # a raw file listed only in provenance (the region campaign's iperf3 runs) is not indexed
    assert not any("us-west-2_from_ap-northeast-1-vpn.json" in d["text"] for d in docs)
    boosts = {d["location"].split("/")[0]: d.get("boost") for d in docs if "#" not in d["location"]}
    assert boosts["point-to-point"] == boost_of("point-to-point.md")
    campaign = [d.get("boost") for d in docs if d["location"].startswith(("deployments/", "p2p/"))]
    assert campaign and set(campaign) == {CAMPAIGN_BOOST}
    assert all(WORD_JOINER + "2.3" not in d["text"] for d in docs)
    assert any(d["title"].startswith(WORD_JOINER + "2.3") for d in docs)   # §2.3's title
    # the lab's tests of the models rank below the deployment figures they support
    by_location = {d["location"]: d.get("boost") for d in docs}
    ebm = "ethernet-bandwidth-math/"
    assert by_location[ebm + "#decode-model"] == by_location[ebm + "#lab-hops"] == CAMPAIGN_BOOST
    assert by_location[ebm + "#decode"] == by_location[ebm] == boost_of("ethernet-bandwidth-math.md")
    # every page's own sections are still there
    assert any(d["location"].startswith("point-to-point/#region-pairs") for d in docs)
