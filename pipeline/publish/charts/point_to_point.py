"""Charts of the Point to Point page: region heatmaps and tc transfer-time curves.

Hand-built SVG rather than matplotlib: a few rectangles, lines and labels need no
plotting dependency, and the bytes are deterministic by construction (no ids,
no timestamps, every coordinate printed with fixed decimals, rows in SQL order).
"""
from __future__ import annotations

import math
from html import escape

from pipeline.publish.charts import Chart, svg

BACKEND = {"gloo": "Gloo", "nccl": "NCCL"}


# Sequential palettes whose darkness follows the meaning: more delay is worse (oranges to dark
# red), more bandwidth is better (pale to dark blue). Two hues, so the two matrices are never
# read with each other's key; the colour bar under each says which end is which.
DELAY_PALETTE = ((254, 237, 222), (127, 39, 4))
BANDWIDTH_PALETTE = ((239, 243, 255), (8, 48, 107))


# ------------------------------------------------------------------------------------ heatmaps
def heatmap(con, field: str, title: str, fmt, palette, low_word: str, high_word: str,
            narrow: bool = False, words=None) -> str:
    """Receiver rows x sender columns. Narrow: 24-40 px cells, the sender names written upwards
    above their columns, the receiver names in an 80 px margin (longer ones wrapped); more
    regions than fit in svg.NARROW make it wider (and the page then shows the full chart)."""
    cells = svg.rows(con, f"select receiver_name, receiver_order, sender_name, sender_order, "
                       f"is_diagonal, {field} as v from fct_p2p_region_matrix "
                       f"order by receiver_order, sender_order")
    names = [c["receiver_name"] for c in cells if c["sender_order"] == 1] or \
        sorted({c["receiver_name"] for c in cells})
    values = [c["v"] for c in cells if c["v"] is not None and not c["is_diagonal"]]
    lo, hi = (min(values), max(values)) if values else (0.0, 1.0)
    n = len(names)
    if n == 0:          # nothing measured: the title and a note, no empty axes
        width = svg.NARROW if narrow else 360
        body, y = svg.title_lines(width, 18, title)
        body.append(svg.text(width / 2, y + 40, "no measured pair of regions in the data"))
        return svg.document(width, int(y + 62), title, body)
    if narrow:
        ch, left = 26, 80
        cw = min(40.0, max(24.0, (svg.NARROW - left - 4) / max(n, 1)))
        width = max(svg.NARROW, left + cw * n + 4)
        body, y = svg.title_lines(width, 18, title)
        label_px = max((len(nm) for nm in names), default=0) * svg.CHAR_PX
        top = y + 46 + label_px
        body.append(svg.text(left + cw * n / 2, y + 20, "sender (Region 2), columns"))
        body.append(svg.text(4, top - 6, "receiver (Region 1), rows", anchor="start"))
        for j, name in enumerate(names):
            x = left + cw * j + cw / 2 + 4
            body.append(svg.text(x, top - 20, name, anchor="start",
                              extra=f' transform="rotate(-90 {svg.num(x)} {svg.num(top - 20)})"'))
    else:
        # long names: the row names widen the margin (right of the turned "receiver" label);
        # a column name wraps at 64 px, its longest word widening every column
        longest = max((len(nm) for nm in names), default=0) * svg.CHAR_PX
        left = max(90, math.ceil(longest + 30))
        heads = [svg.wrap(nm, 64) for nm in names]
        cw = max(70, math.ceil(max((len(w) for h in heads for w in h), default=0) * svg.CHAR_PX + 6))
        ch, top = 26, 70 + 12 * (max((len(h) for h in heads), default=1) - 1)
        # wide enough for the grid and for the title on one line
        width = max(left + cw * n + 20, 360, math.ceil(len(title) * svg.CHAR_PX + 16))
        body = [svg.text(width / 2, 18, title, extra=' font-weight="bold"'),
                svg.text(left + cw * n / 2, 36, "sender (Region 2)")]
        for j, head in enumerate(heads):
            for k, line in enumerate(head):
                body.append(svg.text(left + cw * j + cw / 2, top - 8 - 12 * (len(head) - 1 - k), line))
    height = top + ch * n + 62
    if not narrow:
        body.append(svg.text(14, top + ch * n / 2, "receiver (Region 1)",
                          extra=f' transform="rotate(-90 14 {svg.num(top + ch * n / 2)})"'))
    for c in cells:
        i, j = c["receiver_order"] - 1, c["sender_order"] - 1
        x, y = left + cw * j, top + ch * i
        if j == 0:
            lines = svg.wrap(c["receiver_name"], left - 10) if narrow else [c["receiver_name"]]
            for k, line in enumerate(lines[:2]):
                body.append(svg.text(left - 6, y + ch / 2 + 4 + 11 * (k - (len(lines[:2]) - 1) / 2),
                                  line, anchor="end"))
        # A missing cell is unfilled with text in the page's ink (docs/javascripts/charts.js);
        # a shaded cell keeps the ink that reads on its own shade in either palette.
        if c["is_diagonal"]:
            fill, label, ink = "#d9d9d9", "·", ' fill="#000000"'
        elif c["v"] is None:
            fill, label, ink = "none", "—", ""
        else:
            t = (c["v"] - lo) / (hi - lo) if hi > lo else 0.5
            fill, label = svg.shade(t, palette), fmt(c["v"])
            ink = f' fill="{"#ffffff" if t > 0.55 else "#000000"}"'
        what = None if c["is_diagonal"] else (
            f'{c["receiver_name"]} from {c["sender_name"]}: '
            f'{"not measured" if c["v"] is None else (words or fmt)(c["v"])}')
        body.append(svg.mark("rect", f'x="{svg.num(x)}" y="{svg.num(y)}" '
                                     f'width="{cw if isinstance(cw, int) else svg.num(cw)}" '
                                     f'height="{ch}" fill="{fill}" stroke="#ffffff"', what))
        body.append(svg.text(x + cw / 2, y + ch / 2 + 4, label, extra=ink))
    if values:
        bar_x = 24 if narrow else left
        bar_w = width - 2 * bar_x if narrow else max(cw * n, 240)
        body += svg.colour_bar(bar_x, top + ch * n + 18, bar_w, fmt(lo), fmt(hi),
                            low_word, high_word, palette)
    return svg.document(int(width), int(height), title, body)


