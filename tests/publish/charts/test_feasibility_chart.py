"""The feasibility heatmap draws the mart's cells (pipeline/publish/charts/feasibility.py):
every cell read back from the SVG (its row, token rate and link by the chart's own labels, its
text and fill) and compared with the hand-made ``fct_link_feasibility`` rows, at full width
and in the phone layout."""
from __future__ import annotations

import xml.etree.ElementTree as ET

import duckdb
import pytest

from pipeline.publish.charts import feasibility

SVG = "{http://www.w3.org/2000/svg}"
GREEN, YELLOW, RED = "#c7e9c0", "#fee391", "#fcae91"       # feasibility.CLASS_FILLS, written out
# (model label, model order, rate tok/s, link label, link order, share, class order)
CELLS = [
    ("Model one", 1, 10.0, "1 GbE", 1, 0.5, 1),
    ("Model one", 1, 10.0, "10 GbE", 2, 0.0456, 1),
    ("Model one", 1, 20.0, "1 GbE", 1, 1.25, 3),
    ("Model one", 1, 20.0, "10 GbE", 2, None, None),       # not computable: shown as missing
    ("Model two", 2, 10.0, "1 GbE", 1, 0.9, 2),
    ("Model two", 2, 10.0, "10 GbE", 2, 0.09, 1),
    ("Model two", 2, 20.0, "1 GbE", 1, 3.0, 4),            # an order past the palette: its last fill
    ("Model two", 2, 20.0, "10 GbE", 2, 0.18, 1),
]
# what each cell must say, worked by hand: share x 100 to one decimal, the class's fill
EXPECTED = {
    ("Model one", 10.0, "1 GbE"): ("50.0 %", GREEN),
    ("Model one", 10.0, "10 GbE"): ("4.6 %", GREEN),
    ("Model one", 20.0, "1 GbE"): ("125.0 %", RED),
    ("Model one", 20.0, "10 GbE"): ("—", "none"),
    ("Model two", 10.0, "1 GbE"): ("90.0 %", YELLOW),
    ("Model two", 10.0, "10 GbE"): ("9.0 %", GREEN),
    ("Model two", 20.0, "1 GbE"): ("300.0 %", RED),
    ("Model two", 20.0, "10 GbE"): ("18.0 %", GREEN),
}


@pytest.fixture
def con():
    con = duckdb.connect()
    con.execute("create table fct_link_feasibility (model varchar, model_label varchar, "
                "model_sort_order int, scheme varchar, scheme_label varchar, batch_size int, "
                "tokens_per_s double, link_class varchar, link_label varchar, link_sort_order int, "
                "usable_share_fraction double, feasibility_label varchar, feasibility_sort_order int)")
    for label, mo, rate, link, lo, share, cls in CELLS:
        con.execute("insert into fct_link_feasibility values (?, ?, ?, 'tp', 'TP', 1, ?, ?, ?, ?, ?, ?, ?)",
                    [label.lower(), label, mo, rate, link.lower(), link, lo, share,
                     None if cls is None else f"class {cls}", cls])
    con.execute("create table dim_feasibility_thresholds as select * from (values "
                "('fits', 1), ('tight', 2), ('too much', 3)) t(label, sort_order)")
    return con


def _texts(root) -> list[dict]:
    return [dict(e.attrib, text=e.text) for e in root.iter(SVG + "text")]


def _centred(texts, x: float, y: float) -> str:
    (hit,) = [t["text"] for t in texts if abs(float(t["x"]) - x) < 0.06 and abs(float(t["y"]) - y) < 0.06]
    return hit


def _wide_cells(svg: str) -> dict:
    root = ET.fromstring(svg)
    texts = _texts(root)
    rates = [t for t in texts if (t["text"] or "").endswith("tok/s per sequence")]
    out = {}
    for r in root.iter(SVG + "rect"):
        if r.get("stroke") != "#ffffff":
            continue
        x, y, w, h = (float(r.get(k)) for k in ("x", "y", "width", "height"))
        label = _centred(texts, x + w / 2, y + h / 2 + 4)
        row = [t["text"] for t in texts if t.get("text-anchor") == "end" and abs(float(t["y"]) - (y + h / 2 + 4)) < 0.06]
        link = [t["text"] for t in texts if abs(float(t["x"]) - (x + w / 2)) < 0.06
                and t["text"] in ("1 GbE", "10 GbE")]
        rate = min(rates, key=lambda t: abs(float(t["x"]) - (x + w / 2)))["text"]
        assert len(row) == 1 and len(link) == 1
        model = row[0].split(", TP, batch 1")[0]
        out[(model, float(rate.split()[0]), link[0])] = (label, r.get("fill"))
    return out


def test_every_cell_shows_its_share_and_class_at_full_width(con):
    assert _wide_cells(feasibility.feasibility_heatmap(con)) == EXPECTED


