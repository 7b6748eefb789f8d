/* What the page scripts that compute from published data share (whatif.js, "Your setup";
   pairs.js, Point to Point's pair picker): the CSV the pages publish, read into one object per
   row keyed by the header (window.interconnectCsv(text)), and the way they print numbers and
   build text-only elements (window.interconnectPage: load, num, fmt, rate, el). */
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

  function fmt(x, digits) {
    return x.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
  }

  /* A rate in bit/s as the site prints it: Gbit/s with 2 decimals, Mbit/s (none from 100), kbit/s. */
  function rate(bits) {
    if (bits >= 1e9) return fmt(bits / 1e9, 2) + " Gbit/s";
    if (bits >= 1e6) return fmt(bits / 1e6, bits >= 1e8 ? 0 : 1) + " Mbit/s";
    return fmt(bits / 1e3, 1) + " kbit/s";
  }

  /* An element holding text (set as text, never parsed as markup), with an optional class. */
  function el(tag, text, cls) {
    var e = document.createElement(tag);
    if (text !== undefined) e.textContent = text;
    if (cls) e.className = cls;
    return e;
  }

  /* A table the page publishes beside itself (data/<name>.csv), read into rows. */
  function load(name) {
    return fetch(new URL("data/" + name + ".csv", window.location.href).href).then(function (r) {
      if (!r.ok) throw new Error("HTTP " + r.status + " for data/" + name + ".csv");
      return r.text();
    }).then(parseCsv);
  }

  /* A CSV field as a number; empty is null (not measured), never 0. */
  function num(s) { return s === "" || s === undefined || s === null ? null : Number(s); }

  window.interconnectCsv = parseCsv;
  window.interconnectPage = { csv: parseCsv, load: load, num: num, fmt: fmt, rate: rate, el: el };
})();
