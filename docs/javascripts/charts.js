/* Charts that follow the page's palette and stay readable on every screen.

   Each chart is published as an SVG file and embedded as <img> inside a link to itself
   (templates/partials/figure.md.j2). An <img> cannot see the page's CSS, so in the dark
   palette it would stay a white card. Here each such image is replaced by the same SVG inline,
   read from the site itself; stylesheets/extra.css then draws its background, axes, grid and
   unlabelled text in Material's colour variables, so the chart follows the light/dark toggle
   and the OS setting. Data colours (series, heatmap cells and the text on them) are kept.

   A chart is drawn with 11 px text. One wider than the text column is scaled down to the
   column as long as its text stays at least MIN_TEXT_PX (a 900 px chart in a 750 px desktop
   column). Each chart is also drawn at most 340 px wide for a phone (the file its
   <img data-narrow> names, beside the chart): that one is shown only where the column is
   narrow (under NARROW_COLUMN_PX) and the full chart cannot be scaled to it; should neither
   fit, the chart scrolls sideways in its own box at its drawn size. The inline <svg> says
   which it is (data-variant "full" or "narrow", data-scale). A click still opens the full
   SVG. Without JavaScript the <img> stays.

   Each mark with a value (a heatmap cell, a point: its SVG <title>, pipeline/publish/charts/svg.py)
   shows it on hover (the browser's own tooltip) and on a tap or click, in a box beside the mark
   (div.chart-value), instead of opening the chart; a tap anywhere else closes the box, a tap
   on the chart away from a mark still opens it at full size.

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

  var DRAWN_TEXT_PX = 11, MIN_TEXT_PX = 9, NARROW_COLUMN_PX = 600;
  var MIN_SCALE = MIN_TEXT_PX / DRAWN_TEXT_PX;

  function room(el) {
    var column = el.closest("article") || document.body;
    var style = getComputedStyle(column);
    return column.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  }

  // The full chart, unless the column is narrow, the full one cannot be scaled to it and the
  // phone variant (data-narrow, at most 340 px wide) fits.
  function fitting(img) {
    return load(img.getAttribute("src")).then(function (svg) {
      var narrow = img.getAttribute("data-narrow"), space = room(img);
      if (svg) svg.setAttribute("data-variant", "full");
      if (!svg || !narrow || space >= NARROW_COLUMN_PX ||
          +svg.getAttribute("width") * MIN_SCALE <= space) return svg;
      return load(new URL(narrow, img.src).href).then(function (small) {
        if (!small || +small.getAttribute("width") > space) return svg;
        small.setAttribute("data-variant", "narrow");
        return small;
      }, function () { return svg; });
    });
  }

  // Drawn size when it fits; else scaled to the column while its text stays >= MIN_TEXT_PX;
  // else drawn size, scrolling sideways in its link's box.
  function scale(svg) {
    var w = +svg.getAttribute("width"), h = +svg.getAttribute("height"), space = room(svg.parentNode);
    var k = w <= space ? 1 : (w * MIN_SCALE <= space ? space / w : 1);
    svg.style.width = (w * k) + "px";
    svg.style.height = (h * k) + "px";
    svg.setAttribute("data-scale", k.toFixed(3));
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
      scale(svg);
    });
  }

  function rescale() {
    document.querySelectorAll("article svg.chart").forEach(scale);
  }

  // The mark under a click that carries a value: an element of an inline chart (not the
  // chart itself, whose <title> is its caption) with a <title> child.
  function valued(target) {
    for (var n = target; n && n.nodeName !== "svg"; n = n.parentNode) {
      if (n.querySelector && n.querySelector(":scope > title")) return n;
    }
    return null;
  }

  function showValue(event) {
    var old = document.querySelector(".chart-value");
    if (old) old.remove();
    var mark = event.target.closest && event.target.closest("svg.chart") && valued(event.target);
    if (!mark) return;
    event.preventDefault();     // a tap on a mark reads its value, not the full-size chart
    var box = document.createElement("div");
    box.className = "chart-value";
    box.setAttribute("role", "status");
    box.textContent = mark.querySelector(":scope > title").textContent;
    var r = mark.getBoundingClientRect();
    box.style.left = Math.max(4, Math.min(window.scrollX + r.left, window.scrollX +
                                          document.documentElement.clientWidth - 260)) + "px";
    box.style.top = (window.scrollY + r.bottom + 6) + "px";
    document.body.appendChild(box);
  }

  function run() {
    document.addEventListener("click", showValue);
    var imgs = document.querySelectorAll('article a.chart-enlarge > img[src$=".svg"]');
    var jobs = Array.prototype.map.call(imgs, function (img) {
      return inline(img).catch(function (e) { console.warn("chart kept as an image:", e); });
    });
    Promise.all(jobs).then(function () { document.documentElement.dataset.charts = "ready"; });
    var pending = null;
    window.addEventListener("resize", function () {
      if (pending) cancelAnimationFrame(pending);
      pending = requestAnimationFrame(rescale);
    });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", run);
  } else {
    run();
  }
})();
