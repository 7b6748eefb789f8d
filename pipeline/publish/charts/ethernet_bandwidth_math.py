"""Charts of the Ethernet Bandwidth Math page: link utilisation at the captures' rate, prefill against
link speed (the feasibility heatmap: feasibility.py).

Hand-built SVG in the house style of ``point_to_point`` (no plotting dependency, fixed
decimals, rows in SQL order, no ids or timestamps), so the bytes only change with the data.
Each chart draws every campaign it finds (one panel each), so the file list stays static
while campaigns come and go.
"""
from __future__ import annotations

import math
import statistics

from pipeline.publish.charts import Chart, svg
from pipeline.publish.charts.labels import Placer

HEAD, WORKER, MEASURED = "#1f77b4", "#ff7f0e", "#d62728"
WINDOW_FILL = "#f2f2f2"
ZOOM_UBATCHES = 4  # the prefill close-up spans this many ubatches, enough to see the rhythm


# ------------------------------------------------------------------------------ shared pieces
def _path(points: list[tuple[float, float]]) -> str:
    """Points as a polyline string at 0.1 px, dropping repeats and the middle of flat runs
    (the idle stretches between bursts), which keeps a 1700-interval lane to a few KB."""
    out: list[tuple[str, str]] = []
    for x, y in points:
        p = (svg.num(x), svg.num(y))
        if out and out[-1] == p:
            continue
        if len(out) >= 2 and out[-1][1] == p[1] == out[-2][1]:
            out[-1] = p
            continue
        out.append(p)
    return " ".join(f"{x},{y}" for x, y in out)


def _step(x: float) -> float:
    """A round tick step (1/2/5 x 10^n) giving at most ~10 ticks over a span of x."""
    base = 10 ** math.floor(math.log10(x / 10)) if x > 0 else 1
    return next(m * base for m in (1, 2, 5, 10) if x / (m * base) <= 10)


def _legend(x: float, y: float, items: list[tuple[str, str]]) -> list[str]:
    body = []
    for i, (color, label) in enumerate(items):
        ly = y + 16 * i
        body.append(f'<rect x="{svg.num(x)}" y="{svg.num(ly - 8)}" width="14" height="10" fill="{color}"/>')
        body.append(svg.text(x + 20, ly + 1, label, anchor="start"))
    return body


# ------------------------------------------------------------------------ utilisation lanes
def _lane(rows, x0, x1, left, top, pw, ph, color, label, window_s, narrow=False) -> list[str]:
    """One host's transmit rate (% of its shaped, else negotiated, rate) as a filled step area; its
    label right of it, or (narrow) above its top left corner."""
    sx = lambda x: left + pw * (x - x0) / (x1 - x0)        # noqa: E731
    sy = lambda v: top + ph - ph * min(max(v, 0.0), 1.0)    # noqa: E731
    body = [f'<rect x="{svg.num(sx(max(0.0, x0)))}" y="{top}" width="{svg.num(sx(min(window_s, x1)) - sx(max(0.0, x0)))}" '
            f'height="{ph}" fill="{WINDOW_FILL}"/>']
    for v in (0.0, 0.5, 1.0):
        body.append(f'<line x1="{left}" y1="{svg.num(sy(v))}" x2="{left + pw}" y2="{svg.num(sy(v))}" '
                    f'stroke="#dddddd"/>')
        body.append(svg.text(left - 6, sy(v) + 4, f"{v * 100:.0f} %", anchor="end"))
    pts = [(sx(x0), sy(0))]
    for r in rows:
        if r["end_s"] <= x0 or r["start_s"] >= x1:
            continue
        v = r["tx_line_rate_fraction"] or 0.0
        pts += [(sx(max(r["start_s"], x0)), sy(v)), (sx(min(r["end_s"], x1)), sy(v))]
    pts.append((pts[-1][0], sy(0)))
    body.append(f'<polygon points="{_path(pts)}" fill="{color}" fill-opacity="0.85" '
                f'stroke="{color}" stroke-width="0.6"/>')
    body.append(f'<line x1="{left}" y1="{top + ph}" x2="{left + pw}" y2="{top + ph}" stroke="#000000"/>')
    if narrow:
        body.append(svg.text(left + 4, top - 4, label, anchor="start"))
    else:
        body.append(svg.text(left + pw + 8, top + ph / 2 + 4, label, anchor="start"))
    return body


