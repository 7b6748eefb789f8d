"""The whole pipeline on the committed raw_data/, built into a scratch folder.

Expected figures are recomputed here from the raw files with plain Python (json, re), by the
formulas the page states, independently of the parsers and the SQL.
"""
import json
import re
from pathlib import Path

import pytest

from pipeline.commands.check import stale_files

from conftest import REPO, warehouse

CAMPAIGN = REPO / "raw_data/deployments/qwen38-27b-pp"


def page(project, name="ethernet-bandwidth-math"):
    return (project.docs / f"{name}.md").read_text()


def test_site_built(built):
    assert (built.site / "ethernet-bandwidth-math" / "index.html").is_file()
    assert (built.site / "point-to-point" / "index.html").is_file()
    # a chart opened on its own (an SVG document, no <link rel=icon>) makes the browser ask
    # for /favicon.ico: it is there, and the pages name the same icon
    assert (built.site / "favicon.ico").read_bytes()[:4] == b"\0\0\1\0"
    assert 'href="../favicon.ico"' in (built.site / "point-to-point" / "index.html").read_text()
    assert (built.site / "index.html").is_file()


def test_committed_docs_are_fresh(built):
    """Fails when docs/ was not regenerated after a change to raw_data/, sql/ or templates/."""
    assert stale_files(REPO / "docs", built.docs) == []


def test_iperf3_figures(built):
    text = page(built)
    # directions are named by role, the hosts beside them (claw is the worker, server the head)
    for name, arrow in (("claw-to-server", "worker → head (claw → server)"),
                        ("server-to-claw", "head → worker (server → claw)")):
        doc = json.loads((CAMPAIGN / f"iperf3/{name}.json").read_text())
        # Mbit/s = received bits/s / 10^6, shown without decimals (the site's one link-rate unit)
        mbit_s = doc["end"]["sum_received"]["bits_per_second"] / 1e6
        assert f"{mbit_s:,.0f} Mbit/s {arrow}" in text


def test_ping_summaries(built):
    text = page(built)
    for path in sorted((CAMPAIGN / "ping").glob("*.txt")):
        m = re.search(r"= ([\d.]+)/([\d.]+)/([\d.]+)/([\d.]+) ms", path.read_text())
        assert f"min {m[1]} / avg {m[2]} / max {m[3]} / mdev {m[4]} ms" in text


def _journal_figures():
    prompt = decode = None
    for line in (CAMPAIGN / "journal/frank-dragoon.json").read_text().splitlines():
        msg = json.loads(line)["MESSAGE"]
        if isinstance(msg, str) and msg.startswith("prompt eval time"):
            ms, tokens = re.search(r"= +([\d.]+) ms / +(\d+) tokens", msg).groups()
            prompt = prompt or (float(ms), int(tokens))
        elif isinstance(msg, str) and msg.lstrip().startswith("eval time"):
            ms, tokens = re.search(r"= +([\d.]+) ms / +(\d+) tokens", msg).groups()
            decode = decode or (float(ms), int(tokens))
    return prompt, decode


def test_prefill_and_decomposition(built):
    text = page(built)
    (prompt_ms, prompt_tokens), (decode_ms, decode_tokens) = _journal_figures()
    tok_s = prompt_tokens / (prompt_ms / 1000)            # tokens / seconds
    assert f"**{tok_s:,.1f} tok/s** ({prompt_ms:,.0f} ms" in text
    ubatch_ms = 256 / tok_s * 1000                         # UBATCH_SIZE=256 positions per ubatch
    assert f"| ubatch total | {ubatch_ms:,.0f} ms = {ubatch_ms / 256:.2f} ms/token" in text
    assert f"**{decode_tokens / (decode_ms / 1000):.2f} tok/s**" in text


