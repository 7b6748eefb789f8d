"""What the charts draw is the data: the SVG's cells, points and lane heights are read back into
numbers and compared with the mart rows they were drawn from (hand-made marts, so the expected
values are the fixture's own, not the chart code's)."""
from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET

import duckdb
import pytest

from pipeline.publish.charts import ethernet_bandwidth_math as ebm
from pipeline.publish.charts import point_to_point as p2p

from chart_marts import table as _table

SVG = "{http://www.w3.org/2000/svg}"


def _elements(svg: str, tag: str) -> list[dict]:
    return [dict(e.attrib, text=e.text) for e in ET.fromstring(svg).iter(SVG + tag)]


# --- region heatmaps ------------------------------------------------------------------------

@pytest.fixture
def matrix():
    con = duckdb.connect()
    # receiver row x sender column; a -> b is 10 ms, b -> a 40 ms (asymmetric on purpose, so a
    # transposed chart is wrong), a -> c unmeasured; bandwidth larger where the delay is smaller
    regions = {"a": 1, "b": 2, "c": 3}
    delay = {("a", "b"): 0.010, ("b", "a"): 0.040, ("c", "a"): 0.025, ("a", "c"): None,
             ("b", "c"): 0.030, ("c", "b"): 0.020}
    bw = {("a", "b"): 2.5e9, ("b", "a"): 4e8, ("c", "a"): 1e9, ("a", "c"): None,
          ("b", "c"): 7.5e8, ("c", "b"): 1.2e9}
    rows = []
    for r, ro in regions.items():
        for s, so in regions.items():
            diag = r == s
            rows.append((r, ro, s, so, diag, None if diag else delay[(r, s)], None if diag else bw[(r, s)]))
    _table(con, "fct_p2p_region_matrix", "receiver_name varchar, receiver_order int, sender_name varchar, "
           "sender_order int, is_diagonal boolean, rtt_avg_s double, nccl_bits_per_s double", rows)
    return con, delay, bw


def _cells(svg: str) -> dict[tuple[str, str], tuple[str, str]]:
    """(receiver, sender) -> (label, fill): rows and columns named by the chart's own labels."""
    texts = _elements(svg, "text")
    rects = [r for r in _elements(svg, "rect") if r.get("stroke") == "#ffffff"]
    x0, y0 = min(float(r["x"]) for r in rects), min(float(r["y"]) for r in rects)
    w, h = float(rects[0]["width"]), float(rects[0]["height"])
    cols = {round((float(t["x"]) - x0 - w / 2) / w): t["text"] for t in texts
            if abs(float(t["y"]) - (y0 - 8)) < 0.05}                   # the names above the grid
    rows = {round((float(t["y"]) - 4 - y0 - h / 2) / h): t["text"] for t in texts
            if t.get("text-anchor") == "end"}                          # the names left of it
    out = {}
    for r in rects:
        j, i = round((float(r["x"]) - x0) / w), round((float(r["y"]) - y0) / h)
        label = next(t["text"] for t in texts if abs(float(t["x"]) - (float(r["x"]) + w / 2)) < 0.05
                     and abs(float(t["y"]) - (float(r["y"]) + h / 2 + 4)) < 0.05)
        out[(rows[i], cols[j])] = (label, r["fill"])
    return out


def _darkness(fill: str) -> int:
    return -sum(int(fill[k:k + 2], 16) for k in (1, 3, 5))


def test_the_delay_matrix_shows_each_pairs_delay_in_its_cell(matrix):
    con, delay, _ = matrix
    cells = _cells(p2p.delay_matrix(con))
    for (receiver, sender), seconds in delay.items():
        # rtt_avg_s x 1000, no decimals; an unmeasured pair is a dash, never a neighbour's value
        want = "—" if seconds is None else f"{seconds * 1e3:.0f}"
        assert cells[(receiver, sender)][0] == want, (receiver, sender)
    assert all(cells[(r, r)][0] == "·" for r in "abc")
    # the palette is ordered: a longer delay is a darker cell
    measured = sorted((s, cells[k][1]) for k, s in delay.items() if s is not None)
    darkness = [_darkness(fill) for _, fill in measured]
    assert darkness == sorted(darkness) and len(set(darkness)) == len(darkness)


