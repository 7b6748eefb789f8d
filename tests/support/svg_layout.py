"""What makes a chart readable, checked on its SVG without knowing the code that drew it.

``problems(svg)`` lists every rule broken, each in words:
- the canvas: width and height in whole pixels, the viewBox the same, a title, valid attribute
  values (an invalid ``text-anchor`` or colour is silently ignored by a browser);
- every element inside the canvas, and no two labels on top of each other (labels measured at
  ``CHAR_PX`` a character, the generous width the charts wrap with);
- the title: its lines, top down, are the ``<title>`` and are centred on the canvas;
- a heatmap: a label on a cell is centred in that cell;
- a plot framed by two axes: tick labels beside their axis at their grid line, tick values
  evenly spaced (linear from 0, or by decades on a log axis), every data mark inside the frame,
  the legend outside it, the axis labels centred on the frame outside the tick labels, the
  title above it;
- utilisation lanes: the area inside its lane, the percentage ticks at their grid lines left
  of the lane, no label over a lane.
"""
from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET

from pipeline.publish.charts.svg import CHAR_PX

NS = "{http://www.w3.org/2000/svg}"
NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
COLOUR = re.compile(r"#[0-9a-f]{6}|none")
TOL = 0.5


def _is_number(s) -> bool:
    return bool(s) and NUMBER.fullmatch(s) is not None


def text_box(el) -> tuple[float, float, float, float]:
    """(x0, y0, x1, y1) of a text element: CHAR_PX a character, bold or not, 11 px type
    from 8.5 px above its baseline to 2.5 px below, turned by its rotate() if any."""
    x, y = float(el.get("x")), float(el.get("y"))
    w = len(el.text or "") * CHAR_PX
    x0 = {"start": x, "middle": x - w / 2, "end": x - w}[el.get("text-anchor")]
    box = (x0, y - 8.5, x0 + w, y + 2.5)
    m = re.fullmatch(r"\s*rotate\((\S+) (\S+) (\S+)\)\s*", el.get("transform") or "")
    if not m:
        return box
    a, cx, cy = (float(v) for v in m.groups())
    c, s = math.cos(math.radians(a)), math.sin(math.radians(a))
    pts = [(cx + (px - cx) * c - (py - cy) * s, cy + (px - cx) * s + (py - cy) * c)
           for px in (box[0], box[2]) for py in (box[1], box[3])]
    return (min(p[0] for p in pts), min(p[1] for p in pts),
            max(p[0] for p in pts), max(p[1] for p in pts))


def _overlap(a, b, tol=TOL) -> bool:
    return a[0] < b[2] - tol and b[0] < a[2] - tol and a[1] < b[3] - tol and b[1] < a[3] - tol


def _inside(box, area, tol=TOL) -> bool:
    return (box[0] >= area[0] - tol and box[1] >= area[1] - tol and box[2] <= area[2] + tol
            and box[3] <= area[3] + tol)


def _points(s: str) -> list[tuple[float, float]]:
    return [tuple(float(v) for v in p.split(",")) for p in s.split()]


def _centre(el):
    """A marker's centre (its translate), or None."""
    m = re.fullmatch(r"translate\((\S+) (\S+)\)", el.get("transform") or "")
    return (float(m.group(1)), float(m.group(2))) if m else None


def _path_points(el) -> list[tuple[float, float]]:
    """A marker's extent around its centre (translate) or the vertices of an M/L/l/Z path."""
    centre = _centre(el)
    if centre:
        x, y = centre
        return [(x - 4.2, y - 4.2), (x + 4.2, y + 4.2)]
    pts, cmd, nums = [], None, []
    for tok in re.findall(r"[MLlZz]|-?\d+(?:\.\d+)?", el.get("d")):
        if tok in "MLlZz":
            cmd, nums = tok, []
            continue
        nums.append(float(tok))
        if len(nums) == 2:
            if cmd == "l":
                nums = [pts[-1][0] + nums[0], pts[-1][1] + nums[1]]
            pts.append(tuple(nums))
            nums = []
    return pts


def shape_points(el) -> list[tuple[float, float]]:
    tag = el.tag[len(NS):]
    g = lambda k: float(el.get(k, 0))    # noqa: E731
    if tag == "rect":
        return [(g("x"), g("y")), (g("x") + g("width"), g("y") + g("height"))]
    if tag == "line":
        return [(g("x1"), g("y1")), (g("x2"), g("y2"))]
    if tag in ("polyline", "polygon"):
        return _points(el.get("points"))
    if tag == "circle":
        return [(g("cx") - g("r"), g("cy") - g("r")), (g("cx") + g("r"), g("cy") + g("r"))]
    if tag == "path":
        return _path_points(el)
    return []


