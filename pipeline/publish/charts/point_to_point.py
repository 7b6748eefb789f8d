"""Charts of the Point to Point page: region heatmaps and tc transfer-time curves.

Hand-built SVG rather than matplotlib: a few rectangles, lines and labels need no
plotting dependency, and the bytes are deterministic by construction (no ids,
no timestamps, every coordinate printed with fixed decimals, rows in SQL order).
"""
from __future__ import annotations

import math
from html import escape

from pipeline.publish.charts import Chart

FONT = 'font-family="Helvetica, Arial, sans-serif" font-size="11"'
PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b"]
BACKEND = {"gloo": "Gloo", "nccl": "NCCL"}


def _rows(con, sql: str) -> list[dict]:
    cur = con.execute(sql)
    cols = [d[0] for d in cur.description]
    return [dict(zip(cols, r)) for r in cur.fetchall()]


def _f(x: float) -> str:
    return f"{x:.1f}"


def _tick(v: float) -> str:
    """A tick value as written: up to 6 significant digits, so 0.5 and 0.04 stay themselves
    (whole numbers only would label 0, 0.5, 1 as 0, 0, 1) and float noise (0.30000000000000004)
    is not shown."""
    return f"{v:.6g}"


def _svg(width: int, height: int, title: str, body: list[str]) -> str:
    return "\n".join([
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img">',
        f"<title>{escape(title)}</title>",
        f'<rect width="{width}" height="{height}" fill="#ffffff"/>',
        *body, "</svg>", ""])


def _text(x, y, s, anchor="middle", extra="") -> str:
    return f'<text x="{_f(x)}" y="{_f(y)}" text-anchor="{anchor}" {FONT}{extra}>{escape(s)}</text>'


# Every chart is drawn twice: at its full width, and NARROW wide for a phone (Material leaves
# the screen width minus 32 px for the text: 358 px on a 390 px phone, 343 px on a 375 px
# one), its text still 11 px (docs/javascripts/charts.js picks the variant that fits).
# CHAR_PX is a generous width of one 11 px Helvetica character, so wrapped text never runs
# past the edge.
NARROW = 340
CHAR_PX = 6.4


def _wrap(s: str, max_px: float) -> list[str]:
    """Words of ``s`` in lines no wider than ``max_px`` at 11 px (a longer word keeps its line)."""
    lines: list[str] = []
    for word in s.split():
        if lines and len(lines[-1]) + 1 + len(word) <= max_px / CHAR_PX:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return lines or [""]


def _title(width: float, y: float, title: str) -> tuple[list[str], float]:
    """The bold title centred and wrapped to the width; returns its lines and the y under it."""
    lines = _wrap(title, width - 16)
    return ([_text(width / 2, y + 14 * i, line, extra=' font-weight="bold"')
             for i, line in enumerate(lines)], y + 14 * (len(lines) - 1))


# Sequential palettes whose darkness follows the meaning: more delay is worse (oranges to dark
# red), more bandwidth is better (pale to dark blue). Two hues, so the two matrices are never
# read with each other's key; the colour bar under each says which end is which.
DELAY_PALETTE = ((254, 237, 222), (127, 39, 4))
BANDWIDTH_PALETTE = ((239, 243, 255), (8, 48, 107))
BAR_STEPS = 10


def _shade(t: float, palette) -> str:
    """0 -> the palette's pale end, 1 -> its dark end (readable in print)."""
    lo, hi = palette
    r, g, b = (round(a + (c - a) * t) for a, c in zip(lo, hi))
    return f"#{r:02x}{g:02x}{b:02x}"


def _colour_bar(x: float, y: float, width: float, lo: str, hi: str, low_word: str,
                high_word: str, palette) -> list[str]:
    """A bar of BAR_STEPS shades from the palette's pale end to its dark end, the lowest and
    highest value drawn at its ends and what each end means."""
    step = width / BAR_STEPS
    out = [f'<rect x="{_f(x + step * k)}" y="{_f(y)}" width="{_f(step)}" height="10" '
           f'fill="{_shade(k / (BAR_STEPS - 1), palette)}" stroke="none"/>'
           for k in range(BAR_STEPS)]
    out.append(f'<rect x="{_f(x)}" y="{_f(y)}" width="{_f(width)}" height="10" fill="none" '
               f'stroke="#999999" stroke-width="0.5"/>')
    out.append(_text(x, y + 24, f"{lo} ({low_word})", anchor="start"))
    out.append(_text(x + width, y + 24, f"{hi} ({high_word})", anchor="end"))
    return out


