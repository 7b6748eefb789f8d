"""Charts of the Ethernet Bandwidth Math page: link utilisation at 50 Hz, prefill against
link speed, and the feasibility heatmap.

Hand-built SVG in the house style of ``point_to_point`` (no plotting dependency, fixed
decimals, rows in SQL order, no ids or timestamps), so the bytes only change with the data.
Each chart draws every campaign it finds (one panel each), so the file list stays static
while campaigns come and go.
"""
from __future__ import annotations

import math

from pipeline.publish.charts import Chart
from pipeline.publish.charts.labels import Placer
from pipeline.publish.charts.point_to_point import CHAR_PX, NARROW, _f, _frame, _nice, _rows, _svg, _text, _title, _wrap

HEAD, WORKER, MEASURED = "#1f77b4", "#ff7f0e", "#d62728"
WINDOW_FILL = "#f2f2f2"
# Feasibility classes in their declared order (dim_feasibility_thresholds.sort_order): pale
# tints of green / amber / red so the black percentage stays readable on every cell.
CLASS_FILLS = ["#c7e9c0", "#fee391", "#fcae91"]
ZOOM_UBATCHES = 4  # the prefill close-up spans this many ubatches, enough to see the rhythm


# ------------------------------------------------------------------------------ shared pieces
def _path(points: list[tuple[float, float]]) -> str:
    """Points as a polyline string at 0.1 px, dropping repeats and the middle of flat runs
    (the idle stretches between bursts), which keeps a 1700-interval lane to a few KB."""
    out: list[tuple[str, str]] = []
    for x, y in points:
        p = (_f(x), _f(y))
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
        body.append(f'<rect x="{_f(x)}" y="{_f(ly - 8)}" width="14" height="10" fill="{color}"/>')
        body.append(_text(x + 20, ly + 1, label, anchor="start"))
    return body


# --------------------------------------------------------------------- 50 Hz utilisation lanes
def _lane(rows, x0, x1, left, top, pw, ph, color, label, window_s, narrow=False) -> list[str]:
    """One host's transmit rate (% of its negotiated line rate) as a filled step area; its
    label right of it, or (narrow) above its top left corner."""
    sx = lambda x: left + pw * (x - x0) / (x1 - x0)        # noqa: E731
    sy = lambda v: top + ph - ph * min(max(v, 0.0), 1.0)    # noqa: E731
    body = [f'<rect x="{_f(sx(max(0.0, x0)))}" y="{top}" width="{_f(sx(min(window_s, x1)) - sx(max(0.0, x0)))}" '
            f'height="{ph}" fill="{WINDOW_FILL}"/>']
    for v in (0.0, 0.5, 1.0):
        body.append(f'<line x1="{left}" y1="{_f(sy(v))}" x2="{left + pw}" y2="{_f(sy(v))}" '
                    f'stroke="#dddddd"/>')
        body.append(_text(left - 6, sy(v) + 4, f"{v * 100:.0f} %", anchor="end"))
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
        body.append(_text(left + 4, top - 4, label, anchor="start"))
    else:
        body.append(_text(left + pw + 8, top + ph / 2 + 4, label, anchor="start"))
    return body


def _axis(x0, x1, left, y, pw, label, narrow=False) -> tuple[list[str], float]:
    """Ticks and the axis label under a lane (the label wrapped when narrow); returns the
    elements and the height they take under y."""
    step = _step(x1 - x0)
    if narrow:
        step = _step((x1 - x0) * 2)                 # half as many ticks: 11 px labels fit
    lines = _wrap(label, pw + 40) if narrow else [label]
    body = [_text(left + pw / 2, y + 30 + 13 * i, line) for i, line in enumerate(lines)]
    k = math.ceil(x0 / step)
    while k * step <= x1 + 1e-9:
        x = left + pw * (k * step - x0) / (x1 - x0)
        body.append(f'<line x1="{_f(x)}" y1="{y}" x2="{_f(x)}" y2="{y + 4}" stroke="#000000"/>')
        body.append(_text(x, y + 16, f"{k * step:g}"))
        k += 1
    return body, 40 + 13 * (len(lines) - 1)