def _texts(root) -> list[dict]:
    return [{"el": t, "s": t.text or "", "box": text_box(t), "x": float(t.get("x")),
             "y": float(t.get("y")), "anchor": t.get("text-anchor"),
             "bold": t.get("font-weight") == "bold", "rotated": bool(t.get("transform"))}
            for t in root.iter(NS + "text")]


def _canvas(root, out) -> tuple[float, float]:
    w, h = root.get("width"), root.get("height")
    if not (w and h and w.isdigit() and h.isdigit()):
        out.append(f"the canvas size {w!r} x {h!r} is not whole pixels")
        return 0.0, 0.0
    if root.get("viewBox") != f"0 0 {w} {h}":
        out.append(f"viewBox {root.get('viewBox')!r} is not the canvas 0 0 {w} {h}")
    return float(w), float(h)


# every attribute the house style uses (SVG's names are case-sensitive: "FILL" is ignored)
ATTRIBUTES = {"xmlns", "width", "height", "viewBox", "role", "x", "y", "x1", "y1", "x2", "y2",
              "cx", "cy", "r", "d", "points", "transform", "fill", "fill-opacity", "stroke",
              "stroke-width", "stroke-dasharray", "text-anchor", "font-family", "font-size",
              "font-weight", "data-series", "data-legend"}


def _attributes(root, out) -> None:
    for el in root.iter():
        tag = el.tag[len(NS):]
        for k in sorted(set(el.attrib) - ATTRIBUTES):
            out.append(f"<{tag}> has an attribute {k!r} SVG does not know")
        for k in ("fill", "stroke"):
            v = el.get(k)
            if v is not None and not COLOUR.fullmatch(v):
                out.append(f"<{tag}> {k}={v!r} is no colour")
        if tag == "text":
            if el.get("text-anchor") not in ("start", "middle", "end"):
                out.append(f"text {el.text!r}: text-anchor={el.get('text-anchor')!r}")
            if el.get("font-weight") not in (None, "bold"):
                out.append(f"text {el.text!r}: font-weight={el.get('font-weight')!r}")
            if el.get("font-size") != "11":
                out.append(f"text {el.text!r}: font-size={el.get('font-size')!r}, not 11 px")
            t = el.get("transform")
            if t is not None and not re.fullmatch(r"rotate\(-90 \S+ \S+\)", t):
                out.append(f"text {el.text!r}: transform={t!r}")


def _bounds(root, texts, width, height, out) -> None:
    canvas = (0.0, 0.0, width, height)
    for t in texts:
        if not _inside(t["box"], canvas):
            out.append(f"text {t['s']!r} at {t['box']} runs off the {width:g} x {height:g} canvas")
    for el in root.iter():
        for x, y in shape_points(el):
            if not (-TOL <= x <= width + TOL and -TOL <= y <= height + TOL):
                out.append(f"<{el.tag[len(NS):]}> point ({x:g}, {y:g}) is off the canvas")
                break
    for i, a in enumerate(texts):
        for b in texts[i + 1:]:
            if _overlap(a["box"], b["box"]):
                out.append(f"texts {a['s']!r} and {b['s']!r} overlap")


def _title(root, texts, width, out) -> None:
    title = root.find(NS + "title")
    want = title.text if title is not None else None
    if not want:
        out.append("no <title>")
        return
    bold = sorted((t for t in texts if t["bold"]), key=lambda t: t["y"])
    lines = bold[:1]
    for t in bold[1:]:
        if abs(t["y"] - lines[-1]["y"] - 14) > 0.05:
            break
        lines.append(t)
    if " ".join(t["s"] for t in lines) != want:
        out.append(f"the title drawn, {' / '.join(t['s'] for t in lines)!r}, is not {want!r}")
    for t in lines:
        if abs(t["x"] - width / 2) > 0.05 or t["anchor"] != "middle":
            out.append(f"title line {t['s']!r} is not centred on the canvas")


