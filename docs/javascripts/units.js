/* Unit definitions on touch and keyboard, not only on hover.

   Every unit abbreviation on the site is an <abbr title="…"> (docs/includes/abbreviations.md):
   a mouse shows its title on hover, a touch screen never does. Here a tap (or Enter/Space
   on a focused unit) opens the definition in a small box beside the unit, and a tap elsewhere,
   Escape or a second tap closes it. The text is the title's, set as text: nothing is parsed. */
(function () {
  "use strict";

  var open = null;

  function close() {
    if (!open) return;
    open.tip.remove();
    open.abbr.setAttribute("aria-expanded", "false");
    open = null;
  }

  function show(abbr) {
    close();
    var tip = document.createElement("span");
    tip.className = "abbr-tip";
    tip.setAttribute("role", "tooltip");
    tip.textContent = abbr.getAttribute("title");
    abbr.insertAdjacentElement("afterend", tip);
    abbr.setAttribute("aria-expanded", "true");
    open = { abbr: abbr, tip: tip };
  }

  function toggle(abbr) {
    if (open && open.abbr === abbr) close(); else show(abbr);
  }

  function prepare() {
    document.querySelectorAll("article abbr[title]").forEach(function (abbr) {
      if (abbr.dataset.tip) return;
      abbr.dataset.tip = "on";
      abbr.tabIndex = 0;
      abbr.setAttribute("aria-expanded", "false");
    });
  }

  document.addEventListener("click", function (e) {
    var abbr = e.target.closest && e.target.closest("article abbr[title]");
    if (abbr) toggle(abbr); else if (!(e.target.closest && e.target.closest(".abbr-tip"))) close();
  });
  document.addEventListener("keydown", function (e) {
    if (e.key === "Escape") close();
    var abbr = document.activeElement;
    if ((e.key === "Enter" || e.key === " ") && abbr && abbr.matches && abbr.matches("article abbr[title]")) {
      e.preventDefault();
      toggle(abbr);
    }
  });

  if (window.document$ && window.document$.subscribe) {
    window.document$.subscribe(prepare);
  } else if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", prepare);
  } else {
    prepare();
  }
})();
