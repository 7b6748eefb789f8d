"""Campaigns that are incomplete, not wrong, built beside the shipped ones by
``python -m pipeline.commands.build`` (issue 38): copies of the shipped deployment without its
netdev captures, without its GGUF, without its journal, with only ping and iperf3 (no journal,
GGUF, env, ethtool or netdev), and one whose journal carries llama-server's speculative
statistics after the decode task. Each publishes what it measured, the rest reads
*not measured*; nothing is withheld, the build exits 0."""
from __future__ import annotations

import csv
import io
import json
import re

import pytest


from pipeline.project import Project
from pipeline.publish.site import build_site

from built_tree import copy_built
from campaign_variants import copy_campaign
from conftest import REPO, run_cli_build

QWEN = "raw_data/deployments/qwen38-27b-pp"
NOT_MEASURED = "*not measured*"
VARIANTS = {
    "inc-nonetdev": ("netdev/",),
    "inc-nogguf": ("gguf/",),
    "inc-nojournal": ("journal/",),
    "inc-pingiperf": ("netdev/", "gguf/", "journal/", "env/", "ethtool/"),
}
# common/speculative.cpp's format: "statistics %16s: #calls(b,g,a) = %4zu %6zu %6zu, #gen drafts
# = %6zu, #acc drafts = %5zu, #gen tokens = %6zu, #acc tokens = %5zu"
STATISTICS = ("statistics        draft-mtp: #calls(b,g,a) =    1    300    255, #gen drafts =    255, "
              "#acc drafts =   200, #gen tokens =   1000, #acc tokens =   712")


def _with_statistics(root):
    """The shipped journal with a statistics line after task 11924's "draft acceptance rate =
    0.71200 (712 accepted / 1000 generated)": 1000 drafted tokens in 255 drafts."""
    dest = copy_campaign(root, QWEN, "inc-stats")
    journal = dest / "journal/frank-dragoon.json"
    lines = []
    for line in journal.read_text().splitlines():
        lines.append(line)
        entry = json.loads(line)
        if str(entry.get("MESSAGE", "")).startswith("draft acceptance rate = 0.71200"):
            lines.append(json.dumps({**entry, "MESSAGE": STATISTICS}))
    assert len(lines) == len(journal.read_text().splitlines()) + 1
    journal.write_text("\n".join(lines) + "\n")


def _three_journals(root):
    """The shipped journal three times: as it is, and as two re-runs (the server counted its
    tasks from 0 again) whose task 11924 prefilled in 27,000 and 24,388 ms instead of 30,485;
    zz-rerun.json is the last by path."""
    dest = copy_campaign(root, QWEN, "inc-3journals")
    journal = dest / "journal/frank-dragoon.json"
    (dest / "journal/frank-dragoon-copy.json").write_text(journal.read_text().replace(
        "prompt eval time =   30485.00 ms", "prompt eval time =   27000.00 ms"))
    (dest / "journal/zz-rerun.json").write_text(journal.read_text().replace(
        "prompt eval time =   30485.00 ms", "prompt eval time =   24388.00 ms"))
    manifest = (dest / "manifest.yaml").read_text()
    entry = "- path: journal/frank-dragoon.json\n  format: journal\n"
    assert entry in manifest
    manifest = manifest.replace(entry, entry + entry.replace("frank-dragoon", "frank-dragoon-copy")
                                + entry.replace("frank-dragoon", "zz-rerun"))
    (dest / "manifest.yaml").write_text(manifest)


def _regions_without_nccl(root):
    """The shipped region campaign with its nccl-tests logs left out (ping and iperf3 only),
    featured on Point to Point; the featured deployment named is one that does not exist."""
    copy_campaign(root, "raw_data/p2p/swan-10-regions", "swan-nonccl", ("nccl/", "nccl-dumped/"))
    featured = root / "raw_data/reference/featured_campaigns.csv"
    text = featured.read_text()
    assert "\ndeployment,qwen38-27b-pp," in text and "\np2p_regions,swan-10-regions," in text
    featured.write_text(text.replace("\ndeployment,qwen38-27b-pp,", "\ndeployment,qwen-gone,")
                        .replace("\np2p_regions,swan-10-regions,", "\np2p_regions,swan-nonccl,"))


