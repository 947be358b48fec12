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

  // Search as errdex/rank.py does it, on the server and here alike: words are runs of
  // letters and digits, lowercased; an error is found when each word is a whole word of
  // one of its fields (the last may start one); message matches first, then the summed
  // field weights, then shorter messages, then the id.
  var WORD = /[\p{L}\p{N}]+/gu;
  var MAX_WORDS = 32, MAX_QUERY_CHARS = 1000, SNIPPET_CHARS = 200;
  var FIELDS = ["message", "title", "solutions", "inputs", "exception", "function", "file"];
  var WEIGHTS = [10, 8, 2, 3, 4, 2, 1];
  var SNIPPET_FIELDS = ["solutions", "inputs"];

  function words(q) {
    return (q.slice(0, MAX_QUERY_CHARS).toLowerCase().match(WORD) || []).slice(0, MAX_WORDS);
  }

  function tokens(text) {
    var set = new Set();
    (text ? text.toLowerCase().match(WORD) || [] : []).forEach(function (t) { set.add(t); });
    return set;
  }

  function startsOne(word, set) {
    for (var t of set) if (t.startsWith(word)) return true;
    return false;
  }

  function rankKey(ws, fields, id) {
    // [0 when the message holds every word, -score, message length, id], smaller
    // first; the score as rank.score_terms sums it: a whole word twice its field's
    // weight, the last word starting a word once
    var sets = fields.map(tokens);
    var score = 0, inMessage = true, last = ws.length - 1;
    for (var k = 0; k < ws.length; k++) {
      var found = false;
      for (var f = 0; f < sets.length; f++) {
        var hit = sets[f].has(ws[k]) ? 2 : (k === last && startsOne(ws[k], sets[f]) ? 1 : 0);
        if (hit) { score += hit * WEIGHTS[f]; found = true; }
        else if (f === 0) inMessage = false;
      }
      if (!found) return null;
    }
    return [inMessage ? 0 : 1, -score, (fields[0] || "").length, id];
  }

  function compareKeys(a, b) {
    for (var i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i] - b[i];
    return a[3] < b[3] ? -1 : a[3] > b[3] ? 1 : 0;
  }

  function isMarked(ws, token) {
    var t = token.toLowerCase(), last = ws.length - 1;
    for (var k = 0; k < ws.length; k++) {
      if (t === ws[k] || (k === last && t.startsWith(ws[k]))) return true;
    }
    return false;
  }

  function marked(text, ws) {
    // text with each whole word a query word finds in <mark>, as rank.marks; built
    // node by node
    var span = el("span"), at = 0, m;
    var re = new RegExp(WORD.source, "gu");
    while ((m = re.exec(text)) !== null) {
      if (!isMarked(ws, m[0])) continue;
      if (m.index > at) span.appendChild(document.createTextNode(text.slice(at, m.index)));
      span.appendChild(el("mark", {}, m[0]));
      at = m.index + m[0].length;
    }
    if (at < text.length) span.appendChild(document.createTextNode(text.slice(at)));
    return span;
  }

  function snippet(text) {
    return text.length <= SNIPPET_CHARS ? text : text.slice(0, SNIPPET_CHARS - 1) + "\u2026";
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

  function staticSearch(index, q) {
    // every error found, in order, each as {field name: value}
    var ws = words(q);
    if (!ws.length) return [];
    var names = index.fields, found = [];
    index.rows.forEach(function (row) {
      var item = {};
      names.forEach(function (name, i) { item[name] = row[i]; });
      var key = rankKey(ws, FIELDS.map(function (f) { return item[f]; }), item.id);
      if (key) found.push([key, item]);
    });
    found.sort(function (a, b) { return compareKeys(a[0], b[0]); });
    return found.map(function (x) { return x[1]; });
  }

  function renderRows(container, items, q, total) {
    container.textContent = "";
    var ws = words(q);
    container.appendChild(el("p", { "class": "muted" },
      total + " result" + (total === 1 ? "" : "s") + (total > items.length ? ", showing 1\u2013" + items.length : "")));
    var list = el("ol", { "class": "results" });
    items.forEach(function (item) {
      var li = el("li");
      var a = el("a", { "class": "result-title", href: errorUrl(item.id) });
      a.appendChild(marked(item.title || "", ws));
      li.appendChild(a);
      var meta = el("div", { "class": "meta" });
      meta.appendChild(el("span", { "class": "exc" }, (item.exception || "").split(" ")[0]));
      meta.appendChild(document.createTextNode(" \u00b7 " + item["package"] + " " + item.version + " \u00b7 "));
      meta.appendChild(el("code", {}, item.file + ":" + item.line));
      li.appendChild(meta);
      if (item.message !== null) {
        var msg = el("div", { "class": "msg" });
        msg.appendChild(marked(item.message, ws));
        li.appendChild(msg);
      }
      SNIPPET_FIELDS.forEach(function (key) {
        var text = item[key];
        if (!text || !Array.from(text.matchAll(new RegExp(WORD.source, "gu"))).some(function (m) { return isMarked(ws, m[0]); })) return;
        var div = el("div", { "class": "snip snip-" + key });
        div.appendChild(marked(snippet(text), ws));
        li.appendChild(div);
      });
      list.appendChild(li);
    });
    container.appendChild(list);
  }

  function prose(node, text) {
    // the record's prose as the pages show it (render._prose_html): `code` spans in
    // <code>, the rest as text; an unpaired backtick leaves the text as it is
    var pieces = text.split("`");
    if (pieces.length % 2 === 0) { node.appendChild(document.createTextNode(text)); return node; }
    pieces.forEach(function (piece, i) {
      node.appendChild(i % 2 ? el("code", {}, piece) : document.createTextNode(piece));
    });
    return node;
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
      if (m.title) li.appendChild(el("p", { "class": "answer-title" })).appendChild(el("strong", {}, m.title));
      if (m.template !== null && m.template !== undefined) li.appendChild(el("div", { "class": "msg" }, m.template));
      if (m.when_it_happens) li.appendChild(prose(el("p", { "class": "answer-when" }), m.when_it_happens));
      if (m.solution) {
        var fix = el("p", { "class": "answer-fix" });
        fix.appendChild(el("strong", {}, "Fix:"));
        fix.appendChild(document.createTextNode(" "));
        li.appendChild(prose(fix, m.solution));
      }
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
    // near misses beside an exact answer only distract from it (as on the match page)
    var exact = (data.matches || []).some(function (m) { return m.exact; });
    if ((data.closest || []).length && !exact) {
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
          var found = staticSearch(index, q);
          box.textContent = "";
          box.appendChild(el("p", { "class": "note" },
            "This static copy cannot run the matcher; these are the errors whose words fit the message line."));
          var inner = el("div"); box.appendChild(inner);
          renderRows(inner, found.slice(0, 10), q, found.length);
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
        var found = staticSearch(index, q);
        renderRows(results, found.slice(0, index.limit || 20), q, found.length);
      }).catch(function (e) { results.textContent = String(e); });
    }
  }
})();