@pytest.mark.parametrize("chart", [p2p.delay_matrix, p2p.bandwidth_matrix])
def test_an_unmeasured_cell_is_drawn_in_the_pages_ink_and_a_shaded_cell_in_its_own(matrix, chart):
    """docs/javascripts/charts.js puts charts inline and extra.css recolours unlabelled text and
    white fills to the page's palette: a missing cell must be unfilled with text of no fill of
    its own (dark ink on dark paper otherwise), a shaded cell's text keeps the ink of its shade."""
    con, delay, _ = matrix
    svg = chart(con)
    texts = _elements(svg, "text")
    dash = [t for t in texts if t["text"] == "—"]
    assert len(dash) == 1                                  # the fixture's one unmeasured pair
    assert "fill" not in dash[0]
    cell = [r for r in _elements(svg, "rect") if r.get("stroke") == "#ffffff"
            and abs(float(r["x"]) + float(r["width"]) / 2 - float(dash[0]["x"])) < 0.05
            and abs(float(r["y"]) + float(r["height"]) / 2 + 4 - float(dash[0]["y"])) < 0.05]
    assert [r["fill"] for r in cell] == ["none"]
    shaded = [t for t in texts if re.fullmatch(r"[\d.]+( [MG])?", t["text"] or "")]
    assert len(shaded) == 5 and all(t.get("fill") in ("#000000", "#ffffff") for t in shaded)


def _bar(svg: str) -> tuple[list[str], list[str]]:
    """The colour bar under a matrix: its shades left to right and its two end labels."""
    rects = [r for r in _elements(svg, "rect") if r.get("stroke") == "none"]
    shades = [r["fill"] for r in sorted(rects, key=lambda r: float(r["x"]))]
    y = float(rects[0]["y"]) + 24
    ends = [t["text"] for t in sorted(_elements(svg, "text"), key=lambda t: float(t["x"]))
            if abs(float(t["y"]) - y) < 0.05]
    return shades, ends


def _hue(fill: str) -> str:
    r, _, b = (int(fill[k:k + 2], 16) for k in (1, 3, 5))
    return "red" if r > b else "blue"


@pytest.mark.parametrize("chart, low, high, hue", [
    # the fixture's measured delays run from 10 ms (a -> b) to 40 ms (b -> a): longer is worse
    (p2p.delay_matrix, "10 (shortest)", "40 (longest: worst)", "red"),
    # its rates from 400 Mbit/s (b -> a) to 2.5 Gbit/s (a -> b): higher is better
    (p2p.bandwidth_matrix, "400 M (lowest: worst)", "2.50 G (highest)", "blue"),
])
def test_each_matrix_has_a_colour_bar_in_a_palette_of_its_meaning(matrix, chart, low, high, hue):
    con, _, _ = matrix
    svg = chart(con)
    shades, ends = _bar(svg)
    assert ends == [low, high]
    darkness = [_darkness(f) for f in shades]
    assert darkness == sorted(darkness) and len(set(darkness)) == len(shades)  # pale to dark
    cells = [fill for label, fill in _cells(svg).values() if label not in ("·", "—")]
    assert {_hue(f) for f in cells} == {hue}
    # the darkest cell is the bar's dark end, the palest its pale end
    assert max(cells, key=_darkness) == shades[-1] and min(cells, key=_darkness) == shades[0]


def test_the_bandwidth_matrix_shows_each_pairs_rate_in_its_cell(matrix):
    con, _, bw = matrix
    cells = _cells(p2p.bandwidth_matrix(con))
    # the palette is ordered: a higher rate is a darker cell
    measured = sorted((v, cells[k][1]) for k, v in bw.items() if v is not None)
    darkness = [_darkness(fill) for _, fill in measured]
    assert darkness == sorted(darkness) and len(set(darkness)) == len(darkness)
    # >= 1e9 bit/s: x / 1e9 with 2 decimals and "G", else x / 1e6 with none and "M"
    want = {("a", "b"): "2.50 G", ("b", "a"): "400 M", ("c", "a"): "1.00 G", ("a", "c"): "—",
            ("b", "c"): "750 M", ("c", "b"): "1.20 G"}
    assert {k: cells[k][0] for k in want} == want