def utilisation(con, window_kind: str, title: str, narrow: bool = False) -> str:
    rows = _rows(con, f"select u.*, k.head_host, k.worker_host, k.model_name, "
                      f"k.ubatch_tokens / k.prefill_tokens_per_s as ubatch_s, l.label as link_label "
                      f"from fct_netdev_utilisation as u "
                      f"join fct_deployment_constants as k on k.campaign = u.campaign "
                      f"left join fct_deployment_links as l "
                      f"on l.campaign = u.campaign and l.link_id = u.link_id "
                      f"where u.window_kind = '{window_kind}' order by u.campaign, u.host, u.start_s")
    campaigns = list(dict.fromkeys(r["campaign"] for r in rows))
    if narrow:
        width, left, lane_h, gap = NARROW, 56, 60, 26
        pw = width - left - 14
        body, y_title = _title(width, 20, title)
        top = y_title + 30
    else:
        width, left, pw, lane_h, gap = 900, 70, 660, 70, 18
        body = [_text(width / 2, 20, title, extra=' font-weight="bold"')]
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
        lines = _wrap(caption, width - 24) if narrow else [caption]
        for i, line in enumerate(lines):
            body.append(_text(12 if narrow else left, top + 10 + 13 * i, line, anchor="start"))
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
        body.append(_text(width / 2, height / 2, "no measured window in the data"))
        return _svg(width, height, title, body)
    height = int(top)
    if narrow:      # no room for a label up the side: it goes under the title
        body.append(_text(width / 2, y_title + 16, "lanes: transmit rate, % of negotiated line rate",
                          extra=' fill="#555555"'))
    else:
        body.append(_text(16, height / 2, "transmit rate, % of negotiated line rate",
                          extra=f' transform="rotate(-90 16 {_f(height / 2)})"'))
    return _svg(width, height, title, body)


def prefill_utilisation(con, narrow: bool = False) -> str:
    return utilisation(con, "prefill", "Link utilisation at 50 Hz during the measured prefill "
                                        "(one burst per ubatch)", narrow)


def snapshot_utilisation(con, narrow: bool = False) -> str:
    return utilisation(con, "kv_snapshot", "Link utilisation at 50 Hz during the KV snapshot "
                                           "(worker -> head copy)", narrow)


# ------------------------------------------------------------------ prefill against link speed
def prefill_vs_link(con, narrow: bool = False) -> str:
    rows = _rows(con, "select campaign, link_label, line_rate_bits_per_s, is_measured, "
                      "predicted_tokens_per_s, measured_tokens_per_s "
                      "from fct_prefill_what_if order by campaign, sort_order")
    campaigns = list(dict.fromkeys(r["campaign"] for r in rows))
    title = "Predicted prefill throughput against link speed"
    if narrow:
        width, left, right, top, ph = NARROW, 56, 14, 40, 240
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
    ymax = _nice(max(ys, default=1.0) or 1.0)
    sx = lambda b: left + pw * (math.log10(b) - lo) / (hi - lo)   # noqa: E731
    sy = lambda y: top + ph - ph * y / ymax                        # noqa: E731
    body = _frame(title, width, height, left, top, pw, ph, "link line rate (Gbit/s, log scale)",
                  "prefill (tok/s)", ymax, sy, xlabel_gap=10,
                  xlabel_y=top + ph + 46)
    labels = {}
    for r in rows:
        labels.setdefault(r["line_rate_bits_per_s"], r["link_label"])
    for b, label in sorted(labels.items()):
        body.append(f'<line x1="{_f(sx(b))}" y1="{top + ph}" x2="{_f(sx(b))}" y2="{top + ph + 4}" '
                    f'stroke="#000000"/>')
        body.append(_text(sx(b), top + ph + 16, f"{b / 1e9:g}"))
        body.append(_text(sx(b), top + ph + 29, label, extra=' fill="#555555"'))
    legend = []
    # the value labels of several campaigns take turns: a later one moves to its next place
    # rather than covering an earlier one or the tick labels under the plot
    labels = Placer([(0.0, top + ph, width, height)])
    for i, c in enumerate(campaigns):
        crows = [r for r in rows if r["campaign"] == c]
        predicted = [r for r in crows if r["predicted_tokens_per_s"] is not None]
        color = ["#1f77b4", "#2ca02c", "#9467bd", "#8c564b"][i % 4]
        if len(predicted) > 1:
            pts = " ".join(f"{_f(sx(r['line_rate_bits_per_s']))},{_f(sy(r['predicted_tokens_per_s']))}"
                           for r in predicted)
            body.append(f'<polyline points="{pts}" fill="none" stroke="{color}" stroke-width="2"/>')
        for r in predicted:
            x, y = sx(r["line_rate_bits_per_s"]), sy(r["predicted_tokens_per_s"])
            body.append(f'<circle cx="{_f(x)}" cy="{_f(y)}" r="4" fill="{color}"/>')
            value = f"{r['predicted_tokens_per_s']:.0f}"
            lx, ly, anchor = labels.place(value, [(x, y - 10, "middle"), (x, y + 18, "middle")])
            body.append(_text(lx, ly, value, anchor=anchor))
        for r in crows:
            if r["is_measured"] and r["measured_tokens_per_s"] is not None:
                x, y = sx(r["line_rate_bits_per_s"]), sy(r["measured_tokens_per_s"])
                body.append(f'<path d="M {_f(x)} {_f(y - 8)} L {_f(x + 8)} {_f(y)} L {_f(x)} {_f(y + 8)} '
                            f'L {_f(x - 8)} {_f(y)} Z" fill="none" stroke="{MEASURED}" stroke-width="2"/>')
                note = f"measured {r['measured_tokens_per_s']:.1f}"
                # right of the mark, or left of it when that would run past the plot's edge;
                # under it, or a line lower, or above it, whichever is free
                fits = x + 12 + len(note) * CHAR_PX <= width - 4
                nx, anchor = (x + 12, "start") if fits else (x - 12, "end")
                _, ny, _ = labels.place(note, [(nx, y + dy, anchor) for dy in (18, 31, -12)])
                body.append(_text(nx, ny, note, anchor=anchor, extra=f' fill="{MEASURED}"'))
        legend.append((color, f"predicted, {c}"))
    lx = 12 if narrow else left + pw + 16
    body += _legend(lx, legend_top, legend)
    my = legend_top - 10 + 16 * len(legend)
    body.append(f'<path d="M {_f(lx + 7)} {_f(my + 2)} l 6 6 l -6 6 l -6 -6 Z" '
                f'fill="none" stroke="{MEASURED}" stroke-width="2"/>')
    body.append(_text(lx + 20, my + 12, "measured (journal)", anchor="start"))
    return _svg(width, height, title, body)