# ------------------------------------------------------------------------------------ heatmaps
def heatmap(con, field: str, title: str, fmt, palette, low_word: str, high_word: str,
            narrow: bool = False) -> str:
    """Receiver rows x sender columns. Narrow: 24-40 px cells, the sender names written upwards
    above their columns, the receiver names in an 80 px margin (longer ones wrapped); more
    regions than fit in NARROW make it wider (and the page then shows the full chart)."""
    cells = _rows(con, f"select receiver_name, receiver_order, sender_name, sender_order, "
                       f"is_diagonal, {field} as v from fct_p2p_region_matrix "
                       f"order by receiver_order, sender_order")
    names = [c["receiver_name"] for c in cells if c["sender_order"] == 1] or \
        sorted({c["receiver_name"] for c in cells})
    values = [c["v"] for c in cells if c["v"] is not None and not c["is_diagonal"]]
    lo, hi = (min(values), max(values)) if values else (0.0, 1.0)
    n = len(names)
    if n == 0:          # nothing measured: the title and a note, no empty axes
        width = NARROW if narrow else 360
        body, y = _title(width, 18, title)
        body.append(_text(width / 2, y + 40, "no measured pair of regions in the data"))
        return _svg(width, int(y + 62), title, body)
    if narrow:
        ch, left = 26, 80
        cw = min(40.0, max(24.0, (NARROW - left - 4) / max(n, 1)))
        width = max(NARROW, left + cw * n + 4)
        body, y = _title(width, 18, title)
        label_px = max((len(nm) for nm in names), default=0) * CHAR_PX
        top = y + 46 + label_px
        body.append(_text(left + cw * n / 2, y + 20, "sender (Region 2), columns"))
        body.append(_text(4, top - 6, "receiver (Region 1), rows", anchor="start"))
        for j, name in enumerate(names):
            x = left + cw * j + cw / 2 + 4
            body.append(_text(x, top - 20, name, anchor="start",
                              extra=f' transform="rotate(-90 {_f(x)} {_f(top - 20)})"'))
    else:
        # long names: the row names widen the margin (right of the turned "receiver" label);
        # a column name wraps at 64 px, its longest word widening every column
        longest = max((len(nm) for nm in names), default=0) * CHAR_PX
        left = max(90, math.ceil(longest + 30))
        heads = [_wrap(nm, 64) for nm in names]
        cw = max(70, math.ceil(max((len(w) for h in heads for w in h), default=0) * CHAR_PX + 6))
        ch, top = 26, 70 + 12 * (max((len(h) for h in heads), default=1) - 1)
        # wide enough for the grid and for the title on one line
        width = max(left + cw * n + 20, 360, math.ceil(len(title) * CHAR_PX + 16))
        body = [_text(width / 2, 18, title, extra=' font-weight="bold"'),
                _text(left + cw * n / 2, 36, "sender (Region 2)")]
        for j, head in enumerate(heads):
            for k, line in enumerate(head):
                body.append(_text(left + cw * j + cw / 2, top - 8 - 12 * (len(head) - 1 - k), line))
    height = top + ch * n + 62
    if not narrow:
        body.append(_text(14, top + ch * n / 2, "receiver (Region 1)",
                          extra=f' transform="rotate(-90 14 {_f(top + ch * n / 2)})"'))
    for c in cells:
        i, j = c["receiver_order"] - 1, c["sender_order"] - 1
        x, y = left + cw * j, top + ch * i
        if j == 0:
            lines = _wrap(c["receiver_name"], left - 10) if narrow else [c["receiver_name"]]
            for k, line in enumerate(lines[:2]):
                body.append(_text(left - 6, y + ch / 2 + 4 + 11 * (k - (len(lines[:2]) - 1) / 2),
                                  line, anchor="end"))
        # A missing cell is unfilled with text in the page's ink (docs/javascripts/charts.js);
        # a shaded cell keeps the ink that reads on its own shade in either palette.
        if c["is_diagonal"]:
            fill, label, ink = "#d9d9d9", "·", ' fill="#000000"'
        elif c["v"] is None:
            fill, label, ink = "none", "—", ""
        else:
            t = (c["v"] - lo) / (hi - lo) if hi > lo else 0.5
            fill, label = _shade(t, palette), fmt(c["v"])
            ink = f' fill="{"#ffffff" if t > 0.55 else "#000000"}"'
        body.append(f'<rect x="{_f(x)}" y="{_f(y)}" width="{cw if isinstance(cw, int) else _f(cw)}" '
                    f'height="{ch}" fill="{fill}" stroke="#ffffff"/>')
        body.append(_text(x + cw / 2, y + ch / 2 + 4, label, extra=ink))
    if values:
        bar_x = 24 if narrow else left
        bar_w = width - 2 * bar_x if narrow else max(cw * n, 240)
        body += _colour_bar(bar_x, top + ch * n + 18, bar_w, fmt(lo), fmt(hi),
                            low_word, high_word, palette)
    return _svg(int(width), int(height), title, body)