def test_layer_split_by_hand(built):
    # TENSOR_SPLIT=0.68,0.32 -> cumulative shares 0.68, 1.0; block_count 65 (64 decoder blocks +
    # nextn_predict_layers 1) + output = 66 offloaded (N_GPU_LAYERS=999: i_gpu_start 0);
    # layer i goes to device 0 while 0.68 > i/66, i.e. i <= 44: 45 on claw, 20 on server, the
    # MTP layer 64 among them. Full attention at (i+1) % 4 == 0 over decoder layers i < 64:
    # i = 3..43 step 4 -> 11 on claw; 47..63 -> 5 on server.
    assert ("| Blocks | 65 (64 decoder + 1 MTP): 45 on the worker (claw), 20 on the head (server) "
            "(incl. 1 MTP)") in page(built)
    assert "16 total, interval 4 (11 worker / 5 head)" in page(built)
    # K q8_0: 4 heads x 256 = 1024 elements / 32 x 34 B = 1088; V f16: 1024 x 2 = 2048;
    # 3136 B / 1024 = 3.0625 -> 3.06 KiB (the site's unit for bytes per token)
    assert "3.06 KiB (K q8_0 1,088 B + V f16 2,048 B)" in page(built)


def _capture(path: Path, iface: str):
    """(time, tx_bytes) samples of one interface from a netdev capture."""
    samples, ts = [], None
    for line in path.read_text().splitlines():
        if line.startswith("@ "):
            ts = float(line[2:])
        elif ts is not None and line.strip().startswith(iface + ":"):
            fields = line.split(":", 1)[1].split()
            samples.append((ts, int(fields[8])))
    return samples


def _window_bytes(samples, start, end, guard=1.0):
    at = lambda t: [v for s, v in samples if s <= t][-1]            # counter at last sample <= t
    idle = [(s, v) for s, v in samples if s <= start - guard]
    idle_rate = (idle[-1][1] - idle[0][1]) / (idle[-1][0] - idle[0][0])
    return at(end) - at(start) - idle_rate * (end - start)


def test_wire_bytes_per_position(built):
    """Sender tx delta over [new prompt, + prompt eval time], idle removed, / prompt tokens."""
    (prompt_ms, tokens), _ = _journal_figures()
    start = None
    for line in (CAMPAIGN / "journal/frank-dragoon.json").read_text().splitlines():
        entry = json.loads(line)
        if "task 11924 | new prompt" in str(entry["MESSAGE"]):
            start = int(entry["__REALTIME_TIMESTAMP"]) / 1e6
    end = start + prompt_ms / 1000
    text = page(built)
    for host, direction in (("server", "head → worker"), ("claw", "worker → head")):
        per_pos = _window_bytes(_capture(CAMPAIGN / f"netdev/{host}-prefill.netdev", "eno1"),
                                start, end) / tokens
        assert f"| {direction} | {per_pos / 1024:.1f} KiB/position |" in text


def test_nothing_quarantined_in_committed_data(built):
    import duckdb
    con = duckdb.connect(str(built.root / ".warehouse/interconnect.duckdb"), read_only=True)
    bad = con.execute("select source_file, reason from ingest_registry where status <> 'ok'").fetchall()
    assert bad == []


def test_the_build_records_the_digests_it_covered(built):
    # the raw_data sensor compares the tree with these (tests/orchestration/test_raw_data_sensor.py)
    from pipeline.orchestration.sensor import tree_digests
    con = warehouse(built)
    recorded = dict(con.execute("select folder, content_sha256 from meta_build_inputs").fetchall())
    assert recorded == tree_digests(built)
    assert set(recorded) == {"deployments/lab-veth-tbf", "deployments/qwen38-27b-pp",
                             "p2p/aws-p3-tc", "p2p/swan-10-regions", "reference",
                             *(f"labs/{d.name}" for d in (REPO / "raw_data" / "labs").iterdir()
                               if d.is_dir()),
                             *(f"deployments/lab-rpc-{r}" for r in
                               ("tbf050", "tbf100", "tbf200", "tbf400", "veth"))}


