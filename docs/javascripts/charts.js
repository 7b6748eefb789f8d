/* Charts that follow the page's palette and stay readable on every screen.

   Each chart is published as an SVG file and embedded as <img> inside a link to itself
   (templates/partials/figure.md.j2). An <img> cannot see the page's CSS, so in the dark
   palette it would stay a white card. Here each such image is replaced by the same SVG inline,
   read from the site itself; stylesheets/extra.css then draws its background, axes, grid and
   unlabelled text in Material's colour variables, so the chart follows the light/dark toggle
   and the OS setting. Data colours (series, heatmap cells and the text on them) are kept.

   A chart is shown at its drawn size, never scaled down (its text is drawn at 11 px, the
   smallest the site allows). Each chart is also drawn at most 340 px wide for a phone (the file
   its <img data-narrow> names, beside the chart): when the full chart is wider than the text column, that one is shown
   instead; should neither fit, the chart scrolls sideways in its own box. A click still opens
   the full SVG. Without JavaScript the <img> stays.

   When every chart is done, <html data-charts="ready"> tells the browser test so. */
(function () {
  "use strict";

  function clean(svg) {
    // The SVGs are the pipeline's own, drawn from escaped text; still, nothing inlined may run.
    svg.querySelectorAll("script, foreignObject").forEach(function (n) { n.remove(); });
    svg.querySelectorAll("*").forEach(function (n) {
      Array.prototype.slice.call(n.attributes).forEach(function (a) {
        if (/^on/i.test(a.name) || /href$/i.test(a.name)) n.removeAttribute(a.name);
      });
    });
    return svg;
  }

  function load(url) {
    return fetch(url).then(function (r) {
      if (!r.ok) throw new Error("HTTP " + r.status + " for " + url);
      return r.text();
    }).then(function (text) {
      var doc = new DOMParser().parseFromString(text, "image/svg+xml");
      var svg = doc.documentElement;
      if (svg.nodeName !== "svg" || doc.querySelector("parsererror")) return null;
      return svg;
    });
  }

  // The chart as drawn, or its phone variant (data-narrow, at most 340 px wide) when the
  // drawn one is wider than the text column and the narrow one fits.
  function fitting(img) {
    return load(img.getAttribute("src")).then(function (svg) {
      var narrow = img.getAttribute("data-narrow");
      var column = img.closest("article") || document.body;
      var style = getComputedStyle(column);
      var room = column.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
      if (!svg || !narrow || +svg.getAttribute("width") <= room) return svg;
      return load(new URL(narrow, img.src).href).then(function (small) {
        return small && +small.getAttribute("width") <= room ? small : svg;
      }, function () { return svg; });
    });
  }

  function inline(img) {
    return fitting(img).then(function (svg) {
      if (!svg) return;
      svg = clean(document.importNode(svg, true));
      svg.classList.add("chart");
      svg.setAttribute("aria-label", img.getAttribute("alt") || "");
      var first = svg.querySelector("rect");
      if (first && first.getAttribute("width") === svg.getAttribute("width")) {
        first.classList.add("chart-bg");
      }
      img.replaceWith(svg);
    });
  }

  function run() {
    var imgs = document.querySelectorAll('article a.chart-enlarge > img[src$=".svg"]');
    var jobs = Array.prototype.map.call(imgs, function (img) {
      return inline(img).catch(function (e) { console.warn("chart kept as an image:", e); });
    });
    Promise.all(jobs).then(function () { document.documentElement.dataset.charts = "ready"; });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", run);
  } else {
    run();
  }
})();