# --- tc line charts ----------------------------------------------------------------------------

def _series(svg: str) -> dict[str, list[tuple[float, float]]]:
    """Each legend name -> its points in data units, read back through the axes' tick labels."""
    lines = _elements(svg, "line")
    axis = next(l for l in lines if l.get("stroke") == "#000000" and l["y1"] == l["y2"])
    left, right, base = float(axis["x1"]), float(axis["x2"]), float(axis["y1"])
    texts = _elements(svg, "text")
    xticks = [t for t in texts if abs(float(t["y"]) - (base + 16)) < 0.05]
    yticks = [t for t in texts if t.get("text-anchor") == "end"]
    xmax = float(max(xticks, key=lambda t: float(t["x"]))["text"])
    top_tick = min(yticks, key=lambda t: float(t["y"]))
    ymax, top = float(top_tick["text"]), float(top_tick["y"]) - 4
    legend = [t["text"] for t in texts if t.get("text-anchor") == "start"]
    groups = {g.get("data-series"): g for g in ET.fromstring(svg).iter(SVG + "g")}
    assert sorted(groups) == sorted(legend)                  # one group per legend entry
    out = {}
    for name in legend:
        centres = [tuple(float(v) for v in re.fullmatch(r"translate\((\S+) (\S+)\)",
                                                        m.get("transform")).groups())
                   for m in groups[name].iter(SVG + "path")]
        out[name] = [((x - left) / (right - left) * xmax, (base - y) / (base - top) * ymax)
                     for x, y in centres]
    return out


def _styles(svg: str) -> dict[str, tuple[str, str, str]]:
    """Each series' (marker shape, fill, stroke) as its legend draws it."""
    root = ET.fromstring(svg)
    legend = [t.text for t in root.iter(SVG + "text") if t.get("text-anchor") == "start"]
    marks = [m for m in root.iter(SVG + "path") if m.get("data-legend")]
    return {name: (m.get("d"), m.get("fill"), m.get("stroke")) for name, m in zip(legend, marks)}


def test_the_delay_chart_draws_each_backends_median_times():
    con = duckdb.connect()
    mib = 2**20
    times = [("nccl", mib, 0.0, 0.012), ("nccl", mib, 0.010, 0.035), ("nccl", mib, 0.050, 0.130),
             ("gloo", mib, 0.0, 0.020), ("gloo", mib, 0.010, 0.061), ("gloo", mib, 0.050, 0.222)]
    _table(con, "fct_p2p_tc_times", "backend varchar, size_bytes bigint, tc_delay_s double, "
           "tc_rate_bits_per_s double, median_time_s double",
           [(b, s, d, None, t) for b, s, d, t in times])
    _table(con, "fct_p2p_network_cost", "backend varchar, size_bytes bigint, base_time_s double, "
           "round_trips double", [("nccl", mib, 0.012, 2.4), ("gloo", mib, 0.020, 4.0)])
    series = _series(p2p.time_vs_delay(con))
    # x = the delay in ms, y = the median time in ms, one series per backend and size
    for backend, name in (("nccl", "NCCL 1 MiB"), ("gloo", "Gloo 1 MiB")):
        want = [(d * 1e3, t * 1e3) for b, _, d, t in times if b == backend]
        assert series[name] == [pytest.approx(p, abs=0.5) for p in want], name
    # each series' markers in the plot are drawn as its legend shows them
    styles = _styles(p2p.time_vs_delay(con))
    root = ET.fromstring(p2p.time_vs_delay(con))
    for g in root.iter(SVG + "g"):
        marks = {(m.get("d"), m.get("fill"), m.get("stroke")) for m in g.iter(SVG + "path")}
        assert marks == {styles[g.get("data-series")]}