def test_the_columns_go_by_link_order_within_each_token_rate(con):
    root = ET.fromstring(feasibility.feasibility_heatmap(con))
    texts = _texts(root)
    heads = [t for t in texts if t["text"] in ("1 GbE", "10 GbE")]
    rates = [t for t in texts if (t["text"] or "").endswith("tok/s per sequence")]
    assert [t["text"] for t in sorted(heads, key=lambda t: float(t["x"]))] == ["1 GbE", "10 GbE"] * 2
    assert [t["text"] for t in sorted(rates, key=lambda t: float(t["x"]))] == \
        ["10 tok/s per sequence", "20 tok/s per sequence"]
    rows = [t["text"] for t in sorted((t for t in texts if t.get("text-anchor") == "end"
                                       and t["text"].endswith("batch 1")), key=lambda t: float(t["y"]))]
    assert rows == ["Model one, TP, batch 1", "Model two, TP, batch 1"]
    legend = [t["text"] for t in texts if t["text"] in ("fits", "tight", "too much")]
    assert legend == ["fits", "tight", "too much"]


def _narrow_cells(svg: str) -> dict:
    """Walk the phone layout in drawing order: a rate's block, its link names, a model's name,
    the row's label, then its cells."""
    root = ET.fromstring(svg)
    texts = _texts(root)
    out, rate, model, links = {}, None, None, {}
    for e in root:
        text = e.text or ""
        if e.tag == SVG + "text" and text.endswith("tok/s per sequence"):
            rate, links = float(text.split()[0]), {}
        elif e.tag == SVG + "text" and text in ("1 GbE", "10 GbE"):
            links[round(float(e.get("x")), 1)] = text
        elif e.tag == SVG + "text" and e.get("font-weight") == "bold" and e.get("text-anchor") == "start":
            model = text
        elif e.tag == SVG + "rect" and e.get("stroke") == "#ffffff":
            x, y, w, h = (float(e.get(k)) for k in ("x", "y", "width", "height"))
            out[(model, rate, links[round(x + w / 2, 1)])] = (_centred(texts, x + w / 2, y + h / 2 + 4),
                                                             e.get("fill"))
    return out


def test_every_cell_shows_its_share_and_class_on_a_phone(con):
    svg = feasibility.feasibility_heatmap(con, narrow=True)
    assert ET.fromstring(svg).get("width") == str(340)     # pipeline.publish.charts.svg.NARROW
    assert _narrow_cells(svg) == EXPECTED


def test_a_missing_row_of_the_mart_is_a_missing_cell_not_a_neighbours_value(con):
    con.execute("delete from fct_link_feasibility where model = 'model two' and tokens_per_s = 20 "
                "and link_label = '10 GbE'")
    expected = {**EXPECTED, ("Model two", 20.0, "10 GbE"): ("—", "none")}
    assert _wide_cells(feasibility.feasibility_heatmap(con)) == expected
    assert _narrow_cells(feasibility.feasibility_heatmap(con, narrow=True)) == expected


def test_rows_of_one_model_and_scheme_are_together_and_groups_apart(con):
    # a second scheme for model one: its row starts a new group (16 px further), while the two
    # batch sizes of a scheme stay 22 px (one row) apart
    con.execute("insert into fct_link_feasibility select model, model_label, model_sort_order, "
                "scheme, scheme_label, 4, tokens_per_s, link_class, link_label, link_sort_order, "
                "usable_share_fraction, feasibility_label, feasibility_sort_order "
                "from fct_link_feasibility where model = 'model one'")
    con.execute("insert into fct_link_feasibility select model, model_label, model_sort_order, "
                "'zp', 'ZP', batch_size, tokens_per_s, link_class, link_label, link_sort_order, "
                "usable_share_fraction, feasibility_label, feasibility_sort_order "
                "from fct_link_feasibility where model = 'model one' and batch_size = 1")
    texts = _texts(ET.fromstring(feasibility.feasibility_heatmap(con)))
    rows = sorted(((float(t["y"]), t["text"]) for t in texts if t.get("text-anchor") == "end"
                   and ", batch " in (t["text"] or "")))
    assert [r for _, r in rows] == ["Model one, TP, batch 1", "Model one, TP, batch 4",
                                    "Model one, ZP, batch 1", "Model two, TP, batch 1"]
    assert [b - a for (a, _), (b, _) in zip(rows, rows[1:])] == [22.0, 38.0, 38.0]
    # on a phone, each model's name once, above its rows, in every rate's block
    narrow = _texts(ET.fromstring(feasibility.feasibility_heatmap(con, narrow=True)))
    names = [t["text"] for t in narrow if t.get("font-weight") == "bold" and t.get("text-anchor") == "start"]
    assert names == ["Model one", "Model two"] * 2
