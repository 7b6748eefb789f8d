"""§1–§6 of "Ethernet Bandwidth Math": the theory marts and their partial.

The real reference CSVs (raw_data/reference/) are loaded into an in-memory DuckDB with the
project's own loader; the §0 mart fct_deployment_constants is replaced by a hand-made fixture
(tests/fixtures/bandwidth_theory/). Expected values are the formulas worked by hand.
"""
from __future__ import annotations

import csv
import functools
import math
import re
import shutil
from pathlib import Path

import duckdb
import pytest
from jinja2 import ChoiceLoader, FileSystemLoader

from pipeline.ingest import reference
from pipeline.publish import markdown, pages
from pipeline.warehouse.models import discover, discover_tests, run_model, run_test, topological

from paths import REPO

ROOT = REPO
REF = ROOT / "raw_data" / "reference"
SQL = ROOT / "sql"
TEMPLATES = ROOT / "templates"
PARTIAL = TEMPLATES / "partials" / "bandwidth_theory.md.j2"
# the hub (shared values and macros) and a partial per section, each with its own front matter
THEORY = [PARTIAL, *sorted((TEMPLATES / "partials" / "theory").glob("*.md.j2"))]
FIX = ROOT / "tests" / "fixtures" / "bandwidth_theory"
PAGE = FIX / "page.md.j2"

# 1 GbE usable TCP rate at MTU 1500: payload 1500 - IPv4 20 - TCP 20 - timestamps 12 = 1448 of
# 1500 + Ethernet 14 + FCS 4 + preamble/SFD 8 + IFG 12 = 1538 wire bytes per frame.
USABLE_1GBE = 1e9 * 1448 / 1538  # 941,482,444.7 bit/s


@functools.lru_cache(maxsize=1)
def sql_models() -> dict:
    """Discovered once per session; upstreams are parsed lazily, only for the models we build."""
    return {m.name: m for m in discover(SQL)}


def theory_marts() -> list[str]:
    return list(pages.front_matter(PAGE)["marts"])


def build(ref_dir: Path = REF, fix_dir: Path = FIX) -> duckdb.DuckDBPyConnection:
    """Reference CSVs + the fixture §0 mart, then every model the theory marts need.

    Models whose table already exists (the fixture stand-in for the lead's §0 mart) are not
    rebuilt, so their real upstreams (raw deployment tables) are not needed here.
    """
    con = duckdb.connect()
    for path in reference.reference_files(ref_dir):
        reference.load(con, path)
    for stand_in in ("fct_deployment_constants", "fct_deployment_links"):   # the lead's §0 marts
        con.execute(f"create table {stand_in} as select * from read_csv(?, header=true)",
                    [str(fix_dir / f"{stand_in}.csv")])
    existing = {r[0] for r in con.execute(
        "select table_name from information_schema.tables").fetchall()}
    by_name = sql_models()
    wanted: set[str] = set()
    stack = theory_marts()
    while stack:
        name = stack.pop()
        if name in wanted or name in existing or name not in by_name:
            continue
        wanted.add(name)
        stack.extend(by_name[name].upstreams)
    for model in topological([by_name[n] for n in sorted(wanted)]):
        run_model(con, model)
    return con


def render(con) -> str:
    env = markdown.environment(TEMPLATES)
    env.loader = ChoiceLoader([FileSystemLoader(str(TEMPLATES)), FileSystemLoader(str(FIX))])
    page = pages.Page(PAGE, "test", tuple(theory_marts()))
    return pages.render(con, page, env)


def one(con, sql: str, params=()):
    rows = con.execute(sql, list(params)).fetchall()
    assert len(rows) == 1, rows
    return rows[0]


def cell(con, model, scheme, batch, rate, link):
    return one(con, """select required_bits_per_s, usable_share_fraction, feasibility_class
                       from fct_link_feasibility where model = ? and scheme = ? and batch_size = ?
                       and tokens_per_s = ? and link_class = ?""",
               (model, scheme, batch, rate, link))


def edit_csv(path: Path, match: dict, changes: dict) -> None:
    with open(path, newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        fields, rows = reader.fieldnames, list(reader)
    hits = [r for r in rows if all(r[k] == v for k, v in match.items())]
    assert len(hits) == 1, (path, match)
    hits[0].update(changes)
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=fields)
        writer.writeheader()
        writer.writerows(rows)


