"""The charts' SVG toolkit: the document, text at 11 px, wrapped titles, axes with round
ticks, markers, colour bars and legend places. Every chart module draws with these, so every
chart reads the same (tests/publish/test_chart_layout.py checks them without knowing this code)."""
from __future__ import annotations

import math
from html import escape

FONT = 'font-family="Helvetica, Arial, sans-serif" font-size="11"'


PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b"]


def rows(con, sql: str) -> list[dict]:
    cur = con.execute(sql)
    cols = [d[0] for d in cur.description]
    return [dict(zip(cols, r)) for r in cur.fetchall()]


def num(x: float) -> str:
    return f"{x:.1f}"


def tick(v: float) -> str:
    """A tick value as written: up to 6 significant digits, so 0.5 and 0.04 stay themselves
    (whole numbers only would label 0, 0.5, 1 as 0, 0, 1) and float noise (0.30000000000000004)
    is not shown."""
    return f"{v:.6g}"


def document(width: int, height: int, title: str, body: list[str]) -> str:
    return "\n".join([
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img">',
        f"<title>{escape(title)}</title>",
        f'<rect width="{width}" height="{height}" fill="#ffffff"/>',
        *body, "</svg>", ""])


def text(x, y, s, anchor="middle", extra="") -> str:
    return f'<text x="{num(x)}" y="{num(y)}" text-anchor="{anchor}" {FONT}{extra}>{escape(s)}</text>'


# Every chart is drawn twice: at its full width, and NARROW wide for a phone (Material leaves
# the screen width minus 32 px for the text: 358 px on a 390 px phone, 343 px on a 375 px
# one), its text still 11 px (docs/javascripts/charts.js picks the variant that fits).


# CHAR_PX is a generous width of one 11 px Helvetica character, so wrapped text never runs
# past the edge.


NARROW = 340


CHAR_PX = 6.4


def wrap(s: str, max_px: float) -> list[str]:
    """Words of ``s`` in lines no wider than ``max_px`` at 11 px (a longer word keeps its line)."""
    lines: list[str] = []
    for word in s.split():
        if lines and len(lines[-1]) + 1 + len(word) <= max_px / CHAR_PX:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return lines or [""]


def title_lines(width: float, y: float, title: str) -> tuple[list[str], float]:
    """The bold title centred and wrapped to the width; returns its lines and the y under it."""
    lines = wrap(title, width - 16)
    return ([text(width / 2, y + 14 * i, line, extra=' font-weight="bold"')
             for i, line in enumerate(lines)], y + 14 * (len(lines) - 1))


BAR_STEPS = 10


def shade(t: float, palette) -> str:
    """0 -> the palette's pale end, 1 -> its dark end (readable in print)."""
    lo, hi = palette
    r, g, b = (round(a + (c - a) * t) for a, c in zip(lo, hi))
    return f"#{r:02x}{g:02x}{b:02x}"


def colour_bar(x: float, y: float, width: float, lo: str, hi: str, low_word: str,
                high_word: str, palette) -> list[str]:
    """A bar of BAR_STEPS shades from the palette's pale end to its dark end, the lowest and
    highest value drawn at its ends and what each end means."""
    step = width / BAR_STEPS
    out = [f'<rect x="{num(x + step * k)}" y="{num(y)}" width="{num(step)}" height="10" '
           f'fill="{shade(k / (BAR_STEPS - 1), palette)}" stroke="none"/>'
           for k in range(BAR_STEPS)]
    out.append(f'<rect x="{num(x)}" y="{num(y)}" width="{num(width)}" height="10" fill="none" '
               f'stroke="#999999" stroke-width="0.5"/>')
    out.append(text(x, y + 24, f"{lo} ({low_word})", anchor="start"))
    out.append(text(x + width, y + 24, f"{hi} ({high_word})", anchor="end"))
    return out


def frame(title: str, width: int, height: int, left: int, top: int, pw: int, ph: int,
           xlabel: str, ylabel: str, ymax: float, sy, ytick=tick,
           xlabel_gap: int = 12, xlabel_y: float | None = None) -> list[str]:
    """Title (wrapped to the width), both axes, their labels and five horizontal grid lines
    with y tick labels. ``xlabel_y`` places the x label (default: xlabel_gap above the bottom)."""
    head, _ = title_lines(width, 20, title)
    body = [*head,
            f'<line x1="{left}" y1="{top + ph}" x2="{left + pw}" y2="{top + ph}" stroke="#000000"/>',
            f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + ph}" stroke="#000000"/>',
            text(left + pw / 2, height - xlabel_gap if xlabel_y is None else xlabel_y, xlabel),
            text(16, top + ph / 2, ylabel, extra=f' transform="rotate(-90 16 {num(top + ph / 2)})"')]
    for k in range(6):
        yv = ymax * k / 5
        body.append(f'<line x1="{left}" y1="{num(sy(yv))}" x2="{left + pw}" y2="{num(sy(yv))}" '
                    f'stroke="#eeeeee"/>')
        body.append(text(left - 6, sy(yv) + 4, ytick(yv), anchor="end"))
    return body


def nice(top: float) -> float:
    """The smallest 1/2/2.5/5 x 10^n step x 5 at or above top, so the 5 ticks are round numbers."""
    base = 10 ** math.floor(math.log10(top / 5))
    return next(m * base * 5 for m in (1, 2, 2.5, 5, 10) if m * base * 5 >= top)


# One marker shape per series (with its colour), so series that share points stay apart and
# the chart reads without colour: circle, square, triangle, diamond; the second four hollow.


MARKERS = ("M-3.5,0a3.5,3.5 0 1,0 7,0a3.5,3.5 0 1,0 -7,0", "M-3,-3h6v6h-6z",
           "M0,-4L3.6,3L-3.6,3z", "M0,-4.2L4.2,0L0,4.2L-4.2,0z")


def mark(tag: str, attrs: str, value: str | None) -> str:
    """A mark (``<tag attrs/>``) carrying its value in words as its SVG <title>: shown on hover,
    and on a tap or click by docs/javascripts/charts.js. Without a value it stays empty."""
    if value is None:
        return f"<{tag} {attrs}/>"
    return f"<{tag} {attrs}><title>{escape(value)}</title></{tag}>"


def marker(idx: int, x: float, y: float, color: str, legend: bool = False,
           value: str | None = None) -> str:
    fill = color if idx % (2 * len(MARKERS)) < len(MARKERS) else "#ffffff"
    tag = 'data-legend="1" ' if legend else ""
    return mark("path", f'{tag}transform="translate({num(x)} {num(y)})" d="{MARKERS[idx % len(MARKERS)]}" '
                        f'fill="{fill}" stroke="{color}" stroke-width="1.5"', value)


def legend_slots(narrow: bool, left: float, pw: float, top: float, ph: float, n: int,
                 bottom_gap: float = 44) -> list[tuple[float, float]]:
    """Where each of n legend entries goes (its marker's x, y): beside the plot, or under it
    (narrow, one entry a line)."""
    if narrow:
        return [(left + 12, top + ph + bottom_gap + 16 * i) for i in range(n)]
    return [(left + pw + 24, top + 16 * i + 8) for i in range(n)]


def decade_ticks(lo: float, hi: float, steps=(1, 2, 5)) -> list[float]:
    """steps x 10^n inside [lo, hi] (Mbit/s): 1, 2, 5 on the full chart, powers of ten on the
    phone's, where 11 px labels of 1000 and 2000 would collide."""
    ticks = []
    for n in range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1):
        for m in steps:
            v = m * 10 ** n
            if lo <= v <= hi:
                ticks.append(v)
    return ticks