# ----------------------------------------------------------------------- feasibility heatmap
def _feasibility_cell(c, x, y, cw, ch) -> list[str]:
    # A missing cell is unfilled with text in the page's ink; a class's cell keeps black text
    # on its own light fill in either palette (docs/javascripts/charts.js).
    if c is None or c["usable_share_fraction"] is None:
        fill, label, ink = "none", "—", ""
    else:
        fill = CLASS_FILLS[min(c["feasibility_sort_order"], len(CLASS_FILLS)) - 1]
        label, ink = f"{c['usable_share_fraction'] * 100:.1f} %", ' fill="#000000"'
    w = cw if isinstance(cw, int) else _f(cw)
    return [f'<rect x="{_f(x)}" y="{_f(y)}" width="{w}" height="{ch}" fill="{fill}" '
            f'stroke="#ffffff"/>', _text(x + cw / 2, y + ch / 2 + 4, label, extra=ink)]


def _feasibility_legend(classes, x, y, step) -> list[str]:
    body = []
    for k in classes:
        color = CLASS_FILLS[min(k["sort_order"], len(CLASS_FILLS)) - 1]
        body.append(f'<rect x="{_f(x)}" y="{_f(y)}" width="14" height="10" fill="{color}" '
                    f'stroke="#999999" stroke-width="0.5"/>')
        body.append(_text(x + 20, y + 9, k["label"], anchor="start"))
        x += step
    return body


def _feasibility_narrow(cells, classes, row_keys, rates, links, by_key, title) -> str:
    """The phone layout: one block per token rate, one column per link class, each model's
    name on its own line above its scheme x batch rows."""
    width, left, ch = NARROW, 92, 22
    cw = (width - left - 8) / max(len(links), 1)
    body, y = _title(width, 18, title)
    y += 22
    body += _feasibility_legend(classes, 12, y - 9, 100)
    y += 16
    body.append(_text(12, y, "cell text: % of the usable rate", anchor="start", extra=' fill="#555555"'))
    for t in rates:
        y += 30
        body.append(_text(width / 2, y, f"{t:g} tok/s per sequence", extra=' font-weight="bold"'))
        y += 16
        body += [_text(left + cw * j + cw / 2, y, l) for j, l in enumerate(links)]
        y += 8
        prev = None
        for key in row_keys:
            if key[0] != prev:
                lines = _wrap(key[0], width - 16)
                y += 8
                for line in lines:
                    y += 13
                    body.append(_text(8, y, line, anchor="start", extra=' font-weight="bold"'))
                y += 5
                prev = key[0]
            body.append(_text(left - 8, y + ch / 2 + 4, f"{key[1]}, batch {key[2]}", anchor="end"))
            for j, l in enumerate(links):
                body += _feasibility_cell(by_key.get((key, (t, l))), left + cw * j, y, cw, ch)
            y += ch
    return _svg(width, int(y + 16), title, body)