@pytest.fixture(scope="module")
def con():
    return build()


@pytest.fixture(scope="module")
def page(con):
    return render(con)


@pytest.fixture
def ref_copy(tmp_path):
    dest = tmp_path / "reference"
    shutil.copytree(REF, dest)
    return dest


# --- derived link capacity -------------------------------------------------------------------

def test_usable_rate_is_derived_from_frame_overheads(con):
    rate, fraction = one(con, "select usable_bits_per_s, usable_fraction from dim_link_classes "
                              "where link_class = '1gbe'")
    assert fraction == pytest.approx(1448 / 1538)           # 0.94148
    assert rate == pytest.approx(USABLE_1GBE)              # 941.48 Mbit/s
    ten = one(con, "select usable_bits_per_s from dim_link_classes where link_class = '10gbe'")[0]
    assert ten == pytest.approx(1e10 * 1448 / 1538)


def test_measured_iperf3_beside_the_derived_rate(con):
    rows = con.execute("""select link_class, head_to_worker_usable_fraction
                          from fct_link_measured_throughput""").fetchall()
    # only the 2.5 GbE link has iperf3 in the fixture: 294 MB/s x 8 / 2,353.7 Mbit/s = 99.9%
    assert rows == [("2.5gbe", pytest.approx(294e6 * 8 / (2.5e9 * 1448 / 1538)))]


def test_header_overhead_per_mtu(con):
    rows = dict(con.execute("select distinct mtu_bytes, overhead_fraction "
                            "from fct_header_overhead").fetchall())
    assert rows[1500] == pytest.approx(1 - 1448 / 1538)    # 90 of 1538 wire bytes = 5.85%
    assert rows[9000] == pytest.approx(1 - 8948 / 9038)    # 90 of 9038 = 1.00%


# --- bytes per token ---------------------------------------------------------------------------

def test_bytes_per_token_for_any_batch_and_stages(con):
    def bpt(model, scheme, batch, stages, dtype="fp16"):
        return one(con, """select bytes_per_token from fct_bytes_per_token where model = ?
                           and scheme = ? and batch_size = ? and dtype = ?
                           and pp_stages is not distinct from ?""",
                   (model, scheme, batch, dtype, stages))[0]
    assert bpt("27b", "pp", 1, 2) == 4096 * 2                 # 1 boundary x H x 2 = 8,192
    assert bpt("27b", "pp", 64, 2) == 4096 * 64 * 2           # 524,288 = 512 KiB
    assert bpt("27b", "pp", 16, 4) == 3 * 4096 * 16 * 2       # 3 boundaries
    assert bpt("36b", "pp", 1, 8, "int8") == 7 * 6144 * 1     # int8: 1 byte per value
    assert bpt("27b", "tp", 1, None) == 32 * 4096 * 2         # 262,144 = 256 KiB
    assert bpt("36b", "tp", 1, None) == 48 * 6144 * 2         # 589,824 = 576 KiB


def test_pp_tp_ratio_is_layers_over_boundaries(con):
    ratios = {(m, s): r for m, s, r in con.execute(
        "select model, pp_stages, tp_to_pp_ratio from fct_pp_tp_ratio").fetchall()}
    assert ratios[("27b", 2)] == pytest.approx(32)            # 32 layers / 1 boundary
    assert ratios[("36b", 2)] == pytest.approx(48)
    assert ratios[("27b", 4)] == pytest.approx(32 / 3)


# --- §2.2 / §2.3: the worked cells -----------------------------------------------------

def test_27b_pp_batch1_10toks(con):
    required, share, klass = cell(con, "27b", "pp", 1, 10, "1gbe")
    assert required == 4096 * 2 * 10 * 8                      # 655,360 bit/s = 0.66 Mbit/s
    assert share == pytest.approx(655_360 / USABLE_1GBE)
    assert klass == "green"


def test_27b_tp_batch64_100toks_red_everywhere(con):
    for link, usable in (("1gbe", 1e9), ("2.5gbe", 2.5e9), ("10gbe", 1e10)):
        required, share, klass = cell(con, "27b", "tp", 64, 100, link)
        assert required == 32 * 4096 * 64 * 2 * 100 * 8      # 13,421.77 Mbit/s
        assert share == pytest.approx(required / (usable * 1448 / 1538))
        assert klass == "red"                                 # 10 GbE: 142.6% > 90%


