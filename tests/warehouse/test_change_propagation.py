"""Edit a copy of the raw data, rebuild, and check that exactly the dependent figures changed."""
import json
import re

import duckdb
import pytest

from conftest import build_copy

CAMPAIGN = "raw_data/deployments/qwen38-27b-pp"


def _rows(project, table):
    """The qwen38-27b-pp campaign's rows of ``table`` (the campaign this file edits)."""
    con = duckdb.connect(str(project.root / ".warehouse/interconnect.duckdb"), read_only=True)
    try:
        cur = con.execute(f"select * from {table} where campaign = 'qwen38-27b-pp' order by all")
        cols = [d[0] for d in cur.description]
        return [dict(zip(cols, r)) for r in cur.fetchall()]
    finally:
        con.close()


def _changed(before, after):
    """Columns whose value differs in any row (same row order)."""
    assert len(before) == len(after)
    return {c for b, a in zip(before, after) for c in b
            if b[c] != a[c] and not (isinstance(b[c], float) and a[c] == pytest.approx(b[c], rel=1e-12))}


def _page_lines(project):
    """The page's lines above its build stamp (the stamp names the inputs' digest, which any
    edit changes: test_site_stamps checks it)."""
    text = (project.docs / "ethernet-bandwidth-math.md").read_text()
    return text[:text.index("**Build stamp**")].splitlines()


def _stamp(project):
    text = (project.docs / "ethernet-bandwidth-math.md").read_text()
    return text[text.index("**Build stamp**"):].split("\n")[1]


@pytest.fixture(scope="module")
def ubatch_512(built, tmp_path_factory):
    def edit(root):
        env = root / CAMPAIGN / "env/frank-dragoon.env"
        text = env.read_text()
        assert "UBATCH_SIZE=256" in text
        env.write_text(text.replace("UBATCH_SIZE=256", "UBATCH_SIZE=512"))
    return build_copy(tmp_path_factory.mktemp("ubatch"), edit, site=False)


def test_ubatch_changes_only_ubatch_figures(built, ubatch_512):
    before, after = _rows(built, "fct_deployment_constants"), _rows(ubatch_512, "fct_deployment_constants")
    assert _changed(before, after) == {"ubatch_tokens", "ubatch_bytes", "ubatch_bytes_head_to_worker",
                                       "ubatch_bytes_worker_to_head"}
    b, a = before[0], after[0]
    # bytes per ubatch = ubatch x measured bytes per position: doubling the ubatch doubles it
    assert a["ubatch_bytes"] == pytest.approx(2 * b["ubatch_bytes"])
    # the measured per-position figures and prefill rate do not depend on the ubatch
    assert a["wire_bytes_per_position_head_to_worker"] == b["wire_bytes_per_position_head_to_worker"]

    w_before = {r["link_class"]: r for r in _rows(built, "fct_prefill_what_if")}
    w_after = {r["link_class"]: r for r in _rows(ubatch_512, "fct_prefill_what_if")}
    for cls, old in w_before.items():
        new = w_after[cls]
        # wire = ubatch bytes / usable rate: doubles
        assert new["wire_s"] == pytest.approx(2 * old["wire_s"])
        # residual = ubatch / measured tok/s - wire(measured class): both terms double
        assert new["residual_s"] == pytest.approx(2 * old["residual_s"])
        # so predicted tok/s = ubatch / (residual + wire) is unchanged, and so is burst duty
        assert new["predicted_tokens_per_s"] == pytest.approx(old["predicted_tokens_per_s"])
        assert new["burst_duty_fraction"] == pytest.approx(old["burst_duty_fraction"])

    # snapshot and decode do not read the ubatch
    assert _rows(built, "fct_kv_snapshot") == _rows(ubatch_512, "fct_kv_snapshot")
    assert _rows(built, "fct_decode_what_if") == _rows(ubatch_512, "fct_decode_what_if")


SOURCE_NOTE = re.compile(r"^\s+- .* · sha256 [0-9a-f]{12} \(")


def _sections(lines):
    """Heading -> lines, for every '##'/'###' section, without the provenance notes (their
    sha256 of the edited file changes wherever that file is a source, as it should)."""
    out, current = {}, "front"
    for line in lines:
        if SOURCE_NOTE.match(line):
            continue
        if line.startswith("## ") or line.startswith("### "):
            current = line.split(" ", 2)[1]
        out.setdefault(current, []).append(line)
    return out


