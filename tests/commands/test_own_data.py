"""A user's own data beside the shipped campaigns, built by ``python -m pipeline.commands.build``:

- ``llama70b-pp``: a second deployment (the shipped journal and netdev captures with a
  Llama-3-70B-shaped GGUF header, its own env file and a shorter prefill);
- ``aws-p3-tc-b`` and ``swan-b``: a second tc and a second region campaign that reuse the first
  ones' setting ids and region names, with doubled Gloo times and doubled ping RTTs;
- ``qwen38-withheld``: the shipped deployment with a V cache type that makes the KV-snapshot
  check (blocking) fail;
- ``qwen38-noping``: the shipped deployment with its current link's ping file deleted.

Each campaign is published on its own page with its own numbers; the shipped campaigns' pages
and tables are byte-identical to a build without the additions; the failing campaign is
withheld and named, everything else is published, and the build exits 3.
"""
from __future__ import annotations

import csv
import io
import json
import re
import shutil
from pathlib import Path

import duckdb
import pytest

from pipeline.project import Project
from pipeline.publish.site import build_site

from built_tree import copy_built
from conftest import REPO, run_cli_build
from gguf_headers import write_header

QWEN = "raw_data/deployments/qwen38-27b-pp"


def _copy_campaign(root: Path, src: str, name: str) -> Path:
    dest = root / Path(src).parent / name
    shutil.copytree(root / src, dest)
    manifest = dest / "manifest.yaml"
    text = manifest.read_text()
    old = Path(src).name
    assert f"campaign: {old}" in text
    manifest.write_text(text.replace(f"campaign: {old}", f"campaign: {name}"))
    return dest


def _llama70b(root: Path) -> None:
    dest = _copy_campaign(root, QWEN, "llama70b-pp")
    write_header(dest / "gguf/qwen38-27b.metadata.gguf", "llama",
                 {"embedding_length": 8192, "block_count": 80, "attention.head_count": 64,
                  "attention.head_count_kv": 8}, name="Llama-3-70B fixture")
    env = dest / "env/frank-dragoon.env"
    env.write_text(env.read_text().replace("TENSOR_SPLIT=0.68,0.32", "TENSOR_SPLIT=0.5,0.5"))
    journal = dest / "journal/frank-dragoon.json"
    lines = []
    for line in journal.read_text().splitlines():
        message = json.loads(line)["MESSAGE"]
        if isinstance(message, str) and ("prompt cache" in message or "saving prompt" in message
                                         or "cache state" in message):
            continue            # no KV snapshot in this campaign
        lines.append(line.replace("prompt eval time =   30485.00 ms", "prompt eval time =   24388.00 ms"))
    journal.write_text("\n".join(lines) + "\n")


def _tc_b(root: Path) -> None:
    dest = _copy_campaign(root, "raw_data/p2p/aws-p3-tc", "aws-p3-tc-b")
    for path in (dest / "gloo").glob("*.jsonl"):
        rows = [json.loads(l) for l in path.read_text().splitlines() if l.strip()]
        for r in rows:
            r["time_s"] = r["time_s"] * 2
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def _swan_b(root: Path) -> None:
    dest = _copy_campaign(root, "raw_data/p2p/swan-10-regions", "swan-b")
    rtt = re.compile(r"= ([\d.]+)/([\d.]+)/([\d.]+)/([\d.]+) ms")
    for path in (dest / "ping").glob("*.txt"):
        path.write_text(rtt.sub(lambda m: "= " + "/".join(f"{float(v) * 2:.3f}" for v in m.groups())
                                + " ms", path.read_text()))


def _withheld(root: Path) -> None:
    dest = _copy_campaign(root, QWEN, "qwen38-withheld")
    env = dest / "env/frank-dragoon.env"
    env.write_text(env.read_text().replace("CACHE_TYPE_V=f16", "CACHE_TYPE_V=q8_0"))


def _noping(root: Path) -> None:
    dest = _copy_campaign(root, QWEN, "qwen38-noping")
    (dest / "ping/server-to-claw-gbe25.txt").unlink()


@pytest.fixture(scope="module")
def own(tmp_path_factory):
    root = copy_built(tmp_path_factory.mktemp("own"))        # the session's build, copied
    for add in (_llama70b, _tc_b, _swan_b, _withheld, _noping):
        add(root)
    return root, run_cli_build(root, "--no-site")


def _csv(path: Path) -> list[dict]:
    return list(csv.DictReader(io.StringIO(path.read_text())))


def _page(root, slug):
    return (root / "docs" / f"{slug}.md").read_text()


def test_exit_code_3_names_the_withheld_campaign(own):
    root, proc = own
    assert proc.returncode == 3, proc.stderr[-3000:]
    assert "withheld campaign qwen38-withheld:" in proc.stderr
    assert "sql/tests/assert_kv_snapshot_matches_model.sql" in proc.stderr
    # the reason says what would satisfy the check (its "-- fix:" line)
    assert "To fix: check the worker's netdev capture around the snapshot's journal line" in proc.stderr
    assert proc.stderr.count("withheld campaign") == 1