def _regions_with_other_logs(root):
    """The shipped region campaign with two nccl-tests logs changed: us-east-1 → us-west-2 also
    timed 128 MiB (-b 64M -e 128M: five rows of 128 MiB after the 64 MiB ones), and us-east-2 →
    us-west-2 is an all_reduce_perf log (its starting line says so)."""
    dest = copy_campaign(root, "raw_data/p2p/swan-10-regions", "swan-sizes")
    two = dest / "nccl/us-west-2_from_us-east-1.log"
    lines = two.read_text().splitlines(keepends=True)
    rows = [l for l in lines if l.startswith("    67108864 ")]
    assert len(rows) == 5
    big = [l.replace("    67108864      16777216", "   134217728      33554432") for l in rows]
    at = max(i for i, l in enumerate(lines) if l in rows) + 1
    two.write_text("".join(lines[:at] + big + lines[at:]))
    other = dest / "nccl/us-west-2_from_us-east-2.log"
    other.write_text("# Collective test starting: all_reduce_perf\n" + other.read_text())


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    root = copy_built(tmp_path_factory.mktemp("incomplete"))    # the session's build, copied
    for name, leave_out in VARIANTS.items():
        copy_campaign(root, QWEN, name, leave_out)
    _with_statistics(root)
    _three_journals(root)
    _regions_without_nccl(root)
    _regions_with_other_logs(root)
    return root, run_cli_build(root, "--no-site")


def _page(root, name):
    return (root / "docs" / "deployments" / f"{name}.md").read_text()


def _constants(root, name):
    text = (root / "docs" / "deployments" / name / "data" / "fct_deployment_constants.csv").read_text()
    (row,) = csv.DictReader(io.StringIO(text))
    return row


def _section(page, number):
    start = page.index(f"### 0.{number} ")
    end = page.find("### 0.", start + 5)
    return page[start:end if end > 0 else page.index("## Links", start)]


def test_nothing_is_withheld_and_the_build_exits_0(tree):
    _, proc = tree
    assert proc.returncode == 0, proc.stderr[-3000:]
    # the shipped campaigns (every folder of the campaign areas) + 8 added
    from pipeline.project import CAMPAIGN_AREAS
    shipped = sum(1 for area in CAMPAIGN_AREAS for d in (REPO / "raw_data" / area).iterdir() if d.is_dir())
    assert proc.stderr.splitlines()[-1] == (f"done: published {shipped + 8} campaign(s); withheld none; "
                                            "quarantined none")


@pytest.mark.parametrize("name", [*VARIANTS, "inc-stats"])
def test_every_campaign_publishes_its_iperf3_rates(tree, name):
    root, _ = tree
    page = _page(root, name)
    # the shipped iperf3 files of the 2.5 GbE link, kept by every variant
    assert "| 2.5 GbE | claw → server | 2,249 Mbit/s |" in page
    assert "| 2.5 GbE | server → claw | 2,352 Mbit/s |" in page


def test_without_netdev_prefill_and_decode_are_published_and_their_wire_figures_not(tree):
    root, _ = tree
    page = _page(root, "inc-nonetdev")
    k = _constants(root, "inc-nonetdev")
    # the journal's own figures: 13,959 tokens in 30,485 ms = 457.9 tok/s; 962 in 40,988 ms = 23.47
    assert "Measured prefill: **457.9 tok/s**" in _section(page, 3)
    assert "Measured decode: **23.47 tok/s**" in _section(page, 5)
    assert NOT_MEASURED in _section(page, 2) and "(none covers it)" in _section(page, 2)
    # no figure from zero bytes: no gain, no what-if row, no claimed sampling rate
    assert "prefill**" not in page and "+0.0%" not in page
    assert "Hz" not in page.split("### 0.1")[0].split("## 0.")[1]
    assert k["wire_bytes_per_position_head_to_worker"] == "" and k["netdev_samples_per_s"] == ""
    assert "wire bytes\nare *not measured*" in _section(page, 6)


