(function () {
  "use strict";
  var $ = function (id) { return document.getElementById(id); };
  var q = $("q"), fv = $("fv"), fs = $("fs"), ff = $("ff"), fr = $("fr"), cnt = $("cnt");
  var tests = document.querySelectorAll("details.t");
  function apply() {
    var s = q.value.trim().toLowerCase(), v = fv.value, su = fs.value, f = ff.checked, r = fr.checked, n = 0;
    for (var i = 0; i < tests.length; i++) {
      var d = tests[i].dataset;
      var ok = (!v || d.v === v) && (!su || d.s === su) && (!f || d.fl === "1") && (!r || d.rg === "1") &&
        (!s || d.q.indexOf(s) >= 0);
      tests[i].hidden = !ok;
      if (ok) n++;
    }
    cnt.textContent = n + " of " + tests.length + " tests";
  }
  [q, fv, fs, ff, fr].forEach(function (e) {
    e.addEventListener("input", apply);
    e.addEventListener("change", apply);
  });
  // A test's details arrive as HTML in the JSON data block, parsed on the first open.
  var bodies = null;
  function fill(t) {
    var b = t.querySelector(".body");
    if (b.dataset.done) return;
    if (!bodies) bodies = JSON.parse($("bodies").textContent);
    b.innerHTML = bodies[+t.dataset.i];
    b.dataset.done = "1";
  }
  $("tests").addEventListener("toggle", function (e) {
    if (e.target.open && e.target.classList.contains("t")) fill(e.target);
  }, true);
  function toggle(open) {
    return function () {
      for (var i = 0; i < tests.length; i++) {
        if (tests[i].hidden) continue;
        if (open) fill(tests[i]);
        tests[i].open = open;
      }
    };
  }
  $("open").addEventListener("click", toggle(true));
  $("close").addEventListener("click", toggle(false));
  function hash() {
    var t = location.hash && document.getElementById(location.hash.slice(1));
    if (t && t.classList.contains("t")) { fill(t); t.open = true; t.scrollIntoView(); }
  }
  window.addEventListener("hashchange", hash);
  hash();
  apply();
})();