def test_36b_pp_batch64_100toks_yellow_on_1gbe(con):
    required, share, klass = cell(con, "36b", "pp", 64, 100, "1gbe")
    assert required == 6144 * 2 * 64 * 100 * 8                # 629.15 Mbit/s
    assert share == pytest.approx(629_145_600 / USABLE_1GBE)  # 66.8%: 50% <= share <= 90%
    assert klass == "yellow"
    assert cell(con, "36b", "pp", 64, 100, "2.5gbe")[2] == "green"   # 26.7%


def test_every_cell_classified_and_sql_asserts_pass(con):
    # 3 models (2 theory + 1 measured) x 2 schemes x 3 batches x 3 rates x 3 links
    assert one(con, "select count(*) from fct_link_feasibility")[0] == 3 * 2 * 3 * 3 * 3
    for test in discover_tests(SQL):
        if test.name.startswith(("assert_bandwidth_", "assert_link_usable", "assert_reference_urls")):
            assert run_test(con, test) == [], test.name


def test_measured_model_joins_the_theory(con):
    basis, bpt = one(con, """select basis, bytes_per_token from fct_bytes_per_token
                             where model = 'qwen38-27b-pp' and scheme = 'pp' and batch_size = 1
                             and is_default_stages and is_default_dtype""")
    assert basis == "measured"
    assert bpt == pytest.approx(40755.2)                      # busier direction, head -> worker
    required = cell(con, "qwen38-27b-pp", "pp", 1, 10, "1gbe")[0]
    assert required == pytest.approx(40755.2 * 10 * 8)        # 3.26 Mbit/s
    ratio = one(con, "select wire_to_raw_ratio from dim_model_shapes "
                     "where basis = 'measured'")[0]
    assert ratio == pytest.approx(40755.2 / (5120 * 2))       # 3.98x the raw hidden state
    tp = one(con, """select bytes_per_token from fct_bytes_per_token where model = 'qwen38-27b-pp'
                     and scheme = 'tp' and batch_size = 1 and dtype = 'fp16'""")[0]
    # formula on the deployed shape: 64 decoder blocks (the MTP layer is not in each token's
    # forward pass) x 5120 x 2 B
    assert tp == 64 * 5120 * 2


# --- §5 ----------------------------------------------------------------------------------------

def test_pipeline_bubble(con):
    b = dict(((s, m), f) for s, m, f in con.execute(
        "select pp_stages, micro_batches, bubble_fraction from fct_pipeline_bubble").fetchall())
    assert b[(2, 1)] == pytest.approx(1 / 2)                  # (2-1)/(2+1-1)
    assert b[(2, 8)] == pytest.approx(1 / 9)                  # (2-1)/(2+8-1)


def test_network_latency_share(con):
    share = one(con, """select network_share_high_fraction from fct_network_latency_share
                        where pp_stages = 2 and network = '1gbe_cat6'""")[0]
    net = 2 * 50e-6 / 2                                       # 2 hops x one-way (RTT 50 us / 2)
    assert share == pytest.approx(net / (0.002 + net))        # 2.4% of a 2 ms token


def test_boundary_framing_and_quantization(con):
    seg, over = one(con, """select segments_per_transfer, overhead_bytes_per_transfer
                            from fct_boundary_framing where model = '27b' and mtu_bytes = 1500""")
    assert seg == math.ceil(8192 / 1448) == 6                 # 6 segments x 90 B = 540 B
    assert over == 6 * 90
    frac = one(con, """select fraction_of_default from fct_quantization_savings
                       where model = '27b' and scheme = 'pp' and dtype = 'int8'""")[0]
    assert frac == pytest.approx(1 / 2)                       # int8 1 byte / fp16 2 bytes


def test_benchmark_sensitivity(con):
    rows = {f: s for f, s in con.execute(
        "select changed_factor, slowdown_fraction from fct_benchmark_sensitivity").fetchall()}
    assert rows["bandwidth"] == pytest.approx(1 - 1.66 / 1.71)  # 1 Gbit/s -> 100 Mbit/s: 2.9%
    assert rows["latency"] == pytest.approx(1 - 1.23 / 1.66)    # <5 ms -> 100 ms RTT: 25.9%