def _cells(root, texts, out) -> None:
    cells = [shape_points(r) for r in root.iter(NS + "rect") if r.get("stroke") == "#ffffff"]
    for (x0, y0), (x1, y1) in cells:
        for t in texts:
            if _overlap(t["box"], (x0, y0, x1, y1), tol=1.0) and not (
                    abs(t["x"] - (x0 + x1) / 2) < 0.06 and abs(t["y"] - ((y0 + y1) / 2 + 4)) < 0.06
                    and t["anchor"] == "middle"):
                out.append(f"text {t['s']!r} lies on the cell at ({x0:g}, {y0:g}) "
                           f"without being its label")


def frame(root):
    """(left, top, right, base) of the plot framed by a black x axis and y axis meeting at its
    bottom left corner, or None."""
    lines = [shape_points(l) for l in root.iter(NS + "line") if l.get("stroke") == "#000000"]
    for (ax, ay), (bx, by) in lines:
        if ay != by or bx <= ax:
            continue
        for (cx, cy), (dx, dy) in lines:
            if cx == dx == ax and max(cy, dy) == ay and min(cy, dy) < ay:
                return ax, min(cy, dy), bx, ay
    return None


def _linear(pairs) -> bool:
    """value = slope x position from 0, one slope for every pair (and more than one pair)."""
    if len(pairs) < 2:
        return False
    nz = [(p, v) for p, v in pairs if abs(p) > 0.05]
    if len(nz) < len(pairs) - 1 or not nz:
        return False
    slopes = [v / p for p, v in nz]
    zero_ok = all(abs(v) < 1e-9 for p, v in pairs if abs(p) <= 0.05)
    return zero_ok and max(slopes) - min(slopes) <= 0.02 * abs(slopes[0]) + 1e-9


def _log_affine(pairs) -> bool:
    pairs = [(p, math.log10(v)) for p, v in pairs if v > 0]
    if len(pairs) < 2:
        return False
    (p0, v0), rest = pairs[0], pairs[1:]
    slopes = [(v - v0) / (p - p0) for p, v in rest if p != p0]
    return len(slopes) == len(rest) and min(slopes) > 0 and \
        max(slopes) - min(slopes) <= 0.02 * slopes[0]