def _rate(bps: float) -> str:
    return f"{bps / 1e9:.2f} G" if bps >= 1e9 else f"{bps / 1e6:.0f} M"


def _gbit(bps: float) -> str:
    """Gbit/s in at most four characters, for a 26 px cell: 0.85, 1.23, 12.3."""
    g = bps / 1e9
    return f"{g:.2f}" if g < 10 else f"{g:.1f}"


def delay_matrix(con, narrow: bool = False) -> str:
    return heatmap(con, "rtt_avg_s", "Delay: ping average (ms), receiver row x sender column",
                   lambda v: f"{v * 1e3:.0f}", DELAY_PALETTE, "shortest", "longest: worst", narrow)


def bandwidth_matrix(con, narrow: bool = False) -> str:
    if narrow:
        return heatmap(con, "nccl_bits_per_s",
                       "NCCL bandwidth (Gbit/s), receiver row x sender column", _gbit,
                       BANDWIDTH_PALETTE, "lowest: worst", "highest", narrow)
    return heatmap(con, "nccl_bits_per_s",
                   "NCCL bandwidth (bit/s, M = 10^6, G = 10^9), receiver row x sender column", _rate,
                   BANDWIDTH_PALETTE, "lowest: worst", "highest")


# --------------------------------------------------------------------------------- line charts
def _frame(title: str, width: int, height: int, left: int, top: int, pw: int, ph: int,
           xlabel: str, ylabel: str, ymax: float, sy, ytick=_tick,
           xlabel_gap: int = 12, xlabel_y: float | None = None) -> list[str]:
    """Title (wrapped to the width), both axes, their labels and five horizontal grid lines
    with y tick labels. ``xlabel_y`` places the x label (default: xlabel_gap above the bottom)."""
    head, _ = _title(width, 20, title)
    body = [*head,
            f'<line x1="{left}" y1="{top + ph}" x2="{left + pw}" y2="{top + ph}" stroke="#000000"/>',
            f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + ph}" stroke="#000000"/>',
            _text(left + pw / 2, height - xlabel_gap if xlabel_y is None else xlabel_y, xlabel),
            _text(16, top + ph / 2, ylabel, extra=f' transform="rotate(-90 16 {_f(top + ph / 2)})"')]
    for k in range(6):
        yv = ymax * k / 5
        body.append(f'<line x1="{left}" y1="{_f(sy(yv))}" x2="{left + pw}" y2="{_f(sy(yv))}" '
                    f'stroke="#eeeeee"/>')
        body.append(_text(left - 6, sy(yv) + 4, ytick(yv), anchor="end"))
    return body


def _nice(top: float) -> float:
    """The smallest 1/2/2.5/5 x 10^n step x 5 at or above top, so the 5 ticks are round numbers."""
    base = 10 ** math.floor(math.log10(top / 5))
    return next(m * base * 5 for m in (1, 2, 2.5, 5, 10) if m * base * 5 >= top)


# One marker shape per series (with its colour), so series that share points stay apart and
# the chart reads without colour: circle, square, triangle, diamond; the second four hollow.
MARKERS = ("M-3.5,0a3.5,3.5 0 1,0 7,0a3.5,3.5 0 1,0 -7,0", "M-3,-3h6v6h-6z",
           "M0,-4L3.6,3L-3.6,3z", "M0,-4.2L4.2,0L0,4.2L-4.2,0z")


def _marker(idx: int, x: float, y: float, color: str, legend: bool = False) -> str:
    fill = color if idx % (2 * len(MARKERS)) < len(MARKERS) else "#ffffff"
    tag = ' data-legend="1"' if legend else ""
    return (f'<path{tag} transform="translate({_f(x)} {_f(y)})" d="{MARKERS[idx % len(MARKERS)]}" '
            f'fill="{fill}" stroke="{color}" stroke-width="1.5"/>')