def test_build_output_is_a_phase_list_and_a_summary(own):
    _, proc = own
    lines = proc.stderr.splitlines()
    # one line per phase, in order, and no Dagster event log
    phases = [l.split(":")[0] for l in lines if not l.startswith(" ")]
    assert phases[:6] == ["raw files", "models", "checks", "pages", "what changed", "docs/"], lines
    assert not any("DEBUG" in l or "dagster - " in l for l in lines)
    # the shipped campaigns (every folder of the campaign areas) + 5 added, one of them withheld
    from pipeline.project import CAMPAIGN_AREAS
    shipped = sum(1 for area in CAMPAIGN_AREAS for d in (REPO / "raw_data" / area).iterdir() if d.is_dir())
    assert f"in {shipped + 5} campaign(s)" in lines[0]
    # the deleted ping is named with its status
    assert "  - deployments/qwen38-noping/ping/server-to-claw-gbe25.txt (missing): " in \
        "\n".join(lines)
    assert lines[-1] == f"done: published {shipped + 4} campaign(s); withheld 1: qwen38-withheld; quarantined none"


@pytest.mark.parametrize("slug", ["deployments/qwen38-27b-pp", "deployments/lab-veth-tbf",
                                  "p2p/aws-p3-tc", "p2p/swan-10-regions"])
def test_shipped_campaign_pages_are_unchanged(own, built, slug):
    root, _ = own
    assert _page(root, slug) == _page(built.root, slug)
    for csv_path in sorted((built.docs / slug).rglob("*")):
        if csv_path.is_file():
            rel = csv_path.relative_to(built.docs)
            assert (root / "docs" / rel).read_bytes() == csv_path.read_bytes(), rel


def test_second_tc_campaign_is_not_pooled(own, built):
    root, _ = own
    first = {(r["setting_id"], r["backend"], r["size_bytes"]): float(r["median_time_s"])
             for r in _csv(built.docs / "p2p/aws-p3-tc/data/fct_p2p_tc_times.csv")}
    second = {(r["setting_id"], r["backend"], r["size_bytes"]): float(r["median_time_s"])
              for r in _csv(root / "docs/p2p/aws-p3-tc-b/data/fct_p2p_tc_times.csv")}
    assert first.keys() == second.keys()
    for key, old in first.items():
        # the median of doubled Gloo times is twice the median; NCCL files are the same bytes
        expected = old * 2 if key[1] == "gloo" else old
        assert second[key] == pytest.approx(expected, rel=1e-9), key
    # and the first campaign's own page still shows its own medians (unchanged above)
    assert "| delay 10 ms | 532 ms | 113 ms | 972 ms | 171 ms |" in _page(root, "p2p/aws-p3-tc")


def test_second_region_campaign_is_not_pooled(own, built):
    root, _ = own
    first = {(r["receiver"], r["sender"]): r["rtt_avg_s"]
             for r in _csv(built.docs / "p2p/swan-10-regions/data/fct_p2p_region_pairs.csv")}
    second = {(r["receiver"], r["sender"]): r["rtt_avg_s"]
              for r in _csv(root / "docs/p2p/swan-b/data/fct_p2p_region_pairs.csv")}
    assert first.keys() == second.keys()
    for key, old in first.items():
        if old:    # every reply doubled (the files print 3 decimals of ms)
            assert float(second[key]) == pytest.approx(2 * float(old), abs=2e-6), key


def test_second_deployment_has_its_own_numbers(own, built):
    root, _ = own
    page = _page(root, "deployments/llama70b-pp")
    # 80 dense blocks; 0.5 > i / 81 for i <= 40: 41 on the worker, 39 on the head
    assert "| Blocks | 80: 41 on the worker (claw), 39 on the head (server) |" in page
    assert "80, all full attention (41 worker / 39 head)" in page
    # 8 KV heads x (8192 / 64) = 1024 elements: K q8_0 1024 / 32 x 34 = 1088, V f16 2048;
    # 3136 B = 3.06 KiB
    assert "3.06 KiB (K q8_0 1,088 B + V f16 2,048 B)" in page
    # raw hidden state 8192 x 2 B = 16.0 KiB; prefill 13959 tokens in 24.388 s = 572.4 tok/s
    assert "= **16.0 KiB**" in page
    assert f"**{13959 / 24.388:,.1f} tok/s**" in page
    assert "No KV snapshot" in page
    k = _csv(root / "docs/deployments/llama70b-pp/data/fct_deployment_constants.csv")[0]
    q = _csv(built.docs / "deployments/qwen38-27b-pp/data/fct_deployment_constants.csv")[0]
    # the same captures over a window 0.8 x as long: fewer bytes, not the first campaign's
    assert float(k["head_to_worker_bytes"]) < float(q["head_to_worker_bytes"])
    # Ethernet Bandwidth Math compares both deployments, each linking its page
    ebm = _page(root, "ethernet-bandwidth-math")
    assert "[llama70b-pp](deployments/llama70b-pp.md)" in ebm
    assert "[qwen38-27b-pp](deployments/qwen38-27b-pp.md)" in ebm


