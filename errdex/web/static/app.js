// errdex: a little vanilla JS. The paste box asks POST /api/match and shows the answers
// in place; on a static export (no server) search and paste run over /search-index.json.
// Every piece of text goes into the page through textContent, never innerHTML.
"use strict";
(function () {
  var isStatic = document.body.getAttribute("data-static") === "1";
  // where the export's top is, from this page ("../../"); a server's pages sit at "/"
  var root = isStatic ? (document.body.getAttribute("data-root") || "") : "/";

  function errorUrl(id) {
    return root + "errors/" + encodeURIComponent(id) + (isStatic ? "/index.html" : "");
  }

  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  var WORD_CHAR = /[\p{L}\p{N}_]/u;

  function wordStart(lower, w, from) {
    // the next place at or after `from` where a word of the text begins with `w`
    var at = lower.indexOf(w, from);
    while (at > 0 && WORD_CHAR.test(lower.charAt(at - 1))) at = lower.indexOf(w, at + 1);
    return at;
  }

  function marked(text, words) {
    // text with each word that begins with a query word wrapped in <mark> (as the
    // server's search marks them: never inside a word), built node by node
    var span = el("span");
    var lower = text.toLowerCase();
    var i = 0;
    while (i < text.length) {
      var best = -1, len = 0;
      words.forEach(function (w) {
        var at = wordStart(lower, w, i);
        if (at !== -1 && (best === -1 || at < best)) { best = at; len = w.length; }
      });
      if (best === -1) { span.appendChild(document.createTextNode(text.slice(i))); break; }
      if (best > i) span.appendChild(document.createTextNode(text.slice(i, best)));
      span.appendChild(el("mark", {}, text.slice(best, best + len)));
      i = best + len;
    }
    return span;
  }

  function words(q) {
    return (q.toLowerCase().match(/[\p{L}\p{N}_]+/gu) || []).slice(0, 32);
  }

  var indexPromise = null;
  function loadIndex() {
    if (!indexPromise) {
      if (window.location.protocol === "file:") {
        // opened as files: no fetch, but a script may load (it sets ERRDEX_INDEX)
        indexPromise = new Promise(function (resolve, reject) {
          var script = el("script", { src: root + "search-index.js" });
          script.onload = function () { resolve(window.ERRDEX_INDEX); };
          script.onerror = function () { reject(new Error("search index: cannot load")); };
          document.head.appendChild(script);
        });
      } else {
        indexPromise = fetch(root + "search-index.json").then(function (r) {
          if (!r.ok) throw new Error("search index: HTTP " + r.status);
          return r.json();
        });
      }
    }
    return indexPromise;
  }

  function staticSearch(index, q, limit) {
    var ws = words(q);
    if (!ws.length) return [];
    var out = [];
    index.rows.forEach(function (row) {
      var title = (row[4] || "").toLowerCase(), msg = (row[5] || "").toLowerCase();
      var rest = (row[3] + " " + row[6] + " " + row[0]).toLowerCase();
      var score = 0;
      for (var k = 0; k < ws.length; k++) {
        var w = ws[k], s = 0;
        if (wordStart(msg, w, 0) !== -1) s += 10;
        if (wordStart(title, w, 0) !== -1) s += 8;
        if (wordStart(rest, w, 0) !== -1) s += 2;
        if (!s) return;
        score += s;
      }
      out.push([score - (msg.length / 1000), row]);
    });
    out.sort(function (a, b) { return b[0] - a[0]; });
    return out.slice(0, limit).map(function (x) { return x[1]; });
  }

  function renderRows(container, rows, q, total) {
    container.textContent = "";
    var ws = words(q);
    container.appendChild(el("p", { "class": "muted" },
      total + " result" + (total === 1 ? "" : "s") + (total > rows.length ? ", showing " + rows.length : "")));
    var list = el("ol", { "class": "results" });
    rows.forEach(function (row) {
      var li = el("li");
      var a = el("a", { "class": "result-title", href: errorUrl(row[0]) });
      a.appendChild(marked(row[4] || "", ws));
      li.appendChild(a);
      var meta = el("div", { "class": "meta" });
      meta.appendChild(el("span", { "class": "exc" }, row[3]));
      meta.appendChild(document.createTextNode(" · " + row[1] + " " + row[2] + " · "));
      meta.appendChild(el("code", {}, row[6] + ":" + row[7]));
      li.appendChild(meta);
      if (row[5] !== null) {
        var msg = el("div", { "class": "msg" });
        msg.appendChild(marked(row[5], ws));
        li.appendChild(msg);
      }
      list.appendChild(li);
    });
    container.appendChild(list);
  }

  function renderMatch(box, data) {
    box.textContent = "";
    if (data.note) box.appendChild(el("p", { "class": "note" }, data.note));
    var list = el("ol", { "class": "results" });
    (data.matches || []).forEach(function (m) {
      var li = el("li", { "class": "match" });
      li.appendChild(el("a", { "class": "result-title", href: m.url || errorUrl(m.id) },
        m.exception + " at " + m.file + ":" + m.line));
      li.appendChild(el("div", { "class": "meta" }, m.package + " " + m.version + " · in " +
        m["function"] + " · score " + Number(m.score).toFixed(2) + (m.exact ? " · exact" : "")));
      if (m.template !== null && m.template !== undefined) li.appendChild(el("div", { "class": "msg" }, m.template));
      var values = Object.keys(m.values || {});
      if (values.length) {
        var table = el("table", { "class": "values" });
        table.appendChild(el("caption", {}, "Values found in your text"));
        values.forEach(function (k) {
          var tr = el("tr");
          var th = el("th"); th.appendChild(el("code", {}, k));
          var td = el("td"); td.appendChild(el("code", {}, m.values[k]));
          tr.appendChild(th); tr.appendChild(td); table.appendChild(tr);
        });
        li.appendChild(table);
      }
      list.appendChild(li);
    });
    if ((data.closest || []).length) {
      box.appendChild(list);
      box.appendChild(el("h3", {}, "Close, but not answers"));
      list = el("ul", { "class": "results" });
      data.closest.forEach(function (m) {
        var li = el("li");
        li.appendChild(el("a", { href: m.url || errorUrl(m.id) }, m.exception + " at " + m.file + ":" + m.line));
        li.appendChild(el("span", { "class": "muted" }, " " + m.package + " " + m.version + " — " + (m.label || "")));
        list.appendChild(li);
      });
    }
    box.appendChild(list);
  }

  function lastMessageLine(text) {
    var lines = text.split(/\r?\n/).map(function (s) { return s.trim(); }).filter(Boolean);
    return lines.length ? lines[lines.length - 1].replace(/^[\w.]+(Error|Exception|Warning)?:\s*/, "") : "";
  }

  document.querySelectorAll(".paste-form").forEach(function (form) {
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      var box = form.parentNode.querySelector(".paste-result");
      var text = form.querySelector("textarea").value;
      box.textContent = "Looking…";
      if (isStatic) {
        var q = lastMessageLine(text);
        loadIndex().then(function (index) {
          var rows = staticSearch(index, q, 10);
          box.textContent = "";
          box.appendChild(el("p", { "class": "note" },
            "This static copy cannot run the matcher; these are the errors whose words fit the message line."));
          var inner = el("div"); box.appendChild(inner);
          renderRows(inner, rows, q, rows.length);
        }).catch(function (e) { box.textContent = String(e); });
        return;
      }
      fetch("/api/match", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ text: text })
      }).then(function (r) {
        return r.json().then(function (data) {
          if (!r.ok) throw new Error((data.error && data.error.message) || ("HTTP " + r.status));
          return data;
        });
      }).then(function (data) { renderMatch(box, data); })
        .catch(function (e) { box.textContent = ""; box.appendChild(el("p", { "class": "note" }, String(e.message || e))); });
    });
  });

  var results = document.getElementById("search-results");
  if (isStatic && results) {
    var q = new URLSearchParams(window.location.search).get("q") || "";
    var input = document.querySelector(".search-form input");
    if (input) input.value = q;
    if (q) {
      document.title = "\u201c" + q + "\u201d \u00b7 errdex";
      results.textContent = "Searching…";
      loadIndex().then(function (index) {
        var rows = staticSearch(index, q, 1000000);
        renderRows(results, rows.slice(0, 50), q, rows.length);
      }).catch(function (e) { results.textContent = String(e); });
    }
  }
})();