def _axis(x0, x1, left, y, pw, label, narrow=False) -> tuple[list[str], float]:
    """Ticks and the axis label under a lane (the label wrapped when narrow); returns the
    elements and the height they take under y."""
    step = _step(x1 - x0)
    if narrow:
        step = _step((x1 - x0) * 2)                 # half as many ticks: 11 px labels fit
    lines = svg.wrap(label, pw + 40) if narrow else [label]
    body = [svg.text(left + pw / 2, y + 30 + 13 * i, line) for i, line in enumerate(lines)]
    k = math.ceil(x0 / step)
    while k * step <= x1 + 1e-9:
        x = left + pw * (k * step - x0) / (x1 - x0)
        body.append(f'<line x1="{svg.num(x)}" y1="{y}" x2="{svg.num(x)}" y2="{y + 4}" stroke="#000000"/>')
        body.append(svg.text(x, y + 16, f"{k * step:g}"))
        k += 1
    return body, 40 + 13 * (len(lines) - 1)


def utilisation(con, window_kind: str, title: str, narrow: bool = False) -> str:
    rows = svg.rows(con, f"select u.*, k.head_host, k.worker_host, k.model_name, "
                      f"k.ubatch_tokens / k.prefill_tokens_per_s as ubatch_s, l.label as link_label "
                      f"from fct_netdev_utilisation as u "
                      f"join fct_deployment_constants as k on k.campaign = u.campaign "
                      f"left join fct_deployment_links as l "
                      f"on l.campaign = u.campaign and l.link_id = u.link_id "
                      f"where u.window_kind = '{window_kind}' order by u.campaign, u.host, u.start_s")
    campaigns = list(dict.fromkeys(r["campaign"] for r in rows))
    # the captures' own sampling rate, 1 / the median interval drawn (not an assumed 50 Hz)
    intervals = [r["end_s"] - r["start_s"] for r in rows if r["end_s"] > r["start_s"]]
    hz = 1 / statistics.median(intervals) if intervals else None
    title = title.format(rate=f" at {hz:.0f} Hz" if hz else "")
    if narrow:
        width, left, lane_h, gap = svg.NARROW, 56, 60, 26
        pw = width - left - 14
        body, y_title = svg.title_lines(width, 20, title)
        top = y_title + 30
    else:
        width, left, pw, lane_h, gap = 900, 70, 660, 70, 18
        body = [svg.text(width / 2, 20, title, extra=' font-weight="bold"')]
        top = 36
    zoom = window_kind == "prefill"
    for c in campaigns:
        crows = [r for r in rows if r["campaign"] == c]
        first = crows[0]
        head = [r for r in crows if r["host"] == first["head_host"]]
        worker = [r for r in crows if r["host"] == first["worker_host"]]
        x0 = min(r["start_s"] for r in crows)
        x1 = max(r["end_s"] for r in crows)
        caption = (f"{first['model_name']} ({c}), {first['link_label'] or first['link_id']} "
                   f"link, interface {first['interface']}; shaded: the measured window")
        lines = svg.wrap(caption, width - 24) if narrow else [caption]
        for i, line in enumerate(lines):
            body.append(svg.text(12 if narrow else left, top + 10 + 13 * i, line, anchor="start"))
        top += 13 * (len(lines) - 1) + (10 if narrow else 0)
        spans = [(x0, x1, f"seconds since the {window_kind.replace('_', ' ')} started")]
        if zoom and first["ubatch_s"]:
            spans.append((0.0, ZOOM_UBATCHES * first["ubatch_s"],
                          f"close-up: the first {ZOOM_UBATCHES} ubatches ({first['ubatch_s'] * 1e3:.0f} ms each), "
                          f"seconds since the prefill started"))
        y = top + 24
        for a, b, label in spans:
            body += _lane(head, a, b, left, y, pw, lane_h, HEAD,
                          f"head ({first['head_host']}) tx", first["window_s"], narrow)
            y += lane_h + gap
            body += _lane(worker, a, b, left, y, pw, lane_h, WORKER,
                          f"worker ({first['worker_host']}) tx", first["window_s"], narrow)
            ticks, used = _axis(a, b, left, y + lane_h, pw, label, narrow)
            body += ticks
            y += lane_h + gap + used
        top = y + 10
    if not campaigns:
        height = int(top + 40)
        body.append(svg.text(width / 2, height / 2, "no measured window in the data"))
        return svg.document(width, height, title, body)
    height = int(top)
    if narrow:      # no room for a label up the side: it goes under the title
        body.append(svg.text(width / 2, y_title + 16, "lanes: transmit rate, % of link rate",
                          extra=' fill="#555555"'))
    else:
        body.append(svg.text(16, height / 2, "transmit rate, % of the link's rate",
                          extra=f' transform="rotate(-90 16 {svg.num(height / 2)})"'))
    return svg.document(width, height, title, body)