def _bullets(block: str) -> list[str]:
    """The list items of a Markdown block, each joined onto one line, indentation removed."""
    items, current = [], None
    for line in block.splitlines():
        s = line.strip()
        if s.startswith("- "):
            current = s[2:]
            items.append(current)
        elif s and items and not s.startswith(("#", "!!!", "???")):
            items[-1] = f"{items[-1]} {s}"
        elif not s:
            continue
    return items


def test_a_deployment_page_opens_with_its_verdict(built):
    text = page(built, "deployments/qwen38-27b-pp")
    body = text.split("\n# ", 1)[1].split("\n", 1)[1].lstrip("\n")
    # the first block after the title is the bottom-line box
    assert body.startswith('!!! abstract "Bottom line"')
    box = body.split("\n\n!!! info", 1)[0]
    verdict = text.split("### 0.6 Verdict", 1)[1].split("\n## ", 1)[0]
    # the box says what §0.6 says, item for item, and names the measured class
    assert _bullets(box) == _bullets(verdict) and len(_bullets(box)) >= 2
    assert "measured on its\n    2.5 GbE link" in box


def test_a_lab_run_on_a_veth_link_says_why_it_has_no_verdict(built):
    box = page(built, "deployments/lab-rpc-veth").split('!!! abstract "Bottom line"', 1)[1]
    box = box.split("!!! info", 1)[0]
    # its prefill was measured, on a link that is no Ethernet class: never "not measured"
    assert "not one of the Ethernet classes" in box and "not measured" not in box


def test_the_verify_step_comes_from_the_env_files_draft_setting(built):
    # qwen38-27b-pp's env file: SPEC_DRAFT_N_MAX=4 (and BATCH_SIZE=2048, CTX_SIZE=131072 beside
    # it, which must not be read for it); an MTP verify step carries 1 + 4 = 5 positions
    text = page(built, "deployments/qwen38-27b-pp")
    assert ("| Decoding | MTP verify step: 5 position(s) per step (1 + n_max 4) | "
            "`SPEC_DRAFT_N_MAX=4` |") in text


def test_each_setting_is_read_from_its_own_env_key(built):
    # the same env file: PARALLEL=1, UBATCH_SIZE=256, BATCH_SIZE=2048, SPEC_DRAFT_N_MAX=4,
    # N_GPU_LAYERS=999, TENSOR_SPLIT=0.68,0.32, CACHE_TYPE_K=q8_0, CACHE_TYPE_V=f16
    con = warehouse(built)
    row = con.execute(
        "select parallel_slots, ubatch_tokens, batch_tokens, spec_draft_n_max, n_gpu_layers, "
        "tensor_split, cache_type_k, cache_type_v, ubatch_is_default, spec_draft_n_max_is_default "
        "from \"campaign:qwen38-27b-pp\".int_deployment__service_config").fetchall()
    assert row == [(1, 256, 2048, 4, 999, "0.68,0.32", "q8_0", "f16", False, False)]


def test_each_direction_is_read_from_its_own_hosts_capture(built):
    # qwen38-27b-pp's manifest: server is the head, claw the worker; each prefill capture is
    # named for its host. The decode bytes are the decode window's (int_deployment__window_traffic),
    # not another window's.
    con = warehouse(built)
    schema = '"campaign:qwen38-27b-pp"'
    files = con.execute(f"select head_netdev_file, worker_netdev_file from {schema}.fct_deployment_constants").fetchall()
    assert files == [("deployments/qwen38-27b-pp/netdev/server-prefill.netdev",
                      "deployments/qwen38-27b-pp/netdev/claw-prefill.netdev")]
    decode = dict(con.execute(f"select host, tx_bytes from {schema}.int_deployment__window_traffic "
                              f"where window_kind = 'decode'").fetchall())
    got = con.execute(f"select decode_head_to_worker_bytes, decode_worker_to_head_bytes "
                      f"from {schema}.fct_deployment_constants").fetchall()
    assert got == [(decode["server"], decode["claw"])] and None not in got[0]


