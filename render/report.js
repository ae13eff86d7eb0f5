(function () {
  "use strict";
  function $(id) { return document.getElementById(id); }
  function rowsOf(table) { return table ? Array.prototype.slice.call(table.tBodies[0].rows) : []; }

  // The rows table: a text filter over id, scenario and reason, a result filter
  // and, with several bundles, a bundle filter.
  var table = $("rows-table"), q = $("q"), result = $("result"), bundle = $("bundle"), shown = $("shown");
  var rows = rowsOf(table);
  // The text filter reads the id, scenario and reason cells.
  var texts = rows.map(function (r) {
    return [".id", ".scen", ".reason"].map(function (sel) {
      var c = r.querySelector(sel);
      return c ? c.textContent : "";
    }).join("\n").toLowerCase();
  });
  function applyRows() {
    var needle = q.value.trim().toLowerCase(), want = result.value, b = bundle ? bundle.value : "";
    var n = 0;
    for (var i = 0; i < rows.length; i++) {
      var r = rows[i];
      var ok = (!want || r.getAttribute("data-result") === want) &&
        (!b || r.getAttribute("data-bundle") === b) &&
        (!needle || texts[i].indexOf(needle) >= 0);
      r.hidden = !ok;
      if (ok) { n++; }
    }
    shown.textContent = String(n);
  }
  q.addEventListener("input", applyRows);
  result.addEventListener("change", applyRows);
  if (bundle) { bundle.addEventListener("change", applyRows); }
  $("clear").addEventListener("click", function () {
    q.value = ""; result.value = ""; if (bundle) { bundle.value = ""; }
    applyRows();
  });
  // A legend entry of a totals chart shows that bundle's rows of that result.
  document.addEventListener("click", function (e) {
    var btn = e.target.closest ? e.target.closest(".legend button") : null;
    if (!btn) { return; }
    q.value = "";
    result.value = btn.getAttribute("data-result");
    if (bundle) { bundle.value = btn.getAttribute("data-bundle"); }
    applyRows();
    $("rows").scrollIntoView();
  });
  applyRows();

  // The requirement × host matrix: a text filter and "only ids that differ".
  var mtable = $("matrix-table");
  if (!mtable) { return; }
  var mq = $("mq"), mdiff = $("mdiff"), mshown = $("mshown");
  var mrows = rowsOf(mtable);
  var mids = mrows.map(function (r) { return r.cells[0].textContent.toLowerCase(); });
  function applyMatrix() {
    var needle = mq.value.trim().toLowerCase(), onlyDiffer = mdiff.checked, n = 0;
    for (var i = 0; i < mrows.length; i++) {
      var ok = (!needle || mids[i].indexOf(needle) >= 0) && (!onlyDiffer || mrows[i].getAttribute("data-differ") === "1");
      mrows[i].hidden = !ok;
      if (ok) { n++; }
    }
    mshown.textContent = String(n);
  }
  mq.addEventListener("input", applyMatrix);
  mdiff.addEventListener("change", applyMatrix);
  applyMatrix();
}());