def prefill_utilisation(con, narrow: bool = False) -> str:
    return utilisation(con, "prefill", "Link utilisation{rate} during the measured prefill "
                                        "(one burst per ubatch)", narrow)


def snapshot_utilisation(con, narrow: bool = False) -> str:
    return utilisation(con, "kv_snapshot", "Link utilisation{rate} during the KV snapshot "
                                           "(worker -> head copy)", narrow)


# ------------------------------------------------------------------ prefill against link speed
def prefill_vs_link(con, narrow: bool = False) -> str:
    rows = svg.rows(con, "select campaign, link_label, line_rate_bits_per_s, is_measured, "
                      "predicted_tokens_per_s, measured_tokens_per_s "
                      "from fct_prefill_what_if order by campaign, sort_order")
    campaigns = list(dict.fromkeys(r["campaign"] for r in rows))
    title = "Predicted prefill throughput against link speed"
    if narrow:
        width, left, right, top, ph = svg.NARROW, 56, 14, 40, 240
        legend_top = top + ph + 56
        height = int(legend_top + 16 * (len(campaigns) + 1) + 4)
    else:
        width, height, left, right, top, bottom = 700, 400, 70, 200, 40, 56
        ph = height - top - bottom
        legend_top = top + 10
    pw = width - left - right
    rates = sorted({r["line_rate_bits_per_s"] for r in rows}) or [1e9, 1e10]
    lo, hi = math.log10(rates[0]), math.log10(rates[-1])
    pad = (hi - lo) * 0.08 or 0.5
    lo, hi = lo - pad, hi + pad
    # a missing prediction or measurement is not drawn (never a neighbour's value in its place)
    ys = [v for r in rows for v in (r["predicted_tokens_per_s"], r["measured_tokens_per_s"])
          if v is not None]
    ymax = svg.nice(max(ys, default=1.0) or 1.0)
    sx = lambda b: left + pw * (math.log10(b) - lo) / (hi - lo)   # noqa: E731
    sy = lambda y: top + ph - ph * y / ymax                        # noqa: E731
    body = svg.frame(title, width, height, left, top, pw, ph, "link line rate (Gbit/s, log scale)",
                  "prefill (tok/s)", ymax, sy, xlabel_gap=10,
                  xlabel_y=top + ph + 46)
    labels = {}
    for r in rows:
        labels.setdefault(r["line_rate_bits_per_s"], r["link_label"])
    for b, label in sorted(labels.items()):
        body.append(f'<line x1="{svg.num(sx(b))}" y1="{top + ph}" x2="{svg.num(sx(b))}" y2="{top + ph + 4}" '
                    f'stroke="#000000"/>')
        body.append(svg.text(sx(b), top + ph + 16, f"{b / 1e9:g}"))
        body.append(svg.text(sx(b), top + ph + 29, label, extra=' fill="#555555"'))
    legend = []
    # the value labels of several campaigns take turns: a later one moves to its next place
    # rather than covering an earlier one or the tick labels under the plot
    labels = Placer([(0.0, top + ph, width, height)])
    for i, c in enumerate(campaigns):
        crows = [r for r in rows if r["campaign"] == c]
        predicted = [r for r in crows if r["predicted_tokens_per_s"] is not None]
        color = ["#1f77b4", "#2ca02c", "#9467bd", "#8c564b"][i % 4]
        if len(predicted) > 1:
            pts = " ".join(f"{svg.num(sx(r['line_rate_bits_per_s']))},{svg.num(sy(r['predicted_tokens_per_s']))}"
                           for r in predicted)
            body.append(f'<polyline points="{pts}" fill="none" stroke="{color}" stroke-width="2"/>')
        for r in predicted:
            x, y = sx(r["line_rate_bits_per_s"]), sy(r["predicted_tokens_per_s"])
            body.append(f'<circle cx="{svg.num(x)}" cy="{svg.num(y)}" r="4" fill="{color}"/>')
            value = f"{r['predicted_tokens_per_s']:.0f}"
            lx, ly, anchor = labels.place(value, [(x, y - 10, "middle"), (x, y + 18, "middle")])
            body.append(svg.text(lx, ly, value, anchor=anchor))
        for r in crows:
            if r["is_measured"] and r["measured_tokens_per_s"] is not None:
                x, y = sx(r["line_rate_bits_per_s"]), sy(r["measured_tokens_per_s"])
                body.append(f'<path d="M {svg.num(x)} {svg.num(y - 8)} L {svg.num(x + 8)} {svg.num(y)} L {svg.num(x)} {svg.num(y + 8)} '
                            f'L {svg.num(x - 8)} {svg.num(y)} Z" fill="none" stroke="{MEASURED}" stroke-width="2"/>')
                note = f"measured {r['measured_tokens_per_s']:.1f}"
                # right of the mark, or left of it when that would run past the plot's edge;
                # under it, or a line lower, or above it, whichever is free
                fits = x + 12 + len(note) * svg.CHAR_PX <= width - 4
                nx, anchor = (x + 12, "start") if fits else (x - 12, "end")
                _, ny, _ = labels.place(note, [(nx, y + dy, anchor) for dy in (18, 31, -12)])
                body.append(svg.text(nx, ny, note, anchor=anchor, extra=f' fill="{MEASURED}"'))
        legend.append((color, f"predicted, {c}"))
    lx = 12 if narrow else left + pw + 16
    body += _legend(lx, legend_top, legend)
    my = legend_top - 10 + 16 * len(legend)
    body.append(f'<path d="M {svg.num(lx + 7)} {svg.num(my + 2)} l 6 6 l -6 6 l -6 -6 Z" '
                f'fill="none" stroke="{MEASURED}" stroke-width="2"/>')
    body.append(svg.text(lx + 20, my + 12, "measured (journal)", anchor="start"))
    return svg.document(width, height, title, body)


CHARTS = [
    Chart(name="ebm_prefill_utilisation", page="deployment", file="prefill-utilisation.svg",
          marts=["fct_netdev_utilisation", "fct_deployment_constants", "fct_deployment_links"],
          render=prefill_utilisation,
          narrow=lambda con: prefill_utilisation(con, narrow=True),
          what="the link's utilisation, at the captures' sampling rate, during the measured prefill, against its line rate"),
    Chart(name="ebm_snapshot_utilisation", page="deployment", file="snapshot-utilisation.svg",
          marts=["fct_netdev_utilisation", "fct_deployment_constants", "fct_deployment_links"],
          render=snapshot_utilisation,
          narrow=lambda con: snapshot_utilisation(con, narrow=True),
          what="the link's utilisation, at the captures' sampling rate, during the KV snapshot transfer"),
    Chart(name="ebm_prefill_vs_link", page="deployment", file="prefill-vs-link-speed.svg",
          marts=["fct_prefill_what_if"], render=prefill_vs_link,
          narrow=lambda con: prefill_vs_link(con, narrow=True),
          what="the prefill time predicted on each Ethernet class beside the measured one"),
]