def test_the_cap_chart_draws_each_backends_median_times_against_the_cap_in_gbit():
    con = duckdb.connect()
    mib = 2**20
    # (backend, size, delay, cap, time): only uncapped-delay rows with a cap are drawn
    rows = [("nccl", 4 * mib, 0.0, 1e9, 0.036), ("nccl", 4 * mib, 0.0, 5e9, 0.010),
            ("gloo", 4 * mib, None, 1e9, 0.041), ("gloo", 4 * mib, 0.0, 2.5e9, 0.022),
            ("gloo", 4 * mib, 0.010, 2.5e9, 0.090),       # a delay too: not on this chart
            ("gloo", 4 * mib, 0.050, None, 0.300)]        # no cap: the delay chart's
    _table(con, "fct_p2p_tc_times", "backend varchar, size_bytes bigint, tc_delay_s double, "
           "tc_rate_bits_per_s double, median_time_s double", rows)
    for narrow in (False, True):
        series = _series(p2p.time_vs_cap(con, narrow=narrow))
        # x = cap / 1e9 (Gbit/s), y = time x 1e3 (ms); the x axis tops at the largest cap, 5
        assert series == {
            "NCCL 4 MiB": [pytest.approx((1.0, 36.0), abs=0.05), pytest.approx((5.0, 10.0), abs=0.05)],
            "Gloo 4 MiB": [pytest.approx((1.0, 41.0), abs=0.05), pytest.approx((2.5, 22.0), abs=0.05)],
        }


def test_series_differ_by_marker_shape_not_by_colour_alone():
    con = duckdb.connect()
    mib = 2**20
    # eight series (two backends x four sizes) with the same two points each
    rows = [(b, k * mib, d, None, 0.010 + d) for k in (1, 2, 4, 8) for b in ("gloo", "nccl")
            for d in (0.0, 0.010)]
    _table(con, "fct_p2p_tc_times", "backend varchar, size_bytes bigint, tc_delay_s double, "
           "tc_rate_bits_per_s double, median_time_s double", rows)
    _table(con, "fct_p2p_network_cost", "backend varchar, size_bytes bigint, base_time_s double, "
           "round_trips double", [("nccl", mib, 0.01, None)])
    styles = _styles(p2p.time_vs_delay(con))
    assert len(styles) == 8
    # shape and fill without the colour: still eight different markers
    assert len({(d, fill == stroke) for d, fill, stroke in styles.values()}) == 8
    # series drawn on the same points (every series here) keep apart by shape
    assert len({d for d, _, _ in styles.values()}) == 4


# --- 50 Hz utilisation lanes -------------------------------------------------------------------

def test_the_utilisation_lanes_draw_transmit_share_not_receive():
    con = duckdb.connect()
    # head: tx 50 % of its line rate from 0 to 0.02 s, rx 10 % (a lane drawing rx is wrong);
    # worker: tx 100 % from 0.5 to 0.52 s; the window is 0..1 s
    _table(con, "fct_netdev_utilisation", "campaign varchar, window_kind varchar, host varchar, "
           "link_id varchar, interface varchar, start_s double, end_s double, tx_line_rate_fraction double, "
           "rx_line_rate_fraction double, window_s double",
           [("c", "kv_snapshot", "h", "l", "eth0", -0.5, 0.0, 0.0, 0.0, 1.0),
            ("c", "kv_snapshot", "h", "l", "eth0", 0.0, 0.02, 0.5, 0.1, 1.0),
            ("c", "kv_snapshot", "h", "l", "eth0", 0.02, 1.5, 0.0, 0.0, 1.0),
            ("c", "kv_snapshot", "w", "l", "eth1", 0.5, 0.52, 1.0, 0.0, 1.0)])
    _table(con, "fct_deployment_constants", "campaign varchar, head_host varchar, worker_host varchar, "
           "model_name varchar, ubatch_tokens double, prefill_tokens_per_s double",
           [("c", "h", "w", "m", 512.0, 100.0)])
    _table(con, "fct_deployment_links", "campaign varchar, link_id varchar, label varchar", [("c", "l", "LAN")])
    svg = ebm.snapshot_utilisation(con)
    polys = {p["fill"]: p["points"] for p in _elements(svg, "polygon")}
    grid = sorted({float(l["y1"]) for l in _elements(svg, "line") if l.get("stroke") == "#dddddd"})
    axis = [l for l in _elements(svg, "line") if l.get("stroke") == "#000000" and l["y1"] == l["y2"]
            and float(l["x2"]) - float(l["x1"]) > 300]
    left, right = float(axis[0]["x1"]), float(axis[0]["x2"])
    # the x span is the rows' own: -0.5 .. 1.5 s
    sx = lambda s: left + (right - left) * (s + 0.5) / 2.0     # noqa: E731

    def plateaus(points: str, lane_top: float, lane_base: float):
        pts = [tuple(map(float, p.split(","))) for p in points.split()]
        return sorted({(round((lane_base - y) / (lane_base - lane_top), 2), round(x, 1)) for x, y in pts
                       if y < lane_base - 0.05})
    # the head's lane is the upper one: its grid lines are 0 %, 50 %, 100 % at the lowest y's
    head_top, head_base = grid[0], grid[2]
    worker_top, worker_base = grid[3], grid[5]
    assert plateaus(polys[ebm.HEAD], head_top, head_base) == \
        [(0.5, round(sx(0.0), 1)), (0.5, round(sx(0.02), 1))]
    assert plateaus(polys[ebm.WORKER], worker_top, worker_base) == \
        [(1.0, round(sx(0.5), 1)), (1.0, round(sx(0.52), 1))]
    # and the 0.1 of received traffic is drawn nowhere
    assert not re.search(r"10 %", svg)


