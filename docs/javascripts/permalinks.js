/* A permalink on every table and chart: the pipeline gives each a stable id
   (pipeline/publish/element_ids.py: <section>-table-<n>, <section>-figure-<n>); here each gets
   a small "¶ link" to itself just above it (as the headings have), so a reader can copy the address of one figure. */
(function () {
  "use strict";

  function add(target, id, what) {
    var a = document.createElement("a");
    a.className = "figure-permalink";
    a.href = "#" + id;
    a.textContent = "\u00b6 link";
    a.title = "Link to this " + what;
    a.setAttribute("aria-label", "Link to this " + what);
    var box = target.closest(".md-typeset__scrollwrap") || target;
    box.parentNode.insertBefore(a, box);
  }

  function run() {
    document.querySelectorAll("article table[id]").forEach(function (t) {
      if (!t.dataset.permalink) { t.dataset.permalink = "on"; add(t, t.id, "table"); }
    });
    document.querySelectorAll("article a.chart-enlarge[id]").forEach(function (c) {
      if (!c.dataset.permalink) { c.dataset.permalink = "on"; add(c, c.id, "chart"); }
    });
  }

  if (window.document$ && window.document$.subscribe) window.document$.subscribe(run);
  else if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", run);
  else run();
})();
