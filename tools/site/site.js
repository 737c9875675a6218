/* grci_lit site: live toys (figures precomputed at build time), the collapsible sidebar, and offline search.
   No network: the search index is a script of the site (search_index.js), the toys' figures are files of the site. */
(function () {
  "use strict";
  /* the site's root, from this script's own address: search results link from pages in any folder */
  var ROOT = (document.currentScript && document.currentScript.src || "").replace(/site\.js(\?.*)?$/, "");

  /* ---------- toys: each control picks one precomputed state; the state key is the controls' indices joined by "-" */
  function toyKey(toy) {
    return toy.inputs.map(function (el) { return el.value; }).join("-");
  }
  function showState(toy) {
    var s = toy.spec.states[toyKey(toy)];
    if (!s) return;
    if (s.png) { toy.img.src = s.png; toy.img.hidden = false; } else { toy.img.hidden = true; }
    toy.text.textContent = s.text || "";
    toy.text.hidden = !s.text;
    toy.inputs.forEach(function (el, i) {
      var c = toy.spec.controls[i];
      if (toy.outs[i]) toy.outs[i].textContent = c.labels[+el.value];
    });
  }
  function initToy(box) {
    var spec = JSON.parse(box.querySelector("script[type='application/json']").textContent);
    var toy = { spec: spec, inputs: [], outs: [], img: box.querySelector("img.toy-fig"), text: box.querySelector("pre.toy-text") };
    var panel = box.querySelector(".toy-controls");
    spec.controls.forEach(function (c, i) {
      var row = document.createElement("label"), name = document.createElement("span"), el, out = null;
      row.className = "toy-row"; name.className = "toy-name"; name.textContent = c.name;
      row.appendChild(name);
      if (c.kind === "slider") {
        el = document.createElement("input");
        el.type = "range"; el.min = 0; el.max = c.labels.length - 1; el.step = 1;
        out = document.createElement("output"); out.className = "toy-value";
      } else {
        el = document.createElement("select");
        c.labels.forEach(function (lab, j) {
          var o = document.createElement("option"); o.value = j; o.textContent = lab; el.appendChild(o);
        });
      }
      el.value = c["default"]; el.name = c.name; el.setAttribute("aria-label", c.name);
      el.addEventListener("input", function () { showState(toy); });
      el.addEventListener("change", function () { showState(toy); });
      row.appendChild(el); if (out) row.appendChild(out);
      panel.appendChild(row);
      toy.inputs.push(el); toy.outs.push(out);
    });
    showState(toy);
    box.grciToy = toy;
  }

  /* ---------- sidebar: a button toggles it on narrow screens */
  function initSidebar() {
    var btn = document.querySelector(".grci-burger"), body = document.body;
    if (!btn) return;
    btn.addEventListener("click", function () {
      var open = body.classList.toggle("grci-side-open");
      btn.setAttribute("aria-expanded", open ? "true" : "false");
    });
    var main = document.querySelector(".grci-main");
    if (main) main.addEventListener("click", function () { body.classList.remove("grci-side-open"); });
  }

  /* ---------- offline search over every page's sections */
  function terms(q) { return q.toLowerCase().split(/\s+/).filter(function (t) { return t.length > 1; }); }
  function search(q) {
    var ts = terms(q), idx = window.GRCI_SEARCH || [], hits = [];
    if (!ts.length) return hits;
    idx.forEach(function (d) {
      var title = d.t.toLowerCase(), text = d.x.toLowerCase(), score = 0;
      for (var i = 0; i < ts.length; i++) {
        var inTitle = title.indexOf(ts[i]) >= 0, inText = text.indexOf(ts[i]) >= 0;
        if (!inTitle && !inText) return;
        score += (inTitle ? 10 : 0) + (inText ? 1 : 0);
      }
      hits.push({ d: d, score: score });
    });
    hits.sort(function (a, b) { return b.score - a.score; });
    return hits.slice(0, 20);
  }
  function snippet(text, q) {
    var t = terms(q)[0] || "", i = text.toLowerCase().indexOf(t);
    var s = Math.max(0, i - 50);
    return (s > 0 ? "\u2026" : "") + text.slice(s, s + 140) + "\u2026";
  }
  function initSearch() {
    var input = document.getElementById("grci-search"), list = document.getElementById("grci-search-results");
    if (!input || !list) return;
    input.addEventListener("input", function () {
      list.innerHTML = "";
      var q = input.value, hits = search(q);
      list.hidden = !q.trim();
      if (q.trim() && !hits.length) {
        var li = document.createElement("li"); li.textContent = "No match"; list.appendChild(li);
      }
      hits.forEach(function (h) {
        var li = document.createElement("li"), a = document.createElement("a"), small = document.createElement("small");
        a.href = ROOT + h.d.u; a.textContent = h.d.p + " \u203a " + h.d.t;
        small.textContent = snippet(h.d.x, q);
        li.appendChild(a); li.appendChild(small); list.appendChild(li);
      });
    });
  }

  window.grciSearch = search;
  /* ---------- the in-page contents: open beside the text on wide screens, folded above it on narrow ones */
  function initToc() {
    var toc = document.querySelector(".grci-toc");
    if (toc && window.innerWidth < 1280) toc.removeAttribute("open");
  }

  function init() {
    initToc();
    Array.prototype.forEach.call(document.querySelectorAll(".grci-toy"), initToy);
    initSidebar();
    initSearch();
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init); else init();
})();
