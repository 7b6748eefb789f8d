/* The region-pair picker of Point to Point: two regions, by code or city, answered from the
   page's own fct_p2p_pp_verdict.csv (published beside it): the pair's rank, RTT and NCCL
   bandwidth (worse direction), its compute-free latency bound and what it carries of each
   model. Runs only where the page has <form id="pair-picker">. Every text from the CSV is set
   as text. When loaded, <html data-pairs="ready">. */
(function () {
  "use strict";

  var shared = window.interconnectPage || {};
  var fmt = shared.fmt, rate = shared.rate, el = shared.el;

  function $(id) { return document.getElementById(id); }

  function norm(s) { return s.trim().toLowerCase(); }

  function start() {
    var form = $("pair-picker");
    if (!form || !shared.csv) return;
    fetch(new URL("data/fct_p2p_pp_verdict.csv", window.location.href).href).then(function (r) {
      if (!r.ok) throw new Error("HTTP " + r.status);
      return r.text();
    }).then(function (text) {
      var rows = shared.csv(text);
      var regions = {};
      rows.forEach(function (r) {
        regions[r.region_a] = r.region_a_name;
        regions[r.region_b] = r.region_b_name;
      });
      var list = $("pair-picker-regions");
      Object.keys(regions).sort().forEach(function (code) {
        var o = document.createElement("option");
        o.value = code;
        o.label = regions[code] || code;
        list.appendChild(o);
      });
      function code(s) {
        var q = norm(s);
        if (!q) return null;
        for (var c in regions) {
          if (norm(c) === q || norm(regions[c] || "") === q) return c;
        }
        return null;
      }
      function answer() {
        var out = $("pair-picker-answer");
        out.textContent = "";
        var a = code($("pair-picker-a").value), b = code($("pair-picker-b").value);
        if (!a || !b) {
          out.appendChild(el("p", "Type two regions of the campaign, by code (us-west-2) or city (Oregon)."));
          return;
        }
        if (a === b) { out.appendChild(el("p", "Pick two different regions.")); return; }
        var pair = rows.filter(function (r) {
          return (r.region_a === a && r.region_b === b) || (r.region_a === b && r.region_b === a);
        });
        if (!pair.length) { out.appendChild(el("p", "This campaign has no measurement of that pair.")); return; }
        var p = pair[0], total = rows.filter(function (r) { return r.model === p.model; }).length;
        var head = el("p");
        head.appendChild(el("strong", (p.region_a_name || p.region_a) + " ↔ " + (p.region_b_name || p.region_b)));
        var facts = " (" + p.region_a + " ↔ " + p.region_b + ", campaign " + p.campaign + "): rank " +
          p.pair_rank + " of " + total + " by RTT; RTT " +
          (p.rtt_worst_s ? fmt(Number(p.rtt_worst_s) * 1000, 1) + " ms" : "not measured") + ", NCCL " +
          (p.nccl_worst_bits_per_s ? rate(Number(p.nccl_worst_bits_per_s)) : "not measured") +
          " (the worse direction of each)" +
          (p.latency_bound_tokens_per_s ? "; at most " + fmt(Number(p.latency_bound_tokens_per_s), 1) +
           " tok/s per sequence, a compute-free bound (1 / RTT)." : ".");
        head.appendChild(document.createTextNode(facts));
        out.appendChild(head);
        var ul = el("ul");
        pair.forEach(function (r) {
          var text = r.verdict === "not measured" ? "not measured (a direction lacks a ping or an NCCL run)"
            : r.workloads_carried + " of " + r.workloads + " workloads" +
              (Number(r.workloads_carried) ? ", up to batch " + r.heaviest_carried_batch_size + " at " +
               r.heaviest_carried_tokens_per_s + " tok/s per sequence" : "");
          var li = el("li");
          li.appendChild(el("strong", r.model_label));
          li.appendChild(document.createTextNode(": " + text));
          ul.appendChild(li);
        });
        out.appendChild(ul);
      }
      form.addEventListener("input", answer);
      form.addEventListener("submit", function (e) { e.preventDefault(); answer(); });
      answer();
      document.documentElement.dataset.pairs = "ready";
    }).catch(function (e) {
      $("pair-picker-answer").textContent = "The pairs could not be loaded (" + e.message + "); the ranked table below has them.";
      document.documentElement.dataset.pairs = "failed";
    });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