def legend_slots(narrow: bool, left: float, pw: float, top: float, ph: float, n: int,
                 bottom_gap: float = 44) -> list[tuple[float, float]]:
    """Where each of n legend entries goes (its marker's x, y): beside the plot, or under it
    (narrow, one entry a line)."""
    if narrow:
        return [(left + 12, top + ph + bottom_gap + 16 * i) for i in range(n)]
    return [(left + pw + 24, top + 16 * i + 8) for i in range(n)]


def line_chart(series: list[tuple[str, list[tuple[float, float]]]], title: str, xlabel: str,
               ylabel: str, fits: list[tuple[int, list[tuple[float, float]]]] = (),
               narrow: bool = False) -> str:
    if narrow:
        width, left, right, ph = NARROW, 56, 14, 240
        head, title_end = _title(width, 20, title)
        top = title_end + 20
        height = int(top + ph + 44 + 16 * len(series) + 4)
    else:
        width, height, left, right, top, bottom = 640, 400, 70, 170, 40, 50
        head = [_text(width / 2, 20, title, extra=' font-weight="bold"')]
        ph = height - top - bottom
    pts = [p for _, s in series for p in s] + [p for _, f in fits for p in f]
    xmax = max((p[0] for p in pts), default=1.0) or 1.0
    ymax = _nice(max((p[1] for p in pts), default=1.0) or 1.0)
    pw = width - left - right
    sx = lambda x: left + pw * x / xmax                   # noqa: E731
    sy = lambda y: top + ph - ph * y / ymax               # noqa: E731
    slots = legend_slots(narrow, left, pw, top, ph, len(series))
    body = [*head,
            f'<line x1="{left}" y1="{top + ph}" x2="{left + pw}" y2="{top + ph}" stroke="#000000"/>',
            f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + ph}" stroke="#000000"/>',
            _text(left + pw / 2, top + ph + 34 if narrow else height - 12, xlabel),
            _text(16, top + ph / 2, ylabel, extra=f' transform="rotate(-90 16 {_f(top + ph / 2)})"')]
    for k in range(6):
        xv, yv = xmax * k / 5, ymax * k / 5
        body.append(_text(sx(xv), top + ph + 16, _tick(xv)))
        body.append(_text(left - 6, sy(yv) + 4, _tick(yv), anchor="end"))
        body.append(f'<line x1="{left}" y1="{_f(sy(yv))}" x2="{left + pw}" y2="{_f(sy(yv))}" '
                    f'stroke="#eeeeee"/>')
    for idx, points in fits:
        color = PALETTE[idx % len(PALETTE)]
        path = " ".join(f"{_f(sx(x))},{_f(sy(y))}" for x, y in points)
        body.append(f'<polyline points="{path}" fill="none" stroke="{color}" '
                    f'stroke-dasharray="4 3"/>')
    for idx, (name, points) in enumerate(series):
        color = PALETTE[idx % len(PALETTE)]
        path = " ".join(f"{_f(sx(x))},{_f(sy(y))}" for x, y in points)
        lx, ly = slots[idx]
        body += [f'<g data-series="{escape(name)}">',
                 f'<polyline points="{path}" fill="none" stroke="{color}" stroke-width="2"/>',
                 *(_marker(idx, sx(x), sy(y), color) for x, y in points), "</g>",
                 f'<line x1="{_f(lx - 12)}" y1="{_f(ly)}" x2="{_f(lx + 12)}" y2="{_f(ly)}" '
                 f'stroke="{color}" stroke-width="2"/>',
                 _marker(idx, lx, ly, color, legend=True),
                 _text(lx + 18, ly + 4, name, anchor="start")]
    return _svg(width, height, title, body)


def _series_key(r) -> str:
    return f"{BACKEND.get(r['backend'], r['backend'])} {r['size_bytes'] / 2**20:.0f} MiB"


def time_vs_delay(con, narrow: bool = False) -> str:
    rows = _rows(con, "select backend, size_bytes, coalesce(tc_delay_s, 0) as d, median_time_s "
                      "from fct_p2p_tc_times where tc_rate_bits_per_s is null "
                      "order by size_bytes, backend, d")
    fits = _rows(con, "select backend, size_bytes, base_time_s, round_trips "
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
    rows = _rows(con, "select backend, size_bytes, tc_rate_bits_per_s as cap, median_time_s "
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