def test_withheld_campaign_is_named_with_its_failing_values(own, built):
    root, _ = own
    stub = _page(root, "deployments/qwen38-withheld")
    assert "withheld" in stub
    assert "the KV snapshot&#x27;s bytes measured on the wire are within 5 % of the model" in stub
    # the same copied bytes against a model of 2176 B per token (V q8_0: 1088) instead of 3136:
    # measured / model - 1 = (1 + e) x 3136 / 2176 - 1, e the shipped campaign's own deviation
    e = float(_csv(built.docs / "deployments/qwen38-27b-pp/data/fct_kv_snapshot.csv")[0]
              ["measured_vs_model_fraction"])
    found = float(re.search(r"measured_vs_model_fraction=([0-9]+\.[0-9]+)", stub)[1])
    assert found == pytest.approx((1 + e) * 3136 / 2176 - 1, rel=1e-9)
    assert not (root / "docs/deployments/qwen38-withheld/data").exists()
    quality = _page(root, "data-quality")
    assert "| campaign | qwen38-withheld | qwen38-withheld | withheld |" in quality
    # absent from every cross-campaign table
    assert "qwen38-withheld" not in _page(root, "index").split("## Pages")[0].replace(
        "qwen38-withheld.md", "")
    assert "](deployments/qwen38-withheld.md) |" not in _page(root, "ethernet-bandwidth-math")
    con = duckdb.connect(str(root / ".warehouse/interconnect.duckdb"), read_only=True)
    assert con.execute("select count(*) from fct_deployment_constants where campaign = "
                       "'qwen38-withheld'").fetchall() == [(0,)]


def test_deleted_ping_is_not_measured_never_borrowed(own):
    root, _ = own
    page = _page(root, "deployments/qwen38-noping")
    assert "| ping RTT, 2.5 GbE path | *not measured* |" in page
    decode = page.split("{ #decode }")[1].split("###")[0]
    row = next(l for l in decode.splitlines() if l.startswith("| 2.5 GbE |"))
    assert "RTT *not measured*" in row and "(measured)" in row
    # the 1 GbE link still has its own ping, and 10 GbE (no link in the campaign) is assumed
    assert "| 1 GbE |" in decode and "assumed" in decode
    quality = _page(root, "data-quality")
    assert "deployments/qwen38-noping/ping/server-to-claw-gbe25.txt" in quality


def test_provenance_lists_only_the_rows_files(own):
    root, _ = own
    con = duckdb.connect(str(root / ".warehouse/interconnect.duckdb"), read_only=True)
    rows = con.execute("select page, mart, source_file, kind from meta_page_sources").fetchall()
    tc = {f for p, m, f, _ in rows if p == "point-to-point" and m == "fct_p2p_tc_times"}
    assert tc and all(f.startswith(("p2p/aws-p3-tc/", "reference/")) for f in tc), tc
    tc_b = {f for p, m, f, _ in rows if p == "p2p/aws-p3-tc-b" and m == "fct_p2p_tc_times"}
    assert tc_b and all(f.startswith(("p2p/aws-p3-tc-b/", "reference/")) for f in tc_b), tc_b
    for mart in ("dim_link_classes", "fct_pipeline_bubble", "dim_published_benchmarks"):
        kinds = {k for p, m, _, k in rows if p == "ethernet-bandwidth-math" and m == mart}
        assert kinds == {"reference"}, (mart, kinds)
    # formula rows on a measured model's shape rest on its GGUF header, not on its captures
    kinds = {k for p, m, _, k in rows if p == "ethernet-bandwidth-math" and m == "fct_quantization_savings"}
    assert kinds == {"reference", "gguf", "manifest"}, kinds
    # a table with measured rows names exactly those deployments' files, no netdev snapshot
    shapes = {f for p, m, f, _ in rows if p == "ethernet-bandwidth-math" and m == "fct_bandwidth_scaling"}
    assert not [f for f in shapes if "snapshot" in f or f.startswith("p2p/")]
    assert any(f.startswith("deployments/llama70b-pp/") for f in shapes)


def test_the_site_of_a_tree_with_the_users_campaigns_builds_strictly(own):
    """mkdocs build --strict on this tree's docs/ (the build above skipped the site): a link
    to a page or section that only the shipped campaigns have (as Your setup's link to the
    region verdict once was) is a warning, and a warning fails the build."""
    root, _ = own
    site = build_site(Project(root)).path
    for page in ("deployments/llama70b-pp", "p2p/aws-p3-tc-b", "p2p/swan-b",
                 "deployments/qwen38-noping"):
        assert (site / page / "index.html").is_file(), page
    # the withheld campaign's page is its notice, with its link to Data quality resolved
    notice = (site / "deployments" / "qwen38-withheld" / "index.html").read_text()
    assert "This campaign is not published" in notice and "../../data-quality/" in notice
