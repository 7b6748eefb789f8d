"""The lab validation chart of Ethernet Bandwidth Math: each real llama.cpp RPC run's measured
prefill throughput against its link's TCP rate, beside what the model calibrated on one run
predicts for it (fct_lab_rpc_validation). Log-scale rate axis, so an unshaped veth run and a
50 Mbit/s run both fit; measured points filled, predicted hollow and joined, one colour per
series (house style of ``point_to_point``)."""
from __future__ import annotations

import math
from html import escape

from pipeline.publish.charts import Chart, svg

MEASURED_MARK, PREDICTED_MARK = 0, 4      # filled circle; hollow circle (svg.MARKERS order)


def validation(con, quantity: str, title: str, ylabel: str, scale: float = 1.0,
               narrow: bool = False) -> str:
    """Measured and predicted ``quantity`` (times ``scale``) of each run against its rate."""
    rows = [dict(r, measured=None if r["measured"] is None else r["measured"] * scale,
                 predicted=None if r["predicted"] is None else r["predicted"] * scale)
            for r in svg.rows(con, "select series, campaign, quantity, tcp_bits_per_s, measured, "
                                "predicted from fct_lab_rpc_validation where tcp_bits_per_s is "
                                "not null order by series, tcp_bits_per_s, campaign")
            if r["quantity"] == quantity]
    entries = 2 * len(dict.fromkeys(r["series"] for r in rows))
    if narrow:
        width, left, right, top, ph = svg.NARROW, 56, 14, 54, 240
        height = int(top + ph + 44 + 16 * entries + 4)
    else:
        width, height, left, right, top, bottom = 700, 400, 70, 210, 40, 50
        ph = height - top - bottom
    pw = width - left - right
    rates = [r["tcp_bits_per_s"] / 1e6 for r in rows] or [10.0, 1000.0]
    lo, hi = math.log10(min(rates)), math.log10(max(rates))
    pad = (hi - lo) * 0.08 or 0.5
    lo, hi = lo - pad, hi + pad
    ys = [v for r in rows for v in (r["measured"], r["predicted"]) if v is not None]
    ymax = svg.nice(max(ys, default=1.0) or 1.0)
    sx = lambda mbit: left + pw * (math.log10(mbit) - lo) / (hi - lo)   # noqa: E731
    sy = lambda y: top + ph - ph * y / ymax                            # noqa: E731
    body = svg.frame(title, width, height, left, top, pw, ph,
                  "link TCP rate, iperf3 (Mbit/s, log scale)", ylabel, ymax, sy,
                  xlabel_y=top + ph + 34 if narrow else None)
    slots = iter(svg.legend_slots(narrow, left, pw, top, ph, entries))
    for t in svg.decade_ticks(10 ** lo, 10 ** hi, (1,) if narrow else (1, 2, 5)):
        body.append(f'<line x1="{svg.num(sx(t))}" y1="{top + ph}" x2="{svg.num(sx(t))}" y2="{top + ph + 4}" '
                    f'stroke="#000000"/>')
        body.append(svg.text(sx(t), top + ph + 16, f"{t:g}"))
    for idx, series in enumerate(dict.fromkeys(r["series"] for r in rows)):
        color = svg.PALETTE[idx % len(svg.PALETTE)]
        srows = [r for r in rows if r["series"] == series]
        for kind, mark in (("predicted", PREDICTED_MARK), ("measured", MEASURED_MARK)):
            name = f"{kind}, {series}"
            body.append(f'<g data-series="{escape(name)}">')
            points = [r for r in srows if r[kind] is not None]
            xy = [(sx(r["tcp_bits_per_s"] / 1e6), sy(r[kind])) for r in points]
            if kind == "predicted" and len(points) > 1:
                path = " ".join(f"{svg.num(x)},{svg.num(y)}" for x, y in xy)
                body.append(f'<polyline points="{path}" fill="none" stroke="{color}" '
                            f'stroke-width="1.5" stroke-dasharray="4 3"/>')
            body += [svg.marker(mark, x, y, color, value=(
                f"{kind}, {r['campaign']}: {r[kind]:.4g} ({ylabel}) on a "
                f"{r['tcp_bits_per_s'] / 1e6:.4g} Mbit/s TCP link")) for (x, y), r in zip(xy, points)]
            body.append("</g>")
            lx, ly = next(slots)
            body.append(svg.marker(mark, lx, ly, color, legend=True))
            body.append(svg.text(lx + 12, ly + 4, name, anchor="start"))
    return svg.document(width, height, title, body)


def prefill_validation(con, narrow: bool = False) -> str:
    return validation(con, "prefill", "Prefill on real llama.cpp RPC runs: measured and predicted",
                      "prefill (tok/s)", narrow=narrow)


def decode_validation(con, narrow: bool = False) -> str:
    return validation(con, "decode step", "Decode step on real llama.cpp RPC runs: measured and "
                      "predicted", "decode step (ms)", 1e3, narrow)


def snapshot_validation(con, narrow: bool = False) -> str:
    return validation(con, "KV snapshot", "KV snapshot on real llama.cpp RPC runs: measured and "
                      "predicted", "KV snapshot (ms)", 1e3, narrow)


CHARTS = [
    Chart(name="ebm_lab_validation_prefill", page="ethernet-bandwidth-math",
          file="lab-validation-prefill.svg", marts=["fct_lab_rpc_validation"],
          render=prefill_validation,
          narrow=lambda con: prefill_validation(con, narrow=True),
          what="measured prefill of each real llama.cpp RPC lab run beside the model's prediction"),
    Chart(name="ebm_lab_validation_decode", page="ethernet-bandwidth-math",
          file="lab-validation-decode.svg", marts=["fct_lab_rpc_validation"],
          render=decode_validation,
          narrow=lambda con: decode_validation(con, narrow=True),
          what="measured decode step of each lab run beside the model's prediction"),
    Chart(name="ebm_lab_validation_snapshot", page="ethernet-bandwidth-math",
          file="lab-validation-snapshot.svg", marts=["fct_lab_rpc_validation"],
          render=snapshot_validation,
          narrow=lambda con: snapshot_validation(con, narrow=True),
          what="measured KV snapshot duration of each lab run beside the model's prediction"),
]