def _narrow_cells(svg: str) -> dict[tuple[str, str], tuple[str, str, str | None]]:
    """(receiver, sender) -> (label, fill, text ink) in the phone layout: sender names written
    upwards (rotated) above their columns, receiver names right-aligned left of their rows."""
    texts = _elements(svg, "text")
    rects = [r for r in _elements(svg, "rect") if r.get("stroke") == "#ffffff"]
    out = {}
    for r in rects:
        x, y, w, h = (float(r[k]) for k in ("x", "y", "width", "height"))
        (sender,) = [t["text"] for t in texts if "rotate(-90" in t.get("transform", "")
                     and abs(float(t["x"]) - (x + w / 2 + 4)) < 0.06]
        (receiver,) = [t["text"] for t in texts if t.get("text-anchor") == "end"
                       and abs(float(t["y"]) - (y + h / 2 + 4)) < 0.06]
        (label,) = [t for t in texts if abs(float(t["x"]) - (x + w / 2)) < 0.06
                    and abs(float(t["y"]) - (y + h / 2 + 4)) < 0.06]
        out[(receiver, sender)] = (label["text"], r["fill"], label.get("fill"))
    return out


def test_the_phone_layout_of_a_matrix_puts_each_pair_in_its_own_cell(matrix):
    con, delay, bw = matrix
    # the phone's bandwidth cells say Gbit/s without the unit (it is in the title)
    for chart, values, fmt in ((p2p.delay_matrix, delay, lambda s: f"{s * 1e3:.0f}"),
                               (p2p.bandwidth_matrix, bw, lambda b: f"{b / 1e9:.2f}")):
        svg = chart(con, narrow=True)
        assert ET.fromstring(svg).get("width") == "340"           # NARROW: three regions fit
        cells = _narrow_cells(svg)
        wide = _cells(chart(con))
        assert set(cells) == {(r, s) for r in "abc" for s in "abc"}
        for (receiver, sender), v in values.items():
            label, fill, _ = cells[(receiver, sender)]
            assert label == ("—" if v is None else fmt(v)), (receiver, sender)
            assert fill == wide[(receiver, sender)][1]            # the same shade as at full width
        assert all(cells[(r, r)][:2] == ("·", "#d9d9d9") for r in "abc")