# --- parameters drive tables and prose ----------------------------------------------------------

def test_changing_36b_hidden_size_changes_cells_and_prose(ref_copy, page):
    edit_csv(ref_copy / "model_shapes.csv", {"model": "36b"}, {"hidden_size": "8192"})
    con2 = build(ref_copy)
    required, share, klass = cell(con2, "36b", "pp", 64, 100, "1gbe")
    assert required == 8192 * 2 * 64 * 100 * 8                # 838.86 Mbit/s
    assert share == pytest.approx(838_860_800 / USABLE_1GBE)  # 89.1%, still <= 90%
    assert klass == "yellow"
    assert cell(con2, "36b", "tp", 1, 10, "1gbe")[0] == 48 * 8192 * 2 * 10 * 8
    page2 = render(con2)
    # the §2.3 row of 36B PP, batch 64 at 100 tok/s, in both renders
    assert "| 64 | 100 | 629.15 Mbit/s | ◐ marginal · 66.8% |" in page
    assert "| 64 | 100 | 838.86 Mbit/s | ◐ marginal · 89.1% |" in page2
    assert "| 64 | 100 | 629.15 Mbit/s |" not in page2


def test_changing_yellow_threshold_reclassifies_and_rewrites_findings(ref_copy, page):
    edit_csv(ref_copy / "feasibility_thresholds.csv", {"feasibility_class": "green"},
             {"upper_fraction": "0.70"})
    con2 = build(ref_copy)
    assert cell(con2, "36b", "pp", 64, 100, "1gbe")[2] == "green"   # 66.8% < 70%
    page2 = render(con2)
    finding = re.compile(r"\*\*36B MoE PP\*\*:[^\n]*")
    assert "not feasible" in finding.search(page).group(0)
    assert "feasible on every link class" in finding.search(page2).group(0)
    assert "**feasible**: share < 70%" in page2 and "**feasible**: share < 50%" in page


def test_adding_a_model_adds_its_rows_and_tabs(ref_copy):
    with open(ref_copy / "model_shapes.csv", "a", encoding="utf-8") as fh:
        fh.write('70b,70B dense,8192,80,Llama-3-70B,3,"test row"\n')
    con2 = build(ref_copy)
    n = one(con2, "select count(*) from fct_link_feasibility where model = '70b'")[0]
    assert n == 2 * 3 * 3 * 3                                 # schemes x batches x rates x links
    assert cell(con2, "70b", "tp", 1, 10, "1gbe")[0] == 80 * 8192 * 2 * 10 * 8
    page2 = render(con2)
    assert page2.count('=== "70B dense"') == 2                # §2.2 and §2.3 tabs


# --- the partial ---------------------------------------------------------------------------------

def test_partial_renders_every_section(page):
    for heading in ("## 1.", "### 1.3", "## 2.", "### 2.3", "## 3.", "## 4.", "## 5.",
                    "### 5.5", "## 6.", "## References", "## Appendix"):
        assert "\n" + heading in page, heading
    assert "0.66 Mbit/s" in page                              # 27B PP batch 1, 10 tok/s
    assert "13,421.77 Mbit/s" in page                         # 27B TP batch 64, 100 tok/s
    assert "◐ marginal · 66.8%" in page                       # 36B PP batch 64, 100 tok/s, 1 GbE
    # the deployed model's label claims no basis; each row says its own: its PP rows are its
    # measured wire bytes, its TP rows formula on its shape (never "measured")
    assert "Qwen3.8-27B (deployed)" in page and "Qwen3.8-27B (measured)" not in page
    tp = [ln for ln in page.splitlines() if "Qwen3.8-27B (deployed) — TP" in ln]
    pp = [ln for ln in page.splitlines() if "Qwen3.8-27B (deployed) — PP" in ln]
    assert tp and all("(formula on its shape)" in ln and "measured" not in ln for ln in tp)
    assert pp and all("(measured wire bytes)" in ln for ln in pp)


def _declared(path: Path) -> set[str]:
    return set(pages.front_matter(path)["marts"])