def test_without_a_gguf_the_measured_bytes_and_the_verdict_stay(tree):
    root, _ = tree
    page, k = _page(root, "inc-nogguf"), _constants(root, "inc-nogguf")
    full = _constants(root, "qwen38-27b-pp")
    # the wire bytes are measured by netdev and the journal, not by the GGUF: the same as the
    # complete campaign's
    assert k["wire_bytes_per_position_head_to_worker"] == full["wire_bytes_per_position_head_to_worker"]
    kib = float(k["wire_bytes_per_position_head_to_worker"]) / 1024
    assert f"**{kib:.1f} KiB** head → worker" in _section(page, 2)
    assert "their overhead, is *not measured*" in _section(page, 2)
    assert "model check is *not measured*" in _section(page, 4)
    # what the model's shape gives is absent, not "—" in a formula
    assert k["hidden_size"] == "" and "— ×" not in page
    # what 10 GbE buys: the pipeline model's gain with its range while the lab holds it within
    # its targets, else the additive "up to" bound
    assert re.search(r"2\.5 GbE → 10 GbE buys (\*\*up to \+|\*\*[+-]\d+\.\d% prefill\*\* \([+-])", page)


def test_without_a_journal_prefill_and_decode_are_not_measured(tree):
    root, _ = tree
    page = _page(root, "inc-nojournal")
    assert "Prefill is *not measured* here" in _section(page, 3)
    assert "Decode is *not measured*" in _section(page, 5)
    assert "No verdict: this campaign's prefill was *not measured*." in page


def test_a_links_only_campaign_says_so(tree):
    root, _ = tree
    page = _page(root, "inc-pingiperf")
    assert "This campaign measured its links only" in page
    assert "## 0." not in page
    assert "| 1 GbE USB-C | — | *not measured* |" in page
    # Deployments compared gives it no row of nothing but *not measured*; it is named below
    ebm = (root / "docs" / "ethernet-bandwidth-math.md").read_text()
    compared = ebm[ebm.index("### Deployments compared"):]
    compared = compared[:compared.index("??? abstract")]
    assert "| [inc-pingiperf](deployments/inc-pingiperf.md) |" not in compared
    assert "\n- [inc-pingiperf](deployments/inc-pingiperf.md)\n" in compared.split("measured their links only")[1]
    assert "| [inc-nojournal](deployments/inc-nojournal.md) |" in compared     # a model, so a row


def test_decode_steps_come_from_the_logged_drafts_not_from_n_max(tree):
    root, _ = tree
    k = _constants(root, "inc-stats")
    # 255 drafts (statistics line) instead of 1000 drafted / n_max 4 = 250
    assert (k["verify_steps"], k["steps_basis"]) == ("255.0", "gen drafts in the log")
    # 40,988 ms / 255 = 160.7 ms a step; 962 tokens / 255 = 3.77 tokens a step
    section = _section(_page(root, "inc-stats"), 5)
    assert "count\n255 drafts, one verify step each, of 161 ms\n(3.77 tokens per step)." in section
    # the shipped campaign's log has no such line: drafted / n_max, said so
    assert _constants(root, "qwen38-27b-pp")["steps_basis"] == "drafted / n_max"


def test_a_task_in_three_journals_is_read_from_one_and_the_choice_is_a_warning(tree):
    root, proc = tree
    k = _constants(root, "inc-3journals")
    # the last by path, zz-rerun.json: 13,959 tokens / 24.388 s = 572.4 tok/s, its own time and
    # tokens (never one file's time with another's tokens)
    assert k["journal_file"] == "deployments/inc-3journals/journal/zz-rerun.json"
    assert (k["prefill_s"], k["prefill_tokens"]) == ("24.388", "13959")
    assert "Measured prefill (fresh 13,959-token prompt, 2.5 GbE path):\n**572.4 tok/s**" in \
        _page(root, "inc-3journals")
    warning = ("  - deployments/inc-3journals/journal/zz-rerun.json: task 11924 (the decode and prefill "
               "task of the manifest) is in 3 journal files (deployments/inc-3journals/journal/"
               "frank-dragoon-copy.json, deployments/inc-3journals/journal/frank-dragoon.json, "
               "deployments/inc-3journals/journal/zz-rerun.json); the figures read "
               "deployments/inc-3journals/journal/zz-rerun.json, the last by path.")
    assert warning in proc.stderr
    assert "| choice | inc-3journals | deployments/inc-3journals/journal/zz-rerun.json | warning |" in \
        (root / "docs" / "data-quality.md").read_text()