def _pipeline_phrases(project) -> dict:
    """The page's phrases that carry the prefill pipeline model's figures for qwen38-27b-pp
    (fct_prefill_pipeline_what_if): its micro-batch count and each other class's ranged gain.
    The model predicts from the prompt's micro-batches, so the ubatch moves them; empty while
    the model is not published (then the page leads with the additive bound, which does not)."""
    rows = [r for r in _rows(project, "fct_prefill_pipeline_what_if") if r["gain_low_fraction"] is not None]
    phrases = {f"its {r['micro_batches']:.0f} micro-batches": r["link_class"] + ":n" for r in rows[:1]}
    for r in rows:
        g, lo, hi = (f"{100 * r[c]:+.1f}%" for c in ("gain_vs_measured_fraction", "gain_low_fraction",
                                                     "gain_high_fraction"))
        phrases[f"**{g} prefill** ({lo} to {hi};"] = r["link_class"]
    return phrases


def test_ubatch_page_diff_is_local(built, ubatch_512):
    old, new = _sections(_page_lines(built)), _sections(_page_lines(ubatch_512))
    assert old.keys() == new.keys()
    changed = {k for k in old if old[k] != new[k]}
    # 0.1 lists the ubatch, 0.2 the bytes per ubatch, 0.3 the per-ubatch times; the verdict
    # (0.6) and the bottom line before §0 name the workload their figures hold for, the
    # micro-batch among it; the additive figures do not move, and the pipeline model's (where
    # it is published: its table of each deployment sits under the lab's "The ... model"
    # headings) move with the micro-batch count; the snapshot (0.4), decode (0.5) and theory
    # do not move
    before, after = _pipeline_phrases(built), _pipeline_phrases(ubatch_512)
    assert set(before.values()) == set(after.values())
    expected = {"0.1", "0.2", "0.3", "0.6", "front"} | ({"The"} if before else set())
    assert changed == expected
    swap = {o: {v: k for k, v in after.items()}[c] for o, c in before.items()}
    swap["micro-batches of 256"] = "micro-batches of 512"
    for key in ("0.6", "front"):
        moved = [(o, n) for o, n in zip(old[key], new[key]) if o != n]
        assert moved and len(old[key]) == len(new[key])
        for o, n in moved:
            for was, now in swap.items():
                o = o.replace(was, now)
            assert o == n, (o, n)
    rows = [(o, n) for o, n in zip(old["0.1"], new["0.1"]) if o != n]
    # the edited env file's new sha256 shows in the provenance notes
    env_notes = [l for l in _page_lines(ubatch_512) if "frank-dragoon.env · sha256" in l]
    assert env_notes and all(l not in _page_lines(built) for l in env_notes)
    assert rows == [("| ubatch | 256 | `UBATCH_SIZE` in deployments/qwen38-27b-pp/env/frank-dragoon.env |",
                     "| ubatch | 512 | `UBATCH_SIZE` in deployments/qwen38-27b-pp/env/frank-dragoon.env |")]


@pytest.fixture(scope="module")
def slow_iperf3(built, tmp_path_factory):
    def edit(root):
        path = root / CAMPAIGN / "iperf3/claw-to-server.json"
        doc = json.loads(path.read_text())
        doc["end"]["sum_received"]["bits_per_second"] /= 2
        doc["end"]["sum_received"]["bytes"] //= 2
        path.write_text(json.dumps(doc, indent=2))
    return build_copy(tmp_path_factory.mktemp("iperf3"), edit, site=False)


def test_slower_iperf3_changes_only_iperf3_figures(built, slow_iperf3):
    before, after = _rows(built, "fct_deployment_links"), _rows(slow_iperf3, "fct_deployment_links")
    assert _changed(before, after) == {"iperf3_worker_to_head_bytes_per_s"}
    b = next(r for r in before if r["iperf3_worker_to_head_bytes_per_s"] is not None)
    a = next(r for r in after if r["link_id"] == b["link_id"])
    # received bits/s halved -> bytes/s halved
    assert a["iperf3_worker_to_head_bytes_per_s"] == pytest.approx(b["iperf3_worker_to_head_bytes_per_s"] / 2)
    # the prefill model uses the class's derived usable rate, not iperf3
    assert _rows(built, "fct_prefill_what_if") == _rows(slow_iperf3, "fct_prefill_what_if")
    # the stamp names other inputs (its digest is of the files' hashes)
    assert _stamp(built) != _stamp(slow_iperf3)
    old, new = _page_lines(built), _page_lines(slow_iperf3)
    changed = [(o, n) for o, n in zip(old, new) if o != n]
    assert changed and all("iperf3" in o or "Mbit/s" in o for o, _ in changed)
    # claw->server: 281.075 MB/s halved = 140.54 MB/s x 8 = 1,124 Mbit/s, shown without decimals
    expected = b["iperf3_worker_to_head_bytes_per_s"] / 2 * 8 / 1e6
    assert any(f"{expected:,.0f} Mbit/s worker → head (claw → server)" in n for _, n in changed)