def test_a_cells_text_turns_white_only_past_55_percent_of_the_scale():
    # delays of 10 .. 30 units of 1/1024 s (exact in binary, so the place on the scale is too):
    # (v - 10) / 20 is exactly 0.55 for 21 units (stays black), 0.6 for 22 (white), 1 for 30
    # (white), 0 for 10 (black). Labels: 21/1024 s = 20.5 ms -> "21", 22/1024 = 21.5 -> "21",
    # 30/1024 = 29.3 -> "29", 10/1024 = 9.8 -> "10"
    con = duckdb.connect()
    u = 1 / 1024
    rows = [("a", 1, "a", 1, True, None), ("a", 1, "b", 2, False, 21 * u),
            ("b", 2, "a", 1, False, 22 * u), ("b", 2, "b", 2, True, None),
            ("c", 3, "a", 1, False, 30 * u), ("c", 3, "b", 2, False, 10 * u),
            ("a", 1, "c", 3, False, None), ("b", 2, "c", 3, False, None), ("c", 3, "c", 3, True, None)]
    _table(con, "fct_p2p_region_matrix", "receiver_name varchar, receiver_order int, sender_name varchar, "
           "sender_order int, is_diagonal boolean, rtt_avg_s double", rows)
    cells = _narrow_cells(p2p.delay_matrix(con, narrow=True))
    assert cells[("a", "b")][::2] == ("21", "#000000")
    assert cells[("b", "a")][::2] == ("21", "#ffffff")
    assert cells[("c", "a")][::2] == ("29", "#ffffff")
    assert cells[("c", "b")][::2] == ("10", "#000000")
    assert cells[("a", "c")] == ("—", "none", None)


def test_a_matrix_of_one_measured_value_is_shaded_mid_scale():
    # lo == hi: no scale to place it on; it takes the middle shade (0.5), black text
    con = duckdb.connect()
    rows = [("a", 1, "a", 1, True, None), ("a", 1, "b", 2, False, 0.015),
            ("b", 2, "a", 1, False, None), ("b", 2, "b", 2, True, None)]
    _table(con, "fct_p2p_region_matrix", "receiver_name varchar, receiver_order int, sender_name varchar, "
           "sender_order int, is_diagonal boolean, rtt_avg_s double", rows)
    cells = _narrow_cells(p2p.delay_matrix(con, narrow=True))
    assert cells[("a", "b")][0] == "15" and cells[("a", "b")][2] == "#000000"
    # DELAY_PALETTE's middle, by hand: (254 + 127) / 2 = 190.5 -> 190 (Python rounds half to
    # even), (237 + 39) / 2 = 138, (222 + 4) / 2 = 113
    assert cells[("a", "b")][1] == "#be8a71"


def _prefill_tables(con, ubatch_tokens=512.0, prefill_tps=2048.0):
    # head: tx 80 % from 0.1 to 0.3 s of a 2 s prefill; worker: tx 40 % from 1.0 to 1.5 s.
    # A ubatch: 512 tokens / 2048 tok/s = 0.25 s, so the close-up spans 4 x 0.25 = 1 s.
    _table(con, "fct_netdev_utilisation", "campaign varchar, window_kind varchar, host varchar, "
           "link_id varchar, interface varchar, start_s double, end_s double, tx_line_rate_fraction double, "
           "rx_line_rate_fraction double, window_s double",
           [("c", "prefill", "h", "l", "eth0", 0.0, 0.1, 0.0, 0.0, 2.0),
            ("c", "prefill", "h", "l", "eth0", 0.1, 0.3, 0.8, 0.0, 2.0),
            ("c", "prefill", "h", "l", "eth0", 0.3, 2.0, 0.0, 0.0, 2.0),
            ("c", "prefill", "w", "l", "eth0", 0.0, 1.0, 0.0, 0.0, 2.0),
            ("c", "prefill", "w", "l", "eth0", 1.0, 1.5, 0.4, 0.0, 2.0),
            ("c", "prefill", "w", "l", "eth0", 1.5, 2.0, 0.0, 0.0, 2.0),
            ("c", "kv_snapshot", "h", "l", "eth0", 0.0, 0.5, 0.9, 0.0, 0.5)])
    _table(con, "fct_deployment_constants", "campaign varchar, head_host varchar, worker_host varchar, "
           "model_name varchar, ubatch_tokens double, prefill_tokens_per_s double",
           [("c", "h", "w", "m", ubatch_tokens, prefill_tps)])
    _table(con, "fct_deployment_links", "campaign varchar, link_id varchar, label varchar", [("c", "l", "LAN")])