def _rate(bps: float) -> str:
    return f"{bps / 1e9:.2f} G" if bps >= 1e9 else f"{bps / 1e6:.0f} M"


def _nccl_words(bps: float) -> str:
    return f"{bps / 1e6:,.0f} Mbit/s, NCCL bandwidth"


def _gbit(bps: float) -> str:
    """Gbit/s in at most four characters, for a 26 px cell: 0.85, 1.23, 12.3."""
    g = bps / 1e9
    return f"{g:.2f}" if g < 10 else f"{g:.1f}"


def delay_matrix(con, narrow: bool = False) -> str:
    return heatmap(con, "rtt_avg_s", "Delay: ping average (ms), receiver row x sender column",
                   lambda v: f"{v * 1e3:.0f}", DELAY_PALETTE, "shortest", "longest: worst", narrow,
                   words=lambda v: f"{v * 1e3:.1f} ms, ping average")


def bandwidth_matrix(con, narrow: bool = False) -> str:
    if narrow:
        return heatmap(con, "nccl_bits_per_s",
                       "NCCL bandwidth (Gbit/s), receiver row x sender column", _gbit,
                       BANDWIDTH_PALETTE, "lowest: worst", "highest", narrow, words=_nccl_words)
    return heatmap(con, "nccl_bits_per_s",
                   "NCCL bandwidth (bit/s, M = 10^6, G = 10^9), receiver row x sender column", _rate,
                   BANDWIDTH_PALETTE, "lowest: worst", "highest", words=_nccl_words)


# --------------------------------------------------------------------------------- line charts


def line_chart(series: list[tuple[str, list[tuple[float, float]]]], title: str, xlabel: str,
               ylabel: str, fits: list[tuple[int, list[tuple[float, float]]]] = (),
               narrow: bool = False) -> str:
    if narrow:
        width, left, right, ph = svg.NARROW, 56, 14, 240
        head, title_end = svg.title_lines(width, 20, title)
        top = title_end + 20
        height = int(top + ph + 44 + 16 * len(series) + 4)
    else:
        width, height, left, right, top, bottom = 640, 400, 70, 170, 40, 50
        head = [svg.text(width / 2, 20, title, extra=' font-weight="bold"')]
        ph = height - top - bottom
    pts = [p for _, s in series for p in s] + [p for _, f in fits for p in f]
    xmax = max((p[0] for p in pts), default=1.0) or 1.0
    ymax = svg.nice(max((p[1] for p in pts), default=1.0) or 1.0)
    pw = width - left - right
    sx = lambda x: left + pw * x / xmax                   # noqa: E731
    sy = lambda y: top + ph - ph * y / ymax               # noqa: E731
    slots = svg.legend_slots(narrow, left, pw, top, ph, len(series))
    body = [*head,
            f'<line x1="{left}" y1="{top + ph}" x2="{left + pw}" y2="{top + ph}" stroke="#000000"/>',
            f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + ph}" stroke="#000000"/>',
            svg.text(left + pw / 2, top + ph + 34 if narrow else height - 12, xlabel),
            svg.text(16, top + ph / 2, ylabel, extra=f' transform="rotate(-90 16 {svg.num(top + ph / 2)})"')]
    for k in range(6):
        xv, yv = xmax * k / 5, ymax * k / 5
        body.append(svg.text(sx(xv), top + ph + 16, svg.tick(xv)))
        body.append(svg.text(left - 6, sy(yv) + 4, svg.tick(yv), anchor="end"))
        body.append(f'<line x1="{left}" y1="{svg.num(sy(yv))}" x2="{left + pw}" y2="{svg.num(sy(yv))}" '
                    f'stroke="#eeeeee"/>')
    for idx, points in fits:
        color = svg.PALETTE[idx % len(svg.PALETTE)]
        path = " ".join(f"{svg.num(sx(x))},{svg.num(sy(y))}" for x, y in points)
        body.append(f'<polyline points="{path}" fill="none" stroke="{color}" '
                    f'stroke-dasharray="4 3"/>')
    for idx, (name, points) in enumerate(series):
        color = svg.PALETTE[idx % len(svg.PALETTE)]
        path = " ".join(f"{svg.num(sx(x))},{svg.num(sy(y))}" for x, y in points)
        lx, ly = slots[idx]
        body += [f'<g data-series="{escape(name)}">',
                 f'<polyline points="{path}" fill="none" stroke="{color}" stroke-width="2"/>',
                 *(svg.marker(idx, sx(x), sy(y), color,
                              value=f"{name}: {y:.4g} ({ylabel}) at {x:.4g} ({xlabel})")
                   for x, y in points), "</g>",
                 f'<line x1="{svg.num(lx - 12)}" y1="{svg.num(ly)}" x2="{svg.num(lx + 12)}" y2="{svg.num(ly)}" '
                 f'stroke="{color}" stroke-width="2"/>',
                 svg.marker(idx, lx, ly, color, legend=True),
                 svg.text(lx + 18, ly + 4, name, anchor="start")]
    return svg.document(width, height, title, body)


