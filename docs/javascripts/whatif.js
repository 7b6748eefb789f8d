/* "Your setup": the reader's own model, workload and link, answered in the browser.

   Reads the parameters the page publishes as CSV beside itself (data/<table>.csv: the model
   shapes, activation dtypes, link classes, feasibility thresholds and parallelism parameters of
   the warehouse) and applies the formulas of sql/marts/fct_bytes_per_token.sql,
   fct_bandwidth_requirements.sql and fct_link_feasibility.sql, in their order of operations, so
   that every row of fct_link_feasibility comes out with its own numbers (the browser test checks
   each). Every text from the CSVs is set as text, never parsed as markup. No server: a static
   page. When everything is loaded, <html data-whatif="ready">. */
(function () {
  "use strict";

  var TABLES = ["dim_model_shapes", "dim_activation_dtypes", "dim_link_classes",
                "dim_feasibility_thresholds", "dim_parallelism_params"];
  var OWN = "__own__", ANY = "__any__";
  var shared = window.interconnectPage || {};
  var fmt = shared.fmt, rate = shared.rate, el = shared.el, num = shared.num, load = shared.load;


  /* The model of the page, from the five tables. */
  function model(t) {
    var params = t.dim_parallelism_params[0];
    var thresholds = t.dim_feasibility_thresholds.slice().sort(function (a, b) {
      return num(a.sort_order) - num(b.sort_order);
    });
    var dtypes = t.dim_activation_dtypes;
    var fallback = dtypes.filter(function (d) { return d.is_default === "True"; })[0] || dtypes[0];
    return {
      shapes: t.dim_model_shapes, dtypes: dtypes, defaultDtype: fallback,
      links: t.dim_link_classes, thresholds: thresholds,
      ppStages: num(params.pp_stages), tpAllreduces: num(params.tp_allreduces_per_layer),
      // a typed rate gets the share of a frame that is TCP payload at the classes' MTU
      usableFraction: num(t.dim_link_classes[0].usable_fraction)
    };
  }

  function classOf(m, share) {
    for (var i = 0; i < m.thresholds.length; i++) {
      var t = m.thresholds[i], upper = num(t.upper_fraction);
      if (upper === null || share < upper || (t.upper_inclusive === "True" && share === upper)) return t;
    }
    return null;
  }

  /* One answer. q: {model (a shape's id, or absent), hidden, layers, dtype, scheme, stages,
     batch, tokensPerS, linkClass (or absent), lineRateBitsPerS, rttS}. */
  function compute(m, q) {
    var shape = q.model ? m.shapes.filter(function (s) { return s.model === q.model; })[0] : null;
    var dtype = m.dtypes.filter(function (d) { return d.dtype === q.dtype; })[0] || m.defaultDtype;
    var hidden = shape ? num(shape.hidden_size) : q.hidden;
    var layers = shape ? num(shape.num_layers) : q.layers;
    var bpv = num(dtype.bytes_per_value);
    var measured = shape && shape.basis === "measured" && q.scheme === "pp";
    var stages = q.scheme === "pp" ? (measured ? m.ppStages : (q.stages || m.ppStages)) : null;
    var transfers, perTransfer;
    if (q.scheme === "pp") {
      transfers = stages - 1;
      perTransfer = measured ? num(shape.wire_bytes_per_position) * q.batch : hidden * q.batch * bpv;
    } else {
      transfers = layers * m.tpAllreduces;
      perTransfer = hidden * q.batch * bpv;
    }
    var bytesPerToken = transfers * perTransfer;
    var required = bytesPerToken * q.tokensPerS * 8;
    var link = q.linkClass ? m.links.filter(function (l) { return l.link_class === q.linkClass; })[0] : null;
    var line = link ? num(link.line_rate_bits_per_s) : q.lineRateBitsPerS;
    var usable = link ? num(link.usable_bits_per_s) : (line === null ? null : line * m.usableFraction);
    var share = usable ? required / usable : null;
    var cls = share === null ? null : classOf(m, share);
    return {
      shape: shape, hidden: hidden, layers: layers, dtype: dtype, bytesPerValue: bpv,
      measured: measured, stages: stages, transfers: transfers, bytesPerTransfer: perTransfer,
      bytesPerToken: bytesPerToken, requiredBitsPerS: required, link: link,
      lineRateBitsPerS: line, usableBitsPerS: usable, usableShareFraction: share,
      feasibilityClass: cls ? cls.feasibility_class : null, feasibility: cls,
      latencyBoundTokensPerS: q.rttS ? 1 / q.rttS : null
    };
  }

  // ------------------------------------------------------------------------------ rendering
  function bytes(b) { return b >= 1024 * 1024 ? fmt(b / 1048576, 2) + " MiB" : fmt(b / 1024, 1) + " KiB"; }
  function pct(f) { return fmt(f * 100, f < 0.1 ? 2 : 1) + " %"; }

  function $(id) { return document.getElementById(id); }

  function query() {
    var own = $("whatif-model").value === OWN, any = $("whatif-link").value === ANY;
    var rtt = num($("whatif-rtt").value);
    return {
      model: own ? null : $("whatif-model").value,
      hidden: num($("whatif-hidden").value), layers: num($("whatif-layers").value),
      dtype: $("whatif-dtype").value, scheme: $("whatif-scheme").value,
      stages: num($("whatif-stages").value), batch: num($("whatif-batch").value),
      tokensPerS: num($("whatif-rate").value),
      linkClass: any ? null : $("whatif-link").value,
      lineRateBitsPerS: any && num($("whatif-gbit").value) !== null ? num($("whatif-gbit").value) * 1e9 : null,
      rttS: rtt ? rtt / 1000 : null
    };
  }

  function problem(q) {
    if (!q.model && !(q.hidden > 0 && q.layers > 0)) return "Give the model's hidden size and layers.";
    if (!(q.batch >= 1)) return "Give a batch of at least 1.";
    if (!(q.tokensPerS > 0)) return "Give a token rate above 0.";
    if (q.scheme === "pp" && q.stages !== null && !(q.stages >= 2)) return "PP needs at least 2 boxes.";
    if (!q.linkClass && !(q.lineRateBitsPerS > 0)) return "Give the link's line rate in Gbit/s.";
    return null;
  }

  function render(m) {
    var q = query(), out = $("whatif-answer"), formula = $("whatif-formula");
    var own = !q.model, shape = own ? null : m.shapes.filter(function (s) { return s.model === q.model; })[0];
    $("whatif-hidden").disabled = $("whatif-layers").disabled = !own;
    if (shape) { $("whatif-hidden").value = shape.hidden_size; $("whatif-layers").value = shape.num_layers; }
    var measuredPP = shape && shape.basis === "measured" && q.scheme === "pp";
    $("whatif-stages").disabled = q.scheme !== "pp" || measuredPP;
    $("whatif-dtype").disabled = measuredPP;
    $("whatif-gbit").disabled = !!q.linkClass;
    out.textContent = ""; formula.textContent = "";
    var bad = problem(q);
    if (bad) { out.appendChild(el("p", bad)); return; }
    var r = compute(m, q);
    var linkName = r.link ? r.link.label : rate(r.lineRateBitsPerS) + " link";
    var p = el("p");
    p.appendChild(el("strong", rate(r.requiredBitsPerS)));
    p.appendChild(document.createTextNode(" needed between the boxes: " + pct(r.usableShareFraction) +
      " of the " + linkName + "'s usable rate (" + rate(r.usableBitsPerS) + "), "));
    var c = el("strong", (r.feasibility.symbol + " " + r.feasibility.label).trim(), "whatif-class");
    c.dataset.class = r.feasibilityClass;
    p.appendChild(c);
    p.appendChild(document.createTextNode("."));
    out.appendChild(p);
    var cond = el("p", "For " + (shape ? shape.label : "your model (hidden " + fmt(r.hidden, 0) + ", " + fmt(r.layers, 0) + " layers)") +
      ", " + q.scheme.toUpperCase() + (q.scheme === "pp" ? " on " + r.stages + " boxes" : "") +
      ", batch " + fmt(q.batch, 0) + " at " + fmt(q.tokensPerS, q.tokensPerS % 1 ? 1 : 0) +
      " tok/s per sequence; computed from the formula, not measured" +
      (r.measured ? " (the wire bytes per position are this deployment's measured ones)" : "") + ".");
    out.appendChild(cond);
    if (r.latencyBoundTokensPerS !== null) {
      var ok = q.tokensPerS <= r.latencyBoundTokensPerS;
      out.appendChild(el("p", "Latency: an RTT of " + fmt(q.rttS * 1000, 1) + " ms caps a sequence at " +
        fmt(r.latencyBoundTokensPerS, 1) + " tok/s, a compute-free bound: " +
        (ok ? "your rate is under it (compute comes on top)." : "your rate is above it, so no link speed carries it.")));
    }
    var lines = [
      "bytes per transfer = " + (r.measured ? "measured wire bytes per position " + fmt(num(shape.wire_bytes_per_position), 1) + " B × batch " + fmt(q.batch, 0)
        : "hidden " + fmt(r.hidden, 0) + " × batch " + fmt(q.batch, 0) + " × " + r.bytesPerValue + " B (" + r.dtype.label + ")") +
        " = " + fmt(r.bytesPerTransfer, 0) + " B",
      "transfers per token = " + (q.scheme === "pp" ? "boxes " + r.stages + " − 1" : "layers " + fmt(r.layers, 0) + " × " + m.tpAllreduces + " all-reduce(s)") +
        " = " + fmt(r.transfers, 0),
      "bytes per token = " + fmt(r.transfers, 0) + " × " + fmt(r.bytesPerTransfer, 0) + " B = " + bytes(r.bytesPerToken),
      "required = " + bytes(r.bytesPerToken) + " × " + fmt(q.tokensPerS, q.tokensPerS % 1 ? 1 : 0) + " tok/s × 8 = " + rate(r.requiredBitsPerS),
      "usable = " + rate(r.lineRateBitsPerS) + " line rate × " + fmt(r.usableBitsPerS / r.lineRateBitsPerS * 100, 2) + " % TCP payload = " + rate(r.usableBitsPerS),
      "share = " + rate(r.requiredBitsPerS) + " / " + rate(r.usableBitsPerS) + " = " + pct(r.usableShareFraction) + " → " + r.feasibility.label
    ];
    var pre = el("pre"); pre.appendChild(el("code", lines.join("\n")));
    formula.appendChild(pre);
  }

  function options(select, items) {
    items.forEach(function (it) {
      var o = el("option", it[1]); o.value = it[0]; select.appendChild(o);
    });
  }

  function start() {
    var form = $("whatif");
    if (!form || !shared.csv) return;
    Promise.all(TABLES.map(load)).then(function (loaded) {
      var t = {};
      TABLES.forEach(function (n, i) { t[n] = loaded[i]; });
      var m = model(t);
      options($("whatif-model"), m.shapes.map(function (s) { return [s.model, s.label]; }).concat([[OWN, "Your own shape…"]]));
      options($("whatif-dtype"), m.dtypes.map(function (d) { return [d.dtype, d.label]; }));
      $("whatif-dtype").value = m.defaultDtype.dtype;
      options($("whatif-link"), m.links.map(function (l) { return [l.link_class, l.label]; }).concat([[ANY, "Any line rate…"]]));
      $("whatif-stages").value = m.ppStages;
      form.addEventListener("input", function () { render(m); });
      form.addEventListener("change", function () { render(m); });
      form.addEventListener("submit", function (e) { e.preventDefault(); });
      window.interconnectWhatIf = { compute: function (q) { return compute(m, q); } };
      render(m);
      document.documentElement.dataset.whatif = "ready";
    }).catch(function (e) {
      $("whatif-answer").textContent = "The parameters could not be loaded (" + e.message + "): the same numbers are in §2.2 and §2.3 of Ethernet Bandwidth Math.";
      document.documentElement.dataset.whatif = "failed";
    });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
