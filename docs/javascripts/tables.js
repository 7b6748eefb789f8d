/* Sortable and filterable tables: mkdocs-material's table-sorting recipe (Tablesort, installed
   from npm by scripts/install_site_assets.sh into javascripts/vendor/), with two additions of
   ours. (1) Cells that read "<number> <unit> …" sort by their value in base units, so
   "940 Mbit/s" sorts below "2.35 Gbit/s"; a cell that is not a number ("—", missing) sorts
   below every number, and never breaks between its number and unit. (2) A table with more than FILTER_MIN_ROWS rows gets a filter box: rows
   that do not contain every typed word are hidden, and the box says how many are shown.
   (3) A table wider than its box is marked (its box gets the class "scrolls", and a cue above
   it says it scrolls sideways; its first column stays in view), and one of more than
   TALL_ROWS rows scrolls in a box as tall as the screen with its header kept in view
   (class "tall"; stylesheets/extra.css).
   Nothing here reads or writes anything but the page's own tables. */
(function () {
  "use strict";

  var FILTER_MIN_ROWS = 8;
  var TALL_ROWS = 20;
  var SCALE = {
    "bit/s": 1, "kbit/s": 1e3, "Mbit/s": 1e6, "Gbit/s": 1e9, "Tbit/s": 1e12,
    "B/s": 1, "kB/s": 1e3, "KB/s": 1e3, "MB/s": 1e6, "GB/s": 1e9,
    "KiB/s": 1024, "MiB/s": 1048576, "GiB/s": 1073741824,
    "B": 1, "kB": 1e3, "KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12,
    "KiB": 1024, "MiB": 1048576, "GiB": 1073741824, "TiB": 1099511627776,
    "ns": 1e-9, "µs": 1e-6, "us": 1e-6, "ms": 1e-3, "s": 1, "min": 60, "h": 3600
  };
  // a number (thousands commas, decimals, an exponent, − as minus) and the word after it
  var QUANTITY = /^([-+\u2212]?\d[\d,]*(?:\.\d+)?(?:[eE][-+]?\d+)?)\s*([^\s\d(]*)/;

  /* The value of a cell's text in base units, or null when it does not start with a number
     followed by a unit (or nothing): "2.35 Gbit/s" → 2.35e9, "12 %" → 12, "2026-01-01" → null. */
  function quantity(text) {
    var m = QUANTITY.exec(text.trim());
    if (!m) return null;
    var unit = m[2];
    if (unit && /[-\d]/.test(unit.charAt(0))) return null;
    var value = parseFloat(m[1].replace(/,/g, "").replace("\u2212", "-"));
    if (isNaN(value)) return null;
    return value * (SCALE.hasOwnProperty(unit) ? SCALE[unit] : 1);
  }

  function installSort() {
    if (!window.Tablesort || window.Tablesort.quantityInstalled) return;
    // Tablesort sorts descending with this function and reverses for ascending.
    window.Tablesort.extend("quantity", function (item) {
      return quantity(item) !== null;
    }, function (a, b) {
      var x = quantity(a), y = quantity(b);
      if (x === null && y === null) return 0;
      if (x === null) return 1;
      if (y === null) return -1;
      return y - x;
    });
    window.Tablesort.quantityInstalled = true;
  }

  function words(text) {
    return text.toLowerCase().split(/\s+/).filter(function (w) { return w.length > 0; });
  }

  function addFilter(table) {
    var body = table.tBodies[0];
    if (!body || body.rows.length <= FILTER_MIN_ROWS || table.dataset.filter === "on") return;
    table.dataset.filter = "on";
    var box = document.createElement("div");
    box.className = "table-filter";
    var input = document.createElement("input");
    input.type = "search";
    input.placeholder = "Filter rows";
    input.setAttribute("aria-label", "Filter the rows of the table below");
    var count = document.createElement("span");
    count.className = "table-filter__count";
    box.appendChild(input);
    box.appendChild(count);
    var anchor = table.closest(".md-typeset__scrollwrap") || table;
    anchor.parentNode.insertBefore(box, anchor);
    function apply() {
      var wanted = words(input.value), shown = 0, rows = body.rows;
      for (var i = 0; i < rows.length; i++) {
        var text = rows[i].textContent.toLowerCase();
        var keep = wanted.every(function (w) { return text.indexOf(w) >= 0; });
        rows[i].hidden = !keep;
        if (keep) shown++;
      }
      count.textContent = wanted.length ? shown + " of " + rows.length + " rows" : rows.length + " rows";
    }
    input.addEventListener("input", apply);
    apply();
  }

  /* A cell that is one quantity ("2.35 Gbit/s", "0.74 ms (RTT …)" is not) never breaks
     between its number and its unit. */
  function keepQuantitiesWhole(table) {
    var cells = table.querySelectorAll("tbody td");
    for (var i = 0; i < cells.length; i++) {
      var text = cells[i].textContent.trim();
      if (text.length <= 24 && text.split(/\s+/).length <= 2 && quantity(text) !== null) {
        cells[i].classList.add("quantity");
      }
    }
  }

  // Cells of prose: long text of several words (a column's description, a reason).
  function markProse(table) {
    var cells = table.querySelectorAll("tbody td");
    for (var i = 0; i < cells.length; i++) {
      var text = cells[i].textContent.trim();
      if (text.length > 60 && text.split(/\s+/).length > 8) cells[i].classList.add("prose");
    }
  }

  function markScrolling(table) {
    var wrap = table.closest(".md-typeset__scrollwrap");
    if (!wrap) return;
    var body = table.tBodies[0];
    wrap.classList.toggle("tall", !!body && body.rows.length > TALL_ROWS);
    var cut = wrap.scrollWidth > wrap.clientWidth + 1;
    wrap.classList.toggle("scrolls", cut);
    // the cue sits just above the table, or above its permalink (permalinks.js)
    var cue = wrap.previousElementSibling;
    if (cue && cue.classList.contains("figure-permalink")) cue = cue.previousElementSibling;
    var hasCue = !!cue && cue.classList.contains("table-scroll-cue");
    if (cut && !hasCue) {
      cue = document.createElement("span");
      cue.className = "table-scroll-cue";
      cue.textContent = "\u2194 This table is wider than the page: scroll it sideways (its first column stays).";
      wrap.parentNode.insertBefore(cue, wrap);
    } else if (!cut && hasCue) {
      cue.remove();
    }
  }

  function markAll() {
    document.querySelectorAll("article table:not([class])").forEach(markScrolling);
  }

  function enhance() {
    installSort();
    var tables = document.querySelectorAll("article table:not([class])");
    tables.forEach(function (table) {
      keepQuantitiesWhole(table);
      markProse(table);
      if (window.Tablesort && !table.dataset.sortable) {
        table.dataset.sortable = "on";
        new window.Tablesort(table);
      }
      addFilter(table);
      markScrolling(table);
    });
  }

  var pending = null;
  window.addEventListener("resize", function () {
    if (pending) cancelAnimationFrame(pending);
    pending = requestAnimationFrame(markAll);
  });
  // a table in a closed note or an inactive tab has no width until it is shown
  document.addEventListener("toggle", markAll, true);
  document.addEventListener("change", function (e) {
    if (e.target && e.target.matches && e.target.matches(".tabbed-set > input")) markAll();
  });

  window.interconnectTables = { quantity: quantity, markAll: markAll };
  if (window.document$ && window.document$.subscribe) {
    window.document$.subscribe(enhance);  // Material's page-load observable (instant loading too)
  } else {
    document.addEventListener("DOMContentLoaded", enhance);
  }
})();
