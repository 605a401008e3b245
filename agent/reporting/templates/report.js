// Sortable tables: click a column header (or press Enter on it) to sort by it; again to reverse.
(function () {
  "use strict";
  function sortBy(table, col, th) {
    var numeric = th.getAttribute("data-numeric") === "1";
    var dir = th.getAttribute("aria-sort") === "ascending" ? "descending" : "ascending";
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (h) { h.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", dir);
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = a.cells[col].getAttribute("data-sort"), y = b.cells[col].getAttribute("data-sort");
      var c = numeric ? parseFloat(x) - parseFloat(y) : x.localeCompare(y);
      return dir === "ascending" ? c : -c;
    });
    rows.forEach(function (r) { r.classList.remove("break"); body.appendChild(r); });
  }
  document.querySelectorAll("table.sortable").forEach(function (table) {
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, col) {
      th.querySelector("button").addEventListener("click", function () { sortBy(table, col, th); });
    });
  });
})();