def _framed(root, texts, box, out) -> None:
    left, top, right, base = box
    grid = sorted({float(l.get("y1")) for l in root.iter(NS + "line") if l.get("stroke") == "#eeeeee"})
    for l in root.iter(NS + "line"):
        if l.get("stroke") == "#eeeeee" and (float(l.get("x1")), float(l.get("x2"))) != (left, right):
            out.append(f"grid line at y {l.get('y1')} does not span the plot {left:g}..{right:g}")
    if not grid or grid[0] < top - TOL or grid[-1] > base + TOL:
        out.append(f"the grid lines {grid} are not inside the plot {top:g}..{base:g}")
    yticks = [t for t in texts if t["anchor"] == "end" and _is_number(t["s"]) and not t["rotated"]]
    for t in yticks:
        if not any(abs(t["y"] - 4 - g) < 0.06 for g in grid):
            out.append(f"y tick {t['s']!r} is not at a grid line")
        if t["box"][2] > left + TOL:
            out.append(f"y tick {t['s']!r} reaches into the plot")
    if not _linear([(base - (t["y"] - 4), float(t["s"])) for t in yticks]):
        out.append(f"the y ticks {[t['s'] for t in yticks]} are not evenly spaced from 0")
    xticks = [t for t in texts if t["anchor"] == "middle" and _is_number(t["s"])
              and abs(t["y"] - (base + 16)) < 0.06]
    pairs = [(t["x"] - left, float(t["s"])) for t in xticks]
    if any(not left - TOL <= t["x"] <= right + TOL for t in xticks):
        out.append("an x tick is outside the plot's width")
    if len(pairs) > 1 and not (_linear(pairs) or _log_affine(pairs)):
        out.append(f"the x ticks {[t['s'] for t in xticks]} are not evenly spaced")
    plot = (left, top, right, base)
    for g in root.iter(NS + "g"):
        for el in g:
            if not all(_inside((x, y, x, y), plot, tol=4.3) for x, y in shape_points(el)):
                out.append(f"a mark of {g.get('data-series')!r} is outside the plot")
    for el in [*root.iter(NS + "circle"), *root.iter(NS + "polyline")]:
        if not all(_inside((x, y, x, y), plot, tol=4.3) for x, y in shape_points(el)):
            out.append(f"a <{el.tag[len(NS):]}> of the data is outside the plot")
    # the axes are scaled to the data: its marks spread over most of the plot's width (a log
    # axis pads 8 % each side) and the highest reaches above the plot's middle (a round top
    # tick is at most twice the largest value)
    marks = [m for g in root.iter(NS + "g") for el in g for m in [_centre(el)] if m] + \
        [(float(c.get("cx")), float(c.get("cy"))) for c in root.iter(NS + "circle")]
    xs = {round(x, 1) for x, _ in marks}
    if len(xs) > 1 and max(xs) - min(xs) < 0.8 * (right - left):
        out.append(f"the marks span {min(xs):g}..{max(xs):g} of the plot's {left:g}..{right:g}")
    if marks and base - min(y for _, y in marks) < 0.5 * (base - top) - TOL:
        out.append("the highest mark is below the plot's middle: the y axis is not scaled to it")
    for el in root.iter():
        if el.get("data-legend") or (el.tag == NS + "rect" and el.get("width") == "14"):
            (x0, y0), (x1, y1) = shape_points(el)[0], shape_points(el)[-1]
            if _overlap((x0, y0, x1, y1), plot):
                out.append("a legend mark lies on the plot")
    for t in texts:
        if t["anchor"] == "start" and _overlap(t["box"], plot) and t["el"].get("fill") is None:
            out.append(f"legend text {t['s']!r} lies on the plot")
        if t["bold"] and t["box"][3] > top:
            out.append(f"title line {t['s']!r} reaches the plot")
    rotated = [t for t in texts if t["rotated"]]
    for t in rotated:
        if abs((t["box"][1] + t["box"][3]) / 2 - (top + base) / 2) > TOL:
            out.append(f"the y label {t['s']!r} is not centred on the plot's height")
        if yticks and t["box"][2] > min(y["box"][0] for y in yticks) + TOL:
            out.append(f"the y label {t['s']!r} is not left of the y ticks")
    below = [t for t in texts if t["anchor"] == "middle" and not _is_number(t["s"])
             and t["y"] > base + 20 and t["el"].get("fill") is None]
    if below:
        xlabel = max(below, key=lambda t: t["y"])
        if abs(xlabel["x"] - (left + right) / 2) > 0.06:
            out.append(f"the x label {xlabel['s']!r} is not centred on the plot")
        if xticks and xlabel["box"][1] < max(t["box"][3] for t in xticks) - TOL:
            out.append(f"the x label {xlabel['s']!r} is not under the x ticks")


def _lanes(root, texts, out) -> None:
    grid = sorted({float(l.get("y1")) for l in root.iter(NS + "line") if l.get("stroke") == "#dddddd"})
    spans = {(float(l.get("x1")), float(l.get("x2"))) for l in root.iter(NS + "line")
             if l.get("stroke") == "#dddddd"}
    polys = list(root.iter(NS + "polygon"))
    if not polys:
        return
    if len(spans) != 1 or len(grid) != 3 * len(polys):
        out.append(f"{len(polys)} lanes but grid lines at {grid}")
        return
    (left, right), = spans
    for k, poly in enumerate(polys):
        top, mid, base = grid[3 * k: 3 * k + 3]
        if abs(mid - (top + base) / 2) > 0.06:
            out.append(f"lane {k}: the 50 % line is not half way up")
        lane = (left, top, right, base)
        if not all(_inside((x, y, x, y), lane) for x, y in _points(poly.get("points"))):
            out.append(f"lane {k}: the area leaves its lane")
        for t in texts:
            if _overlap(t["box"], lane):
                out.append(f"text {t['s']!r} lies on lane {k}")
        for share, y in ((0, base), (50, mid), (100, top)):
            if not any(t["s"] == f"{share} %" and abs(t["y"] - 4 - y) < 0.06 and t["anchor"] == "end"
                       and t["box"][2] <= left + TOL for t in texts):
                out.append(f"lane {k}: no '{share} %' tick left of the lane at its grid line")


def problems(svg: str) -> list[str]:
    root = ET.fromstring(svg)
    out: list[str] = []
    width, height = _canvas(root, out)
    _attributes(root, out)
    texts = _texts(root)
    _bounds(root, texts, width, height, out)
    _title(root, texts, width, out)
    _cells(root, texts, out)
    box = frame(root)
    if box:
        _framed(root, texts, box, out)
    _lanes(root, texts, out)
    return out