def _body(path: Path) -> str:
    """The partial without its front matter."""
    return re.sub(r"\A\{#---\n.*?\n---#\}\n?", "", path.read_text(encoding="utf-8"), flags=re.S)


@pytest.mark.parametrize("path", THEORY, ids=lambda p: p.name)
def test_each_theory_partial_declares_exactly_the_marts_it_reads(path):
    used = set(re.findall(r"\b((?:dim|fct)_[a-z0-9_]+)", _body(path)))
    assert used == _declared(path)


def test_the_theory_partials_together_declare_the_theory_marts():
    assert set().union(*map(_declared, THEORY)) == set(theory_marts())


@pytest.mark.parametrize("path", THEORY, ids=lambda p: p.name)
def test_partial_holds_no_typed_number(path):
    text = _body(path)
    text = re.sub(r"\{#.*?#\}|\{\{.*?\}\}|\{%.*?%\}", "", text, flags=re.DOTALL)
    text = re.sub(r"^#+ \d+(\.\d+)*\.? ", "", text, flags=re.MULTILINE)   # section numbers
    text = re.sub(r"§\d+(\.\d+)*", "", text)                               # cross-references
    text = re.sub(r"\{ #[\w-]+ \}", "", text)                              # a heading's id
    text = text.replace("− 1", "")          # formula structure (boundaries = stages − 1), not a figure
    text = text.replace("iperf3", "")       # a tool's name
    assert re.findall(r".{0,20}\d.{0,20}", text) == []


def test_conclusions_count_the_measured_models_apart_and_int8_only_scales_activations(con, page):
    """§3.4 counted only the reference models while a measured model left the feasible class;
    §6 said int8 halves every requirement, false for measured wire bytes that are mostly RPC
    graph. Worked from the marts: a measured deployment keeps (ratio − saved) / ratio."""
    left = con.execute("select model_label, link_label, not_first_class_count, cell_count, "
                       "last_class_count from fct_feasibility_summary where scheme = 'pp' "
                       "and basis = 'measured' and not_first_class_count > 0").fetchall()
    assert left, "the fixture's measured model should leave the feasible class somewhere"
    block = page[page.index("The measured models are counted apart"):]
    for label, link, out, cells, sat in left:
        assert f"- {label} on {link}: {out} of {cells} cells ({sat} saturated)." in block
    saved = 1 - con.execute("select bytes_fraction_of_default from dim_activation_dtypes "
                            "where not is_default").fetchone()[0]          # int8: 1 − 0.5
    for model, ratio in con.execute("select model, wire_to_raw_ratio from dim_model_shapes "
                                    "where basis = 'measured' and wire_to_raw_ratio is not null").fetchall():
        kept = (ratio - saved) / ratio          # e.g. 3.98×: (3.98 − 0.5) / 3.98 = 87.4 %
        assert f"`{model}` ({ratio:.2f}×) keeps {kept * 100:.1f}%" in page, model
    assert "scale every requirement" not in page


def test_tp_over_pp_compares_formula_with_formula_and_measured_apart(con):
    rows = con.execute("select model, pp_basis, pp_boundaries, hidden_size, pp_bytes_per_token, "
                       "pp_formula_bytes_per_token, tp_bytes_per_token, tp_to_pp_ratio, "
                       "tp_to_measured_pp_ratio from fct_pp_tp_ratio where is_default_stages").fetchall()
    measured = [r for r in rows if r[1] == "measured"]
    assert measured
    for model, basis, boundaries, h, pp, pp_formula, tp, ratio, measured_ratio in rows:
        # the PP formula: boundaries x H x batch 1 x 2 bytes (fp16)
        assert pp_formula == pytest.approx(boundaries * h * 2), model
        assert ratio == pytest.approx(tp / pp_formula), model
        if basis == "measured":
            assert measured_ratio == pytest.approx(tp / pp) and pp != pytest.approx(pp_formula)
        else:
            assert measured_ratio is None and pp == pytest.approx(pp_formula)


