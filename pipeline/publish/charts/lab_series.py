"""The charts of a lab series page: for each quantity, every rate's runs as a spread (min-max
whisker, IQR bar, median mark: a square where the model was calibrated, a hollow circle where it
was only validated) against the link's TCP rate on a log axis, with the corrected model's
prediction and its range drawn through them (fct_lab_series_validation)."""
from __future__ import annotations

import math

from pipeline.publish.charts import Chart, svg

MODEL_COLOUR, RUNS_COLOUR = svg.PALETTE[1], svg.PALETTE[0]
CALIBRATION_MARK, VALIDATION_MARK = 1, 4        # filled square; hollow circle (svg.MARKERS)


def _model_text(r: dict, scale: float) -> str:
    """The model's prediction for a rate in words; its range only when there is one (a series
    with no rate between two calibration rates has none)."""
    if r["predicted"] is None:
        return "no model prediction"
    if r["predicted_low"] is None or r["predicted_high"] is None:
        return f"model {r['predicted'] * scale:.4g} (no range: no rate was left out)"
    return (f"model {r['predicted'] * scale:.4g} ({r['predicted_low'] * scale:.4g} to "
            f"{r['predicted_high'] * scale:.4g})")


def spread(con, quantity: str, title: str, ylabel: str, scale: float = 1.0,
           narrow: bool = False) -> str:
    rows = svg.rows(con, "select v.link_id, v.tcp_bits_per_s, v.role, v.runs, v.measured, r.q1, "
                         "r.q3, r.min, r.max, v.predicted, v.predicted_low, v.predicted_high "
                         "from fct_lab_series_validation as v join fct_lab_series_rates as r "
                         "using (campaign, link_id, quantity) "
                         f"where v.quantity = '{quantity}' and v.model = 'corrected' "
                         "and v.tcp_bits_per_s is not null order by v.tcp_bits_per_s")
    if narrow:
        width, left, right, top, ph = svg.NARROW, 56, 14, 54, 240
        height = int(top + ph + 44 + 16 * 3 + 4)
    else:
        width, height, left, right, top, bottom = 700, 400, 70, 200, 40, 50
        ph = height - top - bottom
    pw = width - left - right
    rates = [r["tcp_bits_per_s"] / 1e6 for r in rows] or [10.0, 1000.0]
    lo, hi = math.log10(min(rates)), math.log10(max(rates))
    pad = (hi - lo) * 0.06 or 0.5
    lo, hi = lo - pad, hi + pad
    ys = [r[k] * scale for r in rows for k in ("max", "predicted_high", "predicted_low", "min")
          if r[k] is not None]
    ymax = svg.nice(max(ys, default=1.0) or 1.0)
    sx = lambda mbit: left + pw * (math.log10(mbit) - lo) / (hi - lo)   # noqa: E731
    sy = lambda y: top + ph - ph * y * scale / ymax                    # noqa: E731
    body = svg.frame(title, width, height, left, top, pw, ph,
                     "link TCP rate, iperf3 (Mbit/s, log scale)", ylabel, ymax,
                     lambda y: top + ph - ph * y / ymax, xlabel_y=top + ph + 34 if narrow else None)
    for t in svg.decade_ticks(10 ** lo, 10 ** hi, (1,) if narrow else (1, 2, 5)):
        body.append(f'<line x1="{svg.num(sx(t))}" y1="{top + ph}" x2="{svg.num(sx(t))}" '
                    f'y2="{top + ph + 4}" stroke="#000000"/>')
        body.append(svg.text(sx(t), top + ph + 16, f"{t:g}"))
    band = [r for r in rows if r["predicted_low"] is not None and r["predicted_high"] is not None]
    if len(band) > 1:
        edge = ([(sx(r["tcp_bits_per_s"] / 1e6), sy(r["predicted_high"])) for r in band]
                + [(sx(r["tcp_bits_per_s"] / 1e6), sy(r["predicted_low"])) for r in reversed(band)])
        # a closed path, not a polygon (a polygon is a utilisation lane in this house)
        body.append(f'<path data-series="model range" d="M'
                    + " L".join(f"{svg.num(x)},{svg.num(y)}" for x, y in edge)
                    + f' Z" fill="{MODEL_COLOUR}" fill-opacity="0.15" stroke="none"/>')
        line = " ".join(f"{svg.num(sx(r['tcp_bits_per_s'] / 1e6))},{svg.num(sy(r['predicted']))}"
                        for r in band)
        body.append(f'<polyline data-series="model" points="{line}" fill="none" '
                    f'stroke="{MODEL_COLOUR}" stroke-width="1.5" stroke-dasharray="4 3"/>')
    body.append('<g data-series="runs">')
    for r in rows:
        x = sx(r["tcp_bits_per_s"] / 1e6)
        body.append(f'<line x1="{svg.num(x)}" y1="{svg.num(sy(r["min"]))}" x2="{svg.num(x)}" '
                    f'y2="{svg.num(sy(r["max"]))}" stroke="{RUNS_COLOUR}" stroke-width="1"/>')
        body.append(svg.mark("rect", f'x="{svg.num(x - 4)}" y="{svg.num(sy(r["q3"]))}" width="8" '
                             f'height="{svg.num(max(sy(r["q1"]) - sy(r["q3"]), 1))}" '
                             f'fill="{RUNS_COLOUR}" fill-opacity="0.35" stroke="{RUNS_COLOUR}"',
                             f"{r['runs']} runs at {r['tcp_bits_per_s'] / 1e6:.4g} Mbit/s: "
                             f"quartiles {r['q1'] * scale:.4g} to {r['q3'] * scale:.4g}, "
                             f"min {r['min'] * scale:.4g}, max {r['max'] * scale:.4g} ({ylabel})"))
        mark = CALIBRATION_MARK if r["role"] == "calibration" else VALIDATION_MARK
        body.append(svg.marker(mark, x, sy(r["measured"]), RUNS_COLOUR, value=(
            f"median of {r['runs']} runs at {r['tcp_bits_per_s'] / 1e6:.4g} Mbit/s "
            f"({r['role']}): {r['measured'] * scale:.4g}; {_model_text(r, scale)} ({ylabel})")))
    body.append("</g>")
    legend = [("median, calibration rate", CALIBRATION_MARK, RUNS_COLOUR),
              ("median, validated rate", VALIDATION_MARK, RUNS_COLOUR),
              ("corrected model and range", None, MODEL_COLOUR)]
    for (name, mark, colour), (lx, ly) in zip(legend, svg.legend_slots(narrow, left, pw, top, ph, 3)):
        if mark is None:
            body.append(f'<line data-legend="1" x1="{svg.num(lx - 6)}" y1="{svg.num(ly)}" '
                        f'x2="{svg.num(lx + 6)}" y2="{svg.num(ly)}" stroke="{colour}" '
                        f'stroke-width="1.5" stroke-dasharray="4 3"/>')
        else:
            body.append(svg.marker(mark, lx, ly, colour, legend=True))
        body.append(svg.text(lx + 12, ly + 4, name, anchor="start"))
    return svg.document(width, height, title, body)


