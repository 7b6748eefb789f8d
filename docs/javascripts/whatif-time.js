/* "Your setup", prefill and decode: what a link does to the time of a measured setup, answered in
   the browser from the CSVs the page publishes beside itself.

   Two kinds of anchor, each with its own model and the condition it holds for:
   - a measured deployment (fct_prefill_what_if, fct_decode_what_if, fct_kv_snapshot_what_if:
     the copy at the share of the usable rate it reached when measured): the additive model of those
     marts, anchored on the deployment's measured compute. It puts every wire byte after the
     compute, so what it gives is the most a link change can buy or cost; the true figure lies
     between the measured one and it. The same order of operations as the marts' SQL, so every
     row of both marts comes out with its own numbers (the browser test checks each).
   - a lab series whose corrected model met the publishing targets (fct_lab_series_fit): the
     fitted prefill and decode step at a TCP rate, with the range from its validation, only inside
     the span of rates it was calibrated on (fct_lab_series_validation's formula).
   The link is the one of the page's form: a class, or a line rate (its TCP payload share as the
   classes') and an optional RTT. Every text from the CSVs is set as text, never as markup. When
   loaded, <html data-whatif-time="ready">. */
(function () {
  "use strict";

  var TABLES = ["fct_prefill_what_if", "fct_decode_what_if", "fct_kv_snapshot_what_if", "fct_lab_series_fit",
                "fct_lab_series_campaigns", "dim_link_classes"];
  var ANY = "__any__";
  var shared = window.interconnectPage || {};
  var fmt = shared.fmt, rate = shared.rate, el = shared.el, num = shared.num, load = shared.load;

  function $(id) { return document.getElementById(id); }
  function rows(t, name, campaign) { return t[name].filter(function (r) { return r.campaign === campaign; }); }

  /* The link of a query: {usableBytesPerS, label, linkClass}; q.linkClass, q.lineRateBitsPerS or
     (a lab rate as its page gives it) q.tcpBitsPerS, the TCP rate itself. */
  function link(t, q) {
    if (q.tcpBitsPerS > 0) return { usableBytesPerS: q.tcpBitsPerS / 8, label: rate(q.tcpBitsPerS) + " TCP link", linkClass: null };
    if (q.linkClass) {
      var c = t.dim_link_classes.filter(function (l) { return l.link_class === q.linkClass; })[0];
      return c ? { usableBytesPerS: num(c.usable_bits_per_s) / 8, label: c.label, linkClass: c.link_class } : null;
    }
    if (!(q.lineRateBitsPerS > 0)) return null;
    var share = num(t.dim_link_classes[0].usable_fraction);
    return { usableBytesPerS: q.lineRateBitsPerS * share / 8, label: rate(q.lineRateBitsPerS) + " link", linkClass: null };
  }

  /* A measured deployment: fct_prefill_what_if's and fct_decode_what_if's formulas. */
  function deployment(t, q) {
    var pre = rows(t, "fct_prefill_what_if", q.campaign), dec = rows(t, "fct_decode_what_if", q.campaign);
    var l = link(t, q), out = { link: l, prefill: null, decode: null, snapshot: null };
    var s0 = rows(t, "fct_kv_snapshot_what_if", q.campaign).filter(function (r) { return r.is_measured === "True"; })[0];
    if (l && s0 && num(s0.efficiency_vs_usable_fraction) !== null) {
      var copied = num(s0.copied_bytes), eff = num(s0.efficiency_vs_usable_fraction);
      out.snapshot = { copiedBytes: copied, efficiency: eff, durationS: copied / (eff * l.usableBytesPerS),
                       measuredS: num(s0.duration_s) };
    }
    var p0 = pre.filter(function (r) { return r.is_measured === "True"; })[0];
    if (l && p0) {
      var ubatch = num(p0.ubatch_tokens), bytes = num(p0.ubatch_bytes), residual = num(p0.residual_s);
      var wire = bytes / l.usableBytesPerS, total = residual + wire;
      var measuredPred = ubatch / (residual + bytes / num(p0.usable_bytes_per_s));
      out.prefill = {
        residualS: residual, ubatchBytes: bytes, ubatchTokens: ubatch, wireS: wire, totalS: total,
        tokensPerS: ubatch / total, measuredTokensPerS: num(p0.measured_tokens_per_s),
        gainFraction: (ubatch / total) / measuredPred - 1, anchor: p0
      };
    }
    var d0 = dec.filter(function (r) { return r.is_measured === "True"; })[0];
    if (l && d0 && num(d0.compute_s) !== null) {
      var rttS = q.rttS, basis = "yours";
      if (rttS === null && l.linkClass) {
        var row = dec.filter(function (r) { return r.link_class === l.linkClass; })[0];
        rttS = row ? num(row.rtt_s) : null;
        basis = row ? row.rtt_basis : "not measured";
      }
      if (rttS !== null) {
        var stepBytes = num(d0.step_wire_bytes), compute = num(d0.compute_s), perStep = num(d0.tokens_per_step);
        var net = rttS + stepBytes / l.usableBytesPerS;
        var measuredNet = num(d0.rtt_s) + stepBytes / num(d0.usable_bytes_per_s);
        out.decode = {
          rttS: rttS, rttBasis: basis, stepBytes: stepBytes, computeS: compute, netS: net,
          tokensPerStep: perStep, tokensPerS: perStep / (compute + net),
          measuredTokensPerS: num(d0.measured_tokens_per_s),
          gainFraction: (perStep / (compute + net)) / (perStep / (compute + measuredNet)) - 1, anchor: d0
        };
      }
    }
    return out;
  }

  /* A lab series' corrected model at the link's TCP rate, with its range (h of its fit). */
  function lab(t, q) {
    var l = link(t, q), camp = rows(t, "fct_lab_series_campaigns", q.campaign)[0], out = { link: l };
    rows(t, "fct_lab_series_fit", q.campaign).filter(function (f) {
      return f.model === "corrected" && (f.quantity === "prefill" || f.quantity === "decode step");
    }).forEach(function (f) {
      if (!l) return;
      var bits = l.usableBytesPerS * 8, x = 1 / l.usableBytesPerS;
      var knee = num(f.knee_bits_per_s), h = num(f.range_fraction);
      var timeS = num(f.intercept_s) + num(f.slope_bytes) * x +
        (knee ? num(f.knee_slope_bytes) * Math.max(x - 8 / knee, 0) : 0);
      var inside = bits >= num(f.calibrated_min_bits_per_s) * (1 - 1e-9) && bits <= num(f.calibrated_max_bits_per_s) * (1 + 1e-9);
      var tokens = f.quantity === "prefill" ? num(q.tokens || camp.prompt_tokens) : 1;
      out[f.quantity === "prefill" ? "prefill" : "decode"] = {
        timeS: timeS, rangeFraction: h, insideSpan: inside, meetsTargets: f.meets_targets === "True",
        tokensPerS: tokens / timeS,
        lowTokensPerS: h === null ? null : tokens / (timeS * (1 + h)),
        highTokensPerS: h === null ? null : tokens / (timeS * (1 - h)), fit: f
      };
    });
    return out;
  }

  // ------------------------------------------------------------------------------ rendering
  function pct(f) { return (f >= 0 ? "+" : "−") + fmt(Math.abs(f) * 100, 1) + " %"; }
  function tps(x) { return fmt(x, x >= 100 ? 0 : 2) + " tok/s"; }

  function query() {
    var any = $("whatif-link").value === ANY, anchor = $("whatif-anchor").value.split(":");
    var rtt = num($("whatif-rtt").value), gbit = num($("whatif-gbit").value);
    return {
      kind: anchor[0], campaign: anchor.slice(1).join(":"),
      linkClass: any ? null : $("whatif-link").value,
      lineRateBitsPerS: any && gbit !== null ? gbit * 1e9 : null, rttS: rtt ? rtt / 1000 : null
    };
  }

  function render(t) {
    var q = query(), out = $("whatif-time-answer"), lines = [];
    out.textContent = "";
    if (!q.campaign) { out.appendChild(el("p", "No measured setup to start from.")); return; }
    var r = q.kind === "lab" ? lab(t, q) : deployment(t, q);
    if (!r.link) { out.appendChild(el("p", "Give the link's line rate in Gbit/s.")); return; }
    if (q.kind === "lab") {
      ["prefill", "decode"].forEach(function (k) {
        var v = r[k];
        if (!v) return;
        var what = k === "prefill" ? "Prefill" : "Decode";
        var p = el("p");
        if (!v.insideSpan || v.rangeFraction === null || !v.meetsTargets) {
          p.textContent = what + ": not predicted on a " + r.link.label + ": " + (!v.insideSpan ?
            "its TCP rate lies outside the rates this model was validated on (" + rate(num(v.fit.calibrated_min_bits_per_s)) + " to " + rate(num(v.fit.calibrated_max_bits_per_s)) + ")."
            : "this model has no validated range.");
        } else {
          p.appendChild(el("strong", what + " " + tps(v.tokensPerS)));
          p.appendChild(document.createTextNode(" (range " + tps(v.lowTokensPerS) + " to " + tps(v.highTokensPerS) +
            ", ±" + fmt(v.rangeFraction * 100, 1) + " % of the time) on a " + r.link.label + "."));
        }
        out.appendChild(p);
        lines.push(k + " time = a " + fmt(num(v.fit.intercept_s), 4) + " s + S " + fmt(num(v.fit.slope_bytes), 0) + " B / rate" +
          (num(v.fit.knee_slope_bytes) ? " + K " + fmt(num(v.fit.knee_slope_bytes), 0) + " B × max(0, 1 / rate − 1 / knee " + rate(num(v.fit.knee_bits_per_s)) + ")" : "") +
          " = " + fmt(v.timeS, 4) + " s at " + rate(r.link.usableBytesPerS * 8) + " TCP");
      });
      out.appendChild(el("p", "The lab series' own model, split and cores (its page says which), one request at a time; the range holds a rate's median run."));
    } else {
      var pr = r.prefill, de = r.decode, p2 = el("p");
      if (pr) {
        p2.appendChild(el("strong", "Prefill up to " + tps(pr.tokensPerS) + " (" + pct(pr.gainFraction) + ")"));
        p2.appendChild(document.createTextNode(" against " + tps(pr.measuredTokensPerS) + " measured"));
        lines.push("prefill: " + fmt(pr.ubatchTokens, 0) + " positions / (residual " + fmt(pr.residualS, 4) + " s + " + fmt(pr.ubatchBytes, 0) +
          " B / " + rate(r.link.usableBytesPerS * 8) + " = " + fmt(pr.wireS, 4) + " s) = " + tps(pr.tokensPerS));
      } else p2.appendChild(document.createTextNode("Prefill: not measured on this deployment"));
      if (de) {
        p2.appendChild(document.createTextNode("; "));
        p2.appendChild(el("strong", "decode up to " + tps(de.tokensPerS) + " (" + pct(de.gainFraction) + ")"));
        p2.appendChild(document.createTextNode(" against " + tps(de.measuredTokensPerS) + " measured, with an RTT of " +
          fmt(de.rttS * 1000, 3) + " ms (" + de.rttBasis + ")"));
        lines.push("decode: " + fmt(de.tokensPerStep, 3) + " tokens / (compute " + fmt(de.computeS, 4) + " s + RTT " + fmt(de.rttS * 1000, 3) + " ms + " +
          fmt(de.stepBytes, 0) + " B / " + rate(r.link.usableBytesPerS * 8) + ") = " + tps(de.tokensPerS));
      } else p2.appendChild(document.createTextNode("; decode: not predicted (give the link's RTT, or the deployment's decode was not measured)"));
      p2.appendChild(document.createTextNode(" on a " + r.link.label + "."));
      out.appendChild(p2);
      var sn = r.snapshot;
      if (sn) {
        out.appendChild(el("p", "A KV snapshot blocks its slot for " + fmt(sn.durationS, 2) + " s (" + fmt(sn.measuredS, 2) +
          " s measured): the copy at the " + fmt(sn.efficiency * 100, 1) + " % of the usable rate it reached when measured."));
        lines.push("snapshot: " + fmt(sn.copiedBytes, 0) + " B / (" + fmt(sn.efficiency, 4) + " × " + rate(r.link.usableBytesPerS * 8) + ") = " + fmt(sn.durationS, 3) + " s");
      }
      var a = pr ? pr.anchor : (de ? de.anchor : null);
      if (a) out.appendChild(el("p", "\u201cUp to\u201d: every wire byte after the compute, so the change lies between nothing and this. It holds for " +
        q.campaign + "'s workload (" + fmt(num(a.parallel_slots), 0) + " parallel slot(s)" +
        (pr ? ", a " + fmt(num(pr.anchor.prefill_tokens), 0) + "-token prompt in micro-batches of " + fmt(pr.ubatchTokens, 0) : "") + ")" +
        (a.provenance === "reconstructed" ? ", on a reconstructed deployment (its files were written from a hand-made page)" : "") + "."));
    }
    var pre = el("pre"); pre.appendChild(el("code", lines.join("\n")));
    $("whatif-time-formula").textContent = "";
    $("whatif-time-formula").appendChild(pre);
  }

  function start() {
    var form = $("whatif"), select = $("whatif-anchor");
    if (!form || !select || !shared.csv) return;
    Promise.all(TABLES.map(load)).then(function (loaded) {
      var t = {};
      TABLES.forEach(function (n, i) { t[n] = loaded[i]; });
      var seen = {};
      t.fct_prefill_what_if.concat(t.fct_decode_what_if).forEach(function (r) {
        if (r.is_measured !== "True" || seen["deployment:" + r.campaign]) return;
        seen["deployment:" + r.campaign] = true;
        var o = el("option", r.campaign + " (measured deployment, " + r.link_label + ")"); o.value = "deployment:" + r.campaign;
        select.appendChild(o);
      });
      t.fct_lab_series_fit.forEach(function (f) {
        if (f.model !== "corrected" || f.quantity !== "prefill" || f.meets_targets !== "True") return;
        var camp = rows(t, "fct_lab_series_campaigns", f.campaign)[0], workers = camp ? num(camp.workers) : 1;
        var o = el("option", f.campaign + (workers > 1 ? " (lab series over " + workers + " workers, every hop at the rate, validated model)"
                                                       : " (lab series, validated model)"));
        o.value = "lab:" + f.campaign;
        select.appendChild(o);
      });
      form.addEventListener("input", function () { render(t); });
      form.addEventListener("change", function () { render(t); });
      window.interconnectWhatIfTime = {
        deployment: function (q) { return deployment(t, q); },
        lab: function (q) { return lab(t, q); }
      };
      render(t);
      document.documentElement.dataset.whatifTime = "ready";
    }).catch(function (e) {
      $("whatif-time-answer").textContent = "The measured setups could not be loaded (" + e.message + "): each deployment's page gives its own what-if.";
      document.documentElement.dataset.whatifTime = "failed";
    });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