def feasibility_heatmap(con, narrow: bool = False) -> str:
    """Rows: model x scheme x batch. Columns: token rate, then link class within it (one chart,
    one column group per token rate, so every rate is on the page without a file per rate)."""
    cells = _rows(con, "select model, model_label, model_sort_order, scheme, scheme_label, "
                       "batch_size, tokens_per_s, link_class, link_label, link_sort_order, "
                       "usable_share_fraction, feasibility_label, feasibility_sort_order "
                       "from fct_link_feasibility "
                       "order by model_sort_order, scheme, batch_size, tokens_per_s, link_sort_order")
    classes = _rows(con, "select label, sort_order from dim_feasibility_thresholds order by sort_order")
    row_keys = list(dict.fromkeys((c["model_label"], c["scheme_label"], c["batch_size"]) for c in cells))
    rates = sorted({c["tokens_per_s"] for c in cells})
    links = [l for _, l in sorted({(c["link_sort_order"], c["link_label"]) for c in cells})]
    col_keys = [(t, l) for t in rates for l in links]
    by_key = {((c["model_label"], c["scheme_label"], c["batch_size"]), (c["tokens_per_s"], c["link_label"])): c
              for c in cells}
    title = "Feasibility: share of the link's usable TCP rate each workload needs"
    if narrow:
        return _feasibility_narrow(cells, classes, row_keys, rates, links, by_key, title)
    # a column is 66 px, wider when a rate's header would not fit over its few columns
    header_px = max((len(f"{t:g} tok/s per sequence") * CHAR_PX for t in rates), default=0.0)
    cw = max(66, math.ceil((header_px + 8) / max(len(links), 1)))
    ch, left, top, group_gap = 22, 260, 78, 12
    note = "cell text: % of the usable rate"
    lx = left + 110 * len(classes)
    width = max(left + cw * len(col_keys) + group_gap * max(len(rates) - 1, 0) + 20,
                math.ceil(lx + 10 + len(note) * CHAR_PX + 8))
    body = [_text(width / 2, 18, title, extra=' font-weight="bold"')]
    col_x = {}
    for j, (t, l) in enumerate(col_keys):
        col_x[(t, l)] = left + cw * j + group_gap * rates.index(t)
    for t in rates:
        xs = [col_x[(t, l)] for l in links]
        body.append(_text((xs[0] + xs[-1] + cw) / 2, top - 30, f"{t:g} tok/s per sequence",
                          extra=' font-weight="bold"'))
        body += [_text(x + cw / 2, top - 10, l) for x, l in zip(xs, links)]
    body.append(_text(left - 8, top - 10, "model, scheme, batch", anchor="end",
                      extra=' font-weight="bold"'))
    y = top
    prev = None
    for key in row_keys:
        if prev is not None and key[:2] != prev[:2]:
            y += 16
        prev = key
        body.append(_text(left - 8, y + ch / 2 + 4, f"{key[0]}, {key[1]}, batch {key[2]}", anchor="end"))
        for ck in col_keys:
            body += _feasibility_cell(by_key.get((key, ck)), col_x[ck], y, cw, ch)
        y += ch
    body += _feasibility_legend(classes, left, y + 22, 110)
    body.append(_text(lx + 10, y + 31, note, anchor="start",
                      extra=' fill="#555555"'))
    return _svg(width, int(y + 50), title, body)


CHARTS = [
    Chart(name="ebm_prefill_utilisation", page="deployment", file="prefill-utilisation.svg",
          marts=["fct_netdev_utilisation", "fct_deployment_constants", "fct_deployment_links"],
          render=prefill_utilisation,
          narrow=lambda con: prefill_utilisation(con, narrow=True),
          what="the link's utilisation at 50 Hz during the measured prefill, against its line rate"),
    Chart(name="ebm_snapshot_utilisation", page="deployment", file="snapshot-utilisation.svg",
          marts=["fct_netdev_utilisation", "fct_deployment_constants", "fct_deployment_links"],
          render=snapshot_utilisation,
          narrow=lambda con: snapshot_utilisation(con, narrow=True),
          what="the link's utilisation at 50 Hz during the KV snapshot transfer"),
    Chart(name="ebm_prefill_vs_link", page="deployment", file="prefill-vs-link-speed.svg",
          marts=["fct_prefill_what_if"], render=prefill_vs_link,
          narrow=lambda con: prefill_vs_link(con, narrow=True),
          what="the prefill time predicted on each Ethernet class beside the measured one"),
    Chart(name="ebm_feasibility_heatmap", page="ethernet-bandwidth-math", file="feasibility-heatmap.svg",
          marts=["fct_link_feasibility", "dim_feasibility_thresholds"], render=feasibility_heatmap,
          narrow=lambda con: feasibility_heatmap(con, narrow=True),
          what="which token rate each parallelism scheme can sustain on each Ethernet class"),
]