def test_rtt_differences_are_taken_against_the_current_link(built):
    # qwen38-27b-pp has a retired link (gbe1_usb, first by id) and the current one (gbe25): the
    # differences are each link's RTT minus the current link's, so the current link's are zero
    # and the retired one's are its own RTT minus gbe25's
    con = warehouse(built)
    rows = {r[0]: r[1:] for r in con.execute(
        'select link_id, status, rtt_min_s, rtt_mdev_s, rtt_min_minus_current_s, rtt_mdev_minus_current_s '
        'from "campaign:qwen38-27b-pp".fct_deployment_links').fetchall()}
    assert rows["gbe25"][0] == "current" and rows["gbe25"][3:] == (0.0, 0.0)
    retired, current = rows["gbe1_usb"], rows["gbe25"]
    assert retired[3] == retired[1] - current[1] and retired[4] == retired[2] - current[2]


def test_the_kv_snapshot_is_judged_on_the_link_the_prefill_was_measured_on(built):
    # qwen38-27b-pp measured its prefill on gbe25 (the current link), not on the retired gbe1_usb
    con = warehouse(built)
    schema = '"campaign:qwen38-27b-pp"'
    (link,) = con.execute(f"select prefill_link_id from {schema}.fct_deployment_constants").fetchone()
    classes = dict(con.execute(f"select link_id, link_class from {schema}.fct_deployment_links").fetchall())
    got = {r[0] for r in con.execute(f"select measured_link_class from {schema}.fct_kv_snapshot").fetchall()}
    assert link == "gbe25" and got == {classes["gbe25"]} and classes["gbe25"] != classes["gbe1_usb"]
    # its share of the line rate: bytes/s x 8 over the class's bit/s, i.e. bytes/s over bytes/s
    for avg, line_bytes, share in con.execute(
            f"select avg_bytes_per_s, measured_line_rate_bytes_per_s, avg_line_rate_fraction "
            f"from {schema}.fct_kv_snapshot").fetchall():
        assert share == pytest.approx(avg / line_bytes) and 0 < share < 1
    # one row a snapshot, labelled with the measured class's label; in the what-if table the
    # measured class is the one row of the snapshot marked measured
    (label,) = con.execute("select label from dim_link_classes where link_class = ?", [classes["gbe25"]]).fetchone()
    snaps = con.execute(f"select count(*) from {schema}.int_deployment__kv_snapshot_transfer").fetchone()[0]
    rows = con.execute(f"select measured_link_label from {schema}.fct_kv_snapshot").fetchall()
    assert rows == [(label,)] * snaps and snaps >= 1
    marked = con.execute(f"select link_class from {schema}.fct_kv_snapshot_what_if where is_measured").fetchall()
    assert marked == [(classes["gbe25"],)] * snaps


def test_the_bare_build_publishes_the_same_docs_as_the_dagster_build(built, tmp_path):
    # bench.bare (the benchmark's baseline, the SQL mutation harness's build) renders the pages
    # that record their sources, then Data sources, as the asset graph orders them
    import os
    import subprocess
    import sys

    from pipeline.commands.in_process import copy_tree
    if os.environ.get("INTERCONNECT_TEST_PREBUILT"):
        pytest.skip("the SQL mutation harness builds each mutant's tree with bench.bare itself")
    tree = tmp_path / "bare"
    copy_tree(REPO, tree)
    proc = subprocess.run([sys.executable, "-m", "bench.bare", str(tree)], cwd=REPO,
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    ours = {p.relative_to(built.docs): p.read_bytes() for p in built.docs.rglob("*")
            if p.is_file() and "vendor" not in p.parts}
    bare = {p.relative_to(tree / "docs"): p.read_bytes() for p in (tree / "docs").rglob("*")
            if p.is_file() and "vendor" not in p.parts}
    assert sorted(bare) == sorted(ours)
    assert [str(k) for k in ours if bare[k] != ours[k]] == []