def prefill(con, narrow: bool = False) -> str:
    return spread(con, "prefill", "Prefill at each rate: the runs' spread and the corrected model",
                  "prefill (tok/s)", narrow=narrow)


def decode(con, narrow: bool = False) -> str:
    return spread(con, "decode step", "Decode step at each rate: the runs' spread and the model",
                  "decode step (ms)", 1e3, narrow)


def snapshot(con, narrow: bool = False) -> str:
    return spread(con, "KV snapshot", "KV snapshot at each rate: the runs' spread and the model",
                  "KV snapshot (ms)", 1e3, narrow)


MARTS = ["fct_lab_series_validation", "fct_lab_series_rates"]
CHARTS = [
    Chart(name="lab_series_prefill", page="lab-series", file="prefill-spread.svg", marts=MARTS,
          render=prefill, narrow=lambda con: prefill(con, narrow=True),
          what="each rate's prefill runs (median, quartiles, extremes) and the corrected model"),
    Chart(name="lab_series_decode", page="lab-series", file="decode-spread.svg", marts=MARTS,
          render=decode, narrow=lambda con: decode(con, narrow=True),
          what="each rate's decode step runs and the model"),
    Chart(name="lab_series_snapshot", page="lab-series", file="snapshot-spread.svg", marts=MARTS,
          render=snapshot, narrow=lambda con: snapshot(con, narrow=True),
          what="each rate's KV snapshot runs and the model"),
]
