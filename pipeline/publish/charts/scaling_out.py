"""The chart of the Scaling out page: a build's wall time against the number of campaigns in the
tree (make bench, bench/scaling.py): a full build and a build after adding one campaign, each
size's median marked and its fastest-to-slowest runs drawn as a whisker (dim_pipeline_scaling)."""
from __future__ import annotations

import math

from pipeline.publish.charts import Chart, svg

SERIES = (("full build", 0, svg.PALETTE[0]), ("one campaign added", 1, svg.PALETTE[1]))


def x_axis(largest: float) -> tuple[float, float]:
    """(top, step) of the campaigns axis, which starts at 0: the smallest 1/2/5 x 10^n step
    that reaches 5 % past the largest tree in at most 12 steps, so the marks span most of the
    plot and the ticks are whole numbers of campaigns."""
    want = largest * 1.05
    for n in range(0, 7):
        for m in (1, 2, 5):
            step = m * 10 ** n
            if math.ceil(want / step) <= 12:
                return math.ceil(want / step) * step, step
    return want, want


def build_time(con, narrow: bool = False) -> str:
    rows = svg.rows(con, "select campaigns, operation, runs, median_s, min_s, max_s, what_ran "
                         "from dim_pipeline_scaling order by operation, campaigns")
    title = "Build time against the number of campaigns"
    if narrow:
        width, left, right, top, ph = svg.NARROW, 56, 14, 54, 220
        height = int(top + ph + 44 + 16 * len(SERIES) + 4)
    else:
        width, height, left, right, top, bottom = 640, 360, 70, 170, 40, 50
        ph = height - top - bottom
    pw = width - left - right
    xmax, xstep = x_axis(max((r["campaigns"] for r in rows), default=50))
    ymax = svg.nice(max((r["max_s"] for r in rows), default=1.0) or 1.0)
    sx = lambda n: left + pw * n / xmax       # noqa: E731
    sy = lambda y: top + ph - ph * y / ymax   # noqa: E731
    body = svg.frame(title, width, height, left, top, pw, ph, "campaigns in the tree",
                     "wall time of make docs (s)", ymax, sy,
                     xlabel_y=top + ph + 34 if narrow else None)
    for k in range(round(xmax / xstep) + 1):
        t = xstep * k
        body.append(f'<line x1="{svg.num(sx(t))}" y1="{top + ph}" x2="{svg.num(sx(t))}" '
                    f'y2="{top + ph + 4}" stroke="#000000"/>')
        body.append(svg.text(sx(t), top + ph + 16, svg.tick(t)))
    if not rows:
        body.append(svg.text(left + pw / 2, top + ph / 2, "not measured: run make bench"))
    for name, mark, colour in SERIES:
        own = [r for r in rows if r["operation"] == name]
        if not own:
            continue
        body.append(f'<g data-series="{name}">')
        if len(own) > 1:
            line = " ".join(f"{svg.num(sx(r['campaigns']))},{svg.num(sy(r['median_s']))}" for r in own)
            body.append(f'<polyline points="{line}" fill="none" stroke="{colour}" stroke-width="1.5"/>')
        for r in own:
            x = sx(r["campaigns"])
            body.append(f'<line x1="{svg.num(x)}" y1="{svg.num(sy(r["min_s"]))}" x2="{svg.num(x)}" '
                        f'y2="{svg.num(sy(r["max_s"]))}" stroke="{colour}" stroke-width="1"/>')
            ran = f"; {r['what_ran']}" if r["what_ran"] else ""
            body.append(svg.marker(mark, x, sy(r["median_s"]), colour, value=(
                f"{name}, {r['campaigns']} campaigns: median {r['median_s']:.1f} s of "
                f"{r['runs']} runs ({r['min_s']:.1f} to {r['max_s']:.1f} s){ran}")))
        body.append("</g>")
    for (name, mark, colour), (lx, ly) in zip(SERIES, svg.legend_slots(narrow, left, pw, top, ph,
                                                                      len(SERIES))):
        body.append(svg.marker(mark, lx, ly, colour, legend=True))
        body.append(svg.text(lx + 12, ly + 4, name, anchor="start"))
    return svg.document(width, height, title, body)


CHARTS = [
    Chart(name="scaling_build_time", page="scaling-out", file="build-time.svg",
          marts=["dim_pipeline_scaling"], render=build_time,
          narrow=lambda con: build_time(con, narrow=True),
          what="make docs' wall time against the number of campaigns: a full build and one "
               "campaign added (make bench)"),
]