@pytest.mark.parametrize("defaults, rows", [((True, False), 0), ((True, True), 1), ((False, False), 1)])
def test_exactly_one_default_activation_type(defaults, rows):
    (test,) = [t for t in discover_tests(SQL) if t.name == "assert_one_default_activation_dtype"]
    con = duckdb.connect()
    con.execute("create table ref_activation_dtypes (dtype varchar, label varchar, bytes_per_value int, "
                "is_default boolean, source varchar)")
    con.executemany("insert into ref_activation_dtypes values (?, ?, ?, ?, 's')",
                    [("fp16", "fp16", 2, defaults[0]), ("int8", "int8", 1, defaults[1])])
    assert len(run_test(con, test)) == rows


def test_pp_formula_rows_are_the_grids_stage_counts_only(con):
    # pipeline_grid.csv's pp_stages (2, 4, 8) and parallelism_params.csv's pp_stages (2); its
    # micro_batches values (1, 4, 8, 16) are another dimension and must not become stage counts
    got = {r[0] for r in con.execute("select distinct pp_stages from fct_bytes_per_token "
                                     "where scheme = 'pp' and basis = 'formula'").fetchall()}
    assert got == {2, 4, 8}


def test_the_summary_counts_last_class_cells_as_the_red_ones(con):
    # feasibility_thresholds.csv orders green, yellow, red: red is the last class, so each
    # group's last_class_count is its red_count, and some group has cells of other classes
    rows = con.execute("select cell_count, red_count, last_class_count, green_count + yellow_count "
                       "from fct_feasibility_summary").fetchall()
    assert all(last == red for _, red, last, _ in rows)
    assert any(others > 0 for *_, others in rows) and any(red > 0 for _, red, _, _ in rows)


def test_transfer_times_are_the_bits_over_the_usable_rate(con):
    # a transfer's time and a token's: bytes x 8 bits over the class's usable bit/s
    rows = con.execute("select bytes_per_transfer, bytes_per_token, usable_bits_per_s, transfer_s, "
                       "token_transfer_s from fct_transfer_times").fetchall()
    assert rows
    for per_transfer, per_token, usable, transfer_s, token_s in rows:
        assert transfer_s == pytest.approx(per_transfer * 8 / usable)
        assert token_s == pytest.approx(per_token * 8 / usable)


def test_the_busier_direction_is_whichever_carries_more(tmp_path):
    # the fixture deployment sends 40,755.2 B a position head -> worker and 39,321.6 back; with
    # the two swapped, worker -> head is the busier one and the model's wire bytes follow it:
    # 40,755.2 / (5,120 x 2 B) = 3.98x the raw hidden state either way
    fix = tmp_path / "fix"
    shutil.copytree(FIX, fix)
    edit_csv(fix / "fct_deployment_constants.csv", {"campaign": "qwen38-27b-pp"},
             {"wire_bytes_per_position_head_to_worker": "39321.6",
              "wire_bytes_per_position_worker_to_head": "40755.2"})
    con = build(fix_dir=fix)
    got = one(con, "select wire_bytes_per_position, wire_to_raw_ratio from dim_model_shapes "
                   "where basis = 'measured'")
    assert got == (pytest.approx(40755.2), pytest.approx(40755.2 / (5120 * 2)))


@pytest.mark.parametrize("column, measured", [("iperf3_head_to_worker_bytes_per_s", 1),
                                              ("iperf3_worker_to_head_bytes_per_s", 2)])
def test_a_link_measured_in_one_direction_only_is_kept(tmp_path, column, measured):
    # the 1 GbE link given one iperf3 run (110 MB/s), in either direction: it is listed, the
    # other direction's fraction missing; 110e6 x 8 / (1e9 x 1448 / 1538) = 93.4 %
    fix = tmp_path / "fix"
    shutil.copytree(FIX, fix)
    edit_csv(fix / "fct_deployment_links.csv", {"link_id": "gbe1_usb"}, {column: "110000000"})
    con = build(fix_dir=fix)
    rows = con.execute("select link_class, head_to_worker_usable_fraction, worker_to_head_usable_fraction "
                       "from fct_link_measured_throughput order by link_class").fetchall()
    expected = [None, None]
    expected[measured - 1] = pytest.approx(110e6 * 8 / (1e9 * 1448 / 1538))
    assert rows[0] == ("1gbe", *expected)
    assert [r[0] for r in rows] == ["1gbe", "2.5gbe"]
