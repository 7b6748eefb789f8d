/* CSV as the pages publish it (RFC 4180: quoted fields with commas, doubled quotes and line
   breaks), read into one object per row keyed by the header: window.interconnectCsv(text).
   Used by whatif.js ("Your setup") and pairs.js (Point to Point's pair picker). */
(function () {
  "use strict";

  /* RFC 4180 CSV: quoted fields with commas, doubled quotes and line breaks. */
  function parseCsv(text) {
    var rows = [], row = [], field = "", i = 0, quoted = false;
    while (i < text.length) {
      var c = text.charAt(i);
      if (quoted) {
        if (c === '"' && text.charAt(i + 1) === '"') { field += '"'; i += 2; continue; }
        if (c === '"') { quoted = false; i++; continue; }
        field += c; i++; continue;
      }
      if (c === '"') { quoted = true; i++; continue; }
      if (c === ",") { row.push(field); field = ""; i++; continue; }
      if (c === "\n" || c === "\r") {
        row.push(field); field = "";
        if (row.length > 1 || row[0] !== "") rows.push(row);
        row = [];
        i += (c === "\r" && text.charAt(i + 1) === "\n") ? 2 : 1;
        continue;
      }
      field += c; i++;
    }
    if (field !== "" || row.length) { row.push(field); rows.push(row); }
    var head = rows.shift() || [];
    return rows.map(function (r) {
      var o = {};
      head.forEach(function (h, k) { o[h] = r[k] === undefined ? "" : r[k]; });
      return o;
    });
  }

  window.interconnectCsv = parseCsv;
})();