def _series_key(r) -> str:
    return f"{BACKEND.get(r['backend'], r['backend'])} {r['size_bytes'] / 2**20:.0f} MiB"


def time_vs_delay(con, narrow: bool = False) -> str:
    rows = svg.rows(con, "select backend, size_bytes, coalesce(tc_delay_s, 0) as d, median_time_s "
                      "from fct_p2p_tc_times where tc_rate_bits_per_s is null "
                      "order by size_bytes, backend, d")
    fits = svg.rows(con, "select backend, size_bytes, base_time_s, round_trips "
                      "from fct_p2p_network_cost order by size_bytes, backend")
    keys = list(dict.fromkeys(_series_key(r) for r in rows))
    series = [(k, [(r["d"] * 1e3, r["median_time_s"] * 1e3) for r in rows if _series_key(r) == k])
              for k in keys]
    xmax = max((r["d"] for r in rows), default=0.0)
    lines = [(keys.index(_series_key(f)),
              [(0.0, f["base_time_s"] * 1e3), (xmax * 1e3, (f["base_time_s"] + f["round_trips"] * xmax) * 1e3)])
             for f in fits if f["round_trips"] is not None and _series_key(f) in keys]
    return line_chart(series, "Median transfer time against added delay (dashed: fit base + k x RTT)",
                      "delay added by tc on the receiver (ms)", "median transfer time (ms)", lines,
                      narrow=narrow)


def time_vs_cap(con, narrow: bool = False) -> str:
    rows = svg.rows(con, "select backend, size_bytes, tc_rate_bits_per_s as cap, median_time_s "
                      "from fct_p2p_tc_times where tc_rate_bits_per_s is not null "
                      "and coalesce(tc_delay_s, 0) = 0 order by size_bytes, backend, cap")
    keys = list(dict.fromkeys(_series_key(r) for r in rows))
    series = [(k, [(r["cap"] / 1e9, r["median_time_s"] * 1e3) for r in rows if _series_key(r) == k])
              for k in keys]
    return line_chart(series, "Median transfer time against the rate cap",
                      "rate cap set by tc on the receiver (Gbit/s)", "median transfer time (ms)",
                      narrow=narrow)


CHARTS = [
    Chart(name="p2p_delay_matrix", page="p2p", file="delay-matrix.svg",
          marts=["fct_p2p_region_matrix"], render=delay_matrix,
          narrow=lambda con: delay_matrix(con, narrow=True),
          what="ping delay between every pair of regions"),
    Chart(name="p2p_bandwidth_matrix", page="p2p", file="bandwidth-matrix.svg",
          marts=["fct_p2p_region_matrix"], render=bandwidth_matrix,
          narrow=lambda con: bandwidth_matrix(con, narrow=True),
          what="NCCL bandwidth between every pair of regions"),
    Chart(name="p2p_tc_time_vs_delay", page="p2p", file="tc-time-vs-delay.svg",
          marts=["fct_p2p_tc_times", "fct_p2p_network_cost"], render=time_vs_delay,
          narrow=lambda con: time_vs_delay(con, narrow=True),
          what="transfer time against the tc delay, per backend and size"),
    Chart(name="p2p_tc_time_vs_cap", page="p2p", file="tc-time-vs-cap.svg",
          marts=["fct_p2p_tc_times"], render=time_vs_cap,
          narrow=lambda con: time_vs_cap(con, narrow=True),
          what="transfer time against the tc rate cap, per backend and size"),
]