def _lanes(svg: str) -> list[dict]:
    """Each lane, top to bottom: its label, its plateaus (share, start x, end x) and the x of
    its axis ticks by their labels."""
    texts = _elements(svg, "text")
    polys = _elements(svg, "polygon")
    grids = sorted({float(l["y1"]) for l in _elements(svg, "line") if l.get("stroke") == "#dddddd"})
    lanes = []
    for k, poly in enumerate(polys):
        top, base = grids[3 * k], grids[3 * k + 2]
        pts = [tuple(map(float, p.split(","))) for p in poly["points"].split()]
        high = [(round((base - y) / (base - top), 2), x) for x, y in pts if y < base - 0.05]
        lanes.append({"fill": poly["fill"], "plateaus": high, "top": top, "base": base})
    return lanes, texts


@pytest.mark.parametrize("narrow", [False, True])
def test_the_prefill_chart_adds_a_close_up_of_the_first_four_ubatches(narrow):
    con = duckdb.connect()
    _prefill_tables(con)
    svg = ebm.prefill_utilisation(con, narrow=narrow)
    lanes, texts = _lanes(svg)
    # the whole prefill (head, worker), then the close-up (head, worker): only prefill rows
    assert [l["fill"] for l in lanes] == [ebm.HEAD, ebm.WORKER, ebm.HEAD, ebm.WORKER]
    assert [p for p, _ in lanes[0]["plateaus"]] == [0.8, 0.8]
    assert [p for p, _ in lanes[1]["plateaus"]] == [0.4, 0.4]
    assert [p for p, _ in lanes[2]["plateaus"]] == [0.8, 0.8]
    assert lanes[3]["plateaus"] == []                    # the worker sends after the first second
    # the close-up's x scale is 0 .. 1 s: the head's burst 0.1 .. 0.3 s is 10 % .. 30 % across,
    # twice as wide a share of the lane as in the 0 .. 2 s view
    (a, xa), (_, xb) = lanes[0]["plateaus"]
    (_, za), (_, zb) = lanes[2]["plateaus"]
    assert math.isclose((zb - za) / (xb - xa), 2.0, rel_tol=0.01)
    words = [t["text"] for t in texts]
    assert "close-up: the first 4 ubatches (250 ms each), seconds since the prefill started" in \
        " ".join(words)
    assert "m (c), LAN link, interface eth0; shaded: the measured window" in " ".join(words)
    ticks = [w for w in words if re.fullmatch(r"[\d.]+", w or "")]
    # _step: at most 10 ticks of 1/2/5 x 10^n. Full width: 2 s -> 0.2, 1 s -> 0.1. A phone
    # steps as for twice the span: 4 s -> 0.5 (0.1 and 0.2 give 40 and 20), 2 s -> 0.2
    if narrow:
        assert ticks == ["0", "0.5", "1", "1.5", "2", "0", "0.2", "0.4", "0.6", "0.8", "1"]
    else:
        assert ticks == ["0", "0.2", "0.4", "0.6", "0.8", "1", "1.2", "1.4", "1.6", "1.8", "2",
                         "0", "0.1", "0.2", "0.3", "0.4", "0.5", "0.6", "0.7", "0.8", "0.9", "1"]


def test_without_a_prefill_rate_there_is_no_close_up():
    con = duckdb.connect()
    _prefill_tables(con, prefill_tps=None)
    lanes, texts = _lanes(ebm.prefill_utilisation(con))
    assert len(lanes) == 2 and not any("close-up" in (t["text"] or "") for t in texts)


def test_no_window_in_the_data_says_so():
    con = duckdb.connect()
    _prefill_tables(con)
    con.execute("delete from fct_netdev_utilisation")
    for narrow in (False, True):
        svg = ebm.prefill_utilisation(con, narrow=narrow)
        assert "no measured window in the data" in svg and "<polygon" not in svg
