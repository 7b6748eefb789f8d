"""The feasibility heatmap of the Ethernet Bandwidth Math page: which token rate each
parallelism scheme can sustain on each Ethernet class, a cell per (model, scheme, rate) and
class, coloured by its feasibility class (the phone variant lists the cells per row)."""
from __future__ import annotations

import math

from pipeline.publish.charts import Chart, svg

# Feasibility classes in their declared order (dim_feasibility_thresholds.sort_order): pale
# tints of green / amber / red so the black percentage stays readable on every cell.
CLASS_FILLS = ["#c7e9c0", "#fee391", "#fcae91"]


def _feasibility_cell(c, x, y, cw, ch) -> list[str]:
    what = None if c is None else (
        f"{c['model_label']}, {c['scheme_label']}, batch {c['batch_size']}, "
        f"{c['tokens_per_s']:g} tok/s per sequence on {c['link_label']}: ")
    # A missing cell is unfilled with text in the page's ink; a class's cell keeps black text
    # on its own light fill in either palette (docs/javascripts/charts.js).
    if c is None or c["usable_share_fraction"] is None:
        fill, label, ink = "none", "—", ""
        what = what and what + "not computed"
    else:
        fill = CLASS_FILLS[min(c["feasibility_sort_order"], len(CLASS_FILLS)) - 1]
        label, ink = f"{c['usable_share_fraction'] * 100:.1f} %", ' fill="#000000"'
        what += f"{label} of the usable rate ({c['feasibility_label']})"
    w = cw if isinstance(cw, int) else svg.num(cw)
    return [svg.mark("rect", f'x="{svg.num(x)}" y="{svg.num(y)}" width="{w}" height="{ch}" '
                             f'fill="{fill}" stroke="#ffffff"', what),
            svg.text(x + cw / 2, y + ch / 2 + 4, label, extra=ink)]


def _feasibility_legend(classes, x, y, step) -> list[str]:
    body = []
    for k in classes:
        color = CLASS_FILLS[min(k["sort_order"], len(CLASS_FILLS)) - 1]
        body.append(f'<rect x="{svg.num(x)}" y="{svg.num(y)}" width="14" height="10" fill="{color}" '
                    f'stroke="#999999" stroke-width="0.5"/>')
        body.append(svg.text(x + 20, y + 9, k["label"], anchor="start"))
        x += step
    return body


def _feasibility_narrow(cells, classes, row_keys, rates, links, by_key, title) -> str:
    """The phone layout: one block per token rate, one column per link class, each model's
    name on its own line above its scheme x batch rows."""
    width, left, ch = svg.NARROW, 92, 22
    cw = (width - left - 8) / max(len(links), 1)
    body, y = svg.title_lines(width, 18, title)
    y += 22
    body += _feasibility_legend(classes, 12, y - 9, 100)
    y += 16
    body.append(svg.text(12, y, "cell text: % of the usable rate", anchor="start", extra=' fill="#555555"'))
    for t in rates:
        y += 30
        body.append(svg.text(width / 2, y, f"{t:g} tok/s per sequence", extra=' font-weight="bold"'))
        y += 16
        body += [svg.text(left + cw * j + cw / 2, y, l) for j, l in enumerate(links)]
        y += 8
        prev = None
        for key in row_keys:
            if key[0] != prev:
                lines = svg.wrap(key[0], width - 16)
                y += 8
                for line in lines:
                    y += 13
                    body.append(svg.text(8, y, line, anchor="start", extra=' font-weight="bold"'))
                y += 5
                prev = key[0]
            body.append(svg.text(left - 8, y + ch / 2 + 4, f"{key[1]}, batch {key[2]}", anchor="end"))
            for j, l in enumerate(links):
                body += _feasibility_cell(by_key.get((key, (t, l))), left + cw * j, y, cw, ch)
            y += ch
    return svg.document(width, int(y + 16), title, body)


def feasibility_heatmap(con, narrow: bool = False) -> str:
    """Rows: model x scheme x batch. Columns: token rate, then link class within it (one chart,
    one column group per token rate, so every rate is on the page without a file per rate)."""
    cells = svg.rows(con, "select model, model_label, model_sort_order, scheme, scheme_label, "
                       "batch_size, tokens_per_s, link_class, link_label, link_sort_order, "
                       "usable_share_fraction, feasibility_label, feasibility_sort_order "
                       "from fct_link_feasibility "
                       "order by model_sort_order, scheme, batch_size, tokens_per_s, link_sort_order")
    classes = svg.rows(con, "select label, sort_order from dim_feasibility_thresholds order by sort_order")
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
    header_px = max((len(f"{t:g} tok/s per sequence") * svg.CHAR_PX for t in rates), default=0.0)
    cw = max(66, math.ceil((header_px + 8) / max(len(links), 1)))
    ch, left, top, group_gap = 22, 260, 78, 12
    note = "cell text: % of the usable rate"
    lx = left + 110 * len(classes)
    width = max(left + cw * len(col_keys) + group_gap * max(len(rates) - 1, 0) + 20,
                math.ceil(lx + 10 + len(note) * svg.CHAR_PX + 8))
    body = [svg.text(width / 2, 18, title, extra=' font-weight="bold"')]
    col_x = {}
    for j, (t, l) in enumerate(col_keys):
        col_x[(t, l)] = left + cw * j + group_gap * rates.index(t)
    for t in rates:
        xs = [col_x[(t, l)] for l in links]
        body.append(svg.text((xs[0] + xs[-1] + cw) / 2, top - 30, f"{t:g} tok/s per sequence",
                          extra=' font-weight="bold"'))
        body += [svg.text(x + cw / 2, top - 10, l) for x, l in zip(xs, links)]
    body.append(svg.text(left - 8, top - 10, "model, scheme, batch", anchor="end",
                      extra=' font-weight="bold"'))
    y = top
    prev = None
    for key in row_keys:
        if prev is not None and key[:2] != prev[:2]:
            y += 16
        prev = key
        body.append(svg.text(left - 8, y + ch / 2 + 4, f"{key[0]}, {key[1]}, batch {key[2]}", anchor="end"))
        for ck in col_keys:
            body += _feasibility_cell(by_key.get((key, ck)), col_x[ck], y, cw, ch)
        y += ch
    body += _feasibility_legend(classes, left, y + 22, 110)
    body.append(svg.text(lx + 10, y + 31, note, anchor="start",
                      extra=' fill="#555555"'))
    return svg.document(width, int(y + 50), title, body)


CHARTS = [
    Chart(name="ebm_feasibility_heatmap", page="ethernet-bandwidth-math", file="feasibility-heatmap.svg",
          marts=["fct_link_feasibility", "dim_feasibility_thresholds"], render=feasibility_heatmap,
          narrow=lambda con: feasibility_heatmap(con, narrow=True),
          what="which token rate each parallelism scheme can sustain on each Ethernet class"),
]