def test_a_featured_campaign_that_is_not_there_is_a_warning(tree):
    root, proc = tree
    assert ("  - reference/featured_campaigns.csv: featured_campaigns.csv names qwen-gone for the "
            "deployment slot, which is not a campaign of raw_data/; ") in proc.stderr
    quality = (root / "docs" / "data-quality.md").read_text()
    assert "| choice | " in quality and "names qwen-gone for the deployment slot" in quality


def test_region_pairs_without_bandwidth_get_no_verdict(tree):
    root, _ = tree
    page = (root / "docs" / "point-to-point.md").read_text()
    box = page[page.index('!!! abstract "Bottom line"'):page.index("[ranked table]") + 400]
    # no nccl-tests log: every pair's NCCL bandwidth is missing, no workload can be judged
    assert "pairs carry some" not in box
    assert "*not measured*: none of the 45 pairs has both\n      directions' RTT and NCCL bandwidth" in box


def _pairs(root, campaign):
    text = (root / "docs" / "p2p" / campaign / "data" / "fct_p2p_region_pairs.csv").read_text()
    return {(r["receiver"], r["sender"]): r for r in csv.DictReader(io.StringIO(text))}


def test_an_nccl_log_of_two_sizes_gives_the_declared_size_and_another_collective_is_not_read(tree):
    root, _ = tree
    pairs, shipped = _pairs(root, "swan-sizes"), _pairs(root, "swan-10-regions")
    two = pairs[("us-west-2", "us-east-1")]
    # params.sizes_bytes declares 64 MiB: the pair's figure is the 64 MiB rows', the same as the
    # shipped campaign's (bytes x 8 / median of the same ten times), not dropped
    assert two["nccl_bits_per_s"] == shipped[("us-west-2", "us-east-1")]["nccl_bits_per_s"] != ""
    assert (two["nccl_size_bytes"], two["nccl_size_is_declared"]) == ("67108864", "True")
    # the all_reduce log is not taken for a sendrecv: no NCCL figure for that pair
    assert pairs[("us-west-2", "us-east-2")]["nccl_bits_per_s"] == ""
    assert shipped[("us-west-2", "us-east-2")]["nccl_bits_per_s"] != ""
    page = (root / "docs" / "p2p" / "swan-sizes.md").read_text()
    assert ("| p2p/swan-sizes/nccl/us-west-2_from_us-east-1.log | partly used | its size(s) 128.0 MiB "
            "are not in the pair tables") in page
    assert ("| p2p/swan-sizes/nccl/us-west-2_from_us-east-2.log | not used | the log is of all_reduce "
            "(all_reduce_perf), not sendrecv") in page
    # Data sources no longer says only "ok" for it
    sources = (root / "docs" / "data-sources.md").read_text()
    row = next(l for l in sources.splitlines() if "| p2p/swan-sizes/nccl/us-west-2_from_us-east-2.log |" in l)
    assert "| ok (not used: the log is of all_reduce (all_reduce_perf), not sendrecv" in row


def test_the_site_of_a_tree_with_incomplete_campaigns_builds_strictly(tree):
    """mkdocs build --strict on this tree's docs/ (the build above skipped the site): a page
    that links a section its campaign cannot have (no journal, no capture) fails it."""
    root, _ = tree
    site = build_site(Project(root)).path
    for name in VARIANTS:
        assert (site / "deployments" / name / "index.html").is_file(), name
