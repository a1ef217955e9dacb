/* errpages offline search and traceback lookup.
 *
 * The index is window.ERRPAGES_SEARCH, set by search-index.js (a script, so
 * that it loads from file:// where fetch() is refused). Two ways in:
 *  - words: every query word must prefix-match a word of the message,
 *    exception, tags, repository, source path or meaning; weighted by field;
 *    an exact or near-exact message match ranks first.
 *  - traceback lookup: each message template is matched against the pasted
 *    text with {placeholders} as wildcards, by the same rules as
 *    generator/lookup.py; keep the two in step.
 */
(function () {
  "use strict";

  var data = window.ERRPAGES_SEARCH;
  var form = document.getElementById("search-form");
  if (!data || !form) {
    return;
  }
  var input = document.getElementById("q");
  var traceback = document.getElementById("traceback");
  var results = document.getElementById("results");
  var status = document.getElementById("search-status");
  var root = results.getAttribute("data-root") || "../";

  var WEIGHTS = { message: 5, title: 4, exception: 4, tags: 3, repo: 2, path: 2, words: 1 };
  var TOKEN_RE = /[\p{L}\p{N}_]+/gu;
  var LOOKUP_WORD_RE = /[A-Za-z0-9_]{2,}/g;
  var EXCEPTION_LINE_RE = /(?:^|\s)((?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*): (.+)$/gm;
  var PLACEHOLDER_RE = /\{\{|\}\}|\{([A-Za-z0-9_]+)((?:\.[A-Za-z_]\w*|\[[^\]{}]*\])*)(![rsa])?(:[^{}]*)?\}/g;
  var PARTIAL_THRESHOLD = 0.6;
  var EXACT_BASE = 1000;
  var MAX_RESULTS = 50;

  var docs = data.docs.map(function (row, index) {
    var doc = { index: index };
    data.fields.forEach(function (name, i) { doc[name] = row[i]; });
    return doc;
  });

  function tokens(text) {
    return (String(text).toLowerCase().match(TOKEN_RE) || []);
  }

  function normalise(text) {
    return String(text).toLowerCase().replace(/\s+/g, " ").trim();
  }

  /* ---- word search: an inverted index built on first use ---- */
  var vocabulary = null;
  var postings = null;

  function buildIndex() {
    postings = new Map();
    docs.forEach(function (doc) {
      Object.keys(WEIGHTS).forEach(function (field) {
        var value = field === "tags" ? doc.tags.join(" ") : doc[field];
        tokens(value).forEach(function (token) {
          var list = postings.get(token);
          if (!list) {
            list = [];
            postings.set(token, list);
          }
          list.push(doc.index, WEIGHTS[field]);
        });
      });
    });
    vocabulary = Array.from(postings.keys()).sort();
  }

  function lowerBound(prefix) {
    var lo = 0;
    var hi = vocabulary.length;
    while (lo < hi) {
      var mid = (lo + hi) >> 1;
      if (vocabulary[mid] < prefix) { lo = mid + 1; } else { hi = mid; }
    }
    return lo;
  }

  /* Score of every document for one query word: best field weight, exact words above prefixes. */
  function scoresFor(word) {
    var scores = new Map();
    for (var i = lowerBound(word); i < vocabulary.length && vocabulary[i].lastIndexOf(word, 0) === 0; i++) {
      var factor = vocabulary[i] === word ? 1 : 0.6;
      var list = postings.get(vocabulary[i]);
      for (var j = 0; j < list.length; j += 2) {
        var score = list[j + 1] * factor;
        if (!(scores.get(list[j]) >= score)) {
          scores.set(list[j], score);
        }
      }
    }
    return scores;
  }

  function wordSearch(query) {
    var words = tokens(query);
    if (!words.length) {
      return [];
    }
    if (!postings) {
      buildIndex();
    }
    var total = new Map();
    var hits = new Map();
    words.forEach(function (word) {
      scoresFor(word).forEach(function (score, docIndex) {
        total.set(docIndex, (total.get(docIndex) || 0) + score);
        hits.set(docIndex, (hits.get(docIndex) || 0) + 1);
      });
    });
    var needed = words.length;
    var all = Array.from(total.keys()).filter(function (i) { return hits.get(i) === needed; });
    var chosen = all.length ? all : Array.from(total.keys());
    var phrase = normalise(query);
    return chosen.map(function (docIndex) {
      var doc = docs[docIndex];
      var message = normalise(doc.message);
      var score = total.get(docIndex) + hits.get(docIndex) * 10;
      if (message === phrase) {
        score += 500;
      } else if (phrase.length > 3 && message.indexOf(phrase) >= 0) {
        score += 300;
      }
      return { doc: doc, score: score, exact: false, values: {} };
    });
  }

  /* ---- traceback lookup: templates with placeholders as wildcards ---- */
  var matchers = null;

  function escapeRegExp(text) {
    return text.replace(/[.*+?^${}()|[\]\\\/-]/g, "\\$&");
  }

  function messageParts(template) {
    var parts = [];
    var literal = "";
    var last = 0;
    var found;
    PLACEHOLDER_RE.lastIndex = 0;
    while ((found = PLACEHOLDER_RE.exec(template)) !== null) {
      literal += template.slice(last, found.index);
      last = found.index + found[0].length;
      if (found[0] === "{{" || found[0] === "}}") {
        literal += found[0][0];
        continue;
      }
      if (literal) {
        parts.push({ text: literal, name: "" });
        literal = "";
      }
      parts.push({ text: found[0], name: found[1] });
    }
    literal += template.slice(last);
    if (literal) {
      parts.push({ text: literal, name: "" });
    }
    return parts;
  }

  function compileMatcher(doc) {
    var parts = messageParts(doc.message.trim());
    var pieces = [];
    var names = [];
    var literal = "";
    parts.forEach(function (part, index) {
      if (part.name) {
        pieces.push(index === parts.length - 1 ? "(.+)" : "(.+?)");
        names.push(part.name);
        return;
      }
      var chunks = part.text.split(/\s+/).filter(Boolean);
      var escaped = chunks.map(escapeRegExp).join("\\s+");
      if (/^\s/.test(part.text)) {
        escaped = chunks.length ? "\\s+" + escaped : "\\s+";
      }
      if (/\s$/.test(part.text) && chunks.length) {
        escaped += "\\s+";
      }
      pieces.push(escaped);
      literal += part.text;
    });
    var literalChunks = parts.filter(function (p) { return !p.name; }).map(function (p) { return p.text.trim(); });
    var longest = literalChunks.reduce(function (a, b) { return b.length > a.length ? b : a; }, "");
    var words = new Set((literal.match(LOOKUP_WORD_RE) || []).map(function (w) { return w.toLowerCase(); }));
    return {
      doc: doc,
      pattern: new RegExp(pieces.join(""), "g"),
      names: names,
      literalLength: literal.replace(/\s+/g, "").length,
      firstWord: (longest.split("\n")[0].slice(0, 40).split(/\s+/).filter(Boolean)[0]) || "",
      words: words
    };
  }

  function exactMatch(matcher, text) {
    if (matcher.firstWord && text.indexOf(matcher.firstWord) < 0) {
      return null;
    }
    var best = null;
    var found;
    var named = new RegExp("(?:^|[\\s.])" + escapeRegExp(matcher.doc.exception) + ":\\s*$");
    matcher.pattern.lastIndex = 0;
    while ((found = matcher.pattern.exec(text)) !== null) {
      if (found[0] === "") {
        matcher.pattern.lastIndex++;
        continue;
      }
      var before = text.slice(0, found.index);
      var score = EXACT_BASE + matcher.literalLength + (named.test(before) ? 200 : 0);
      score += found.index / Math.max(text.length, 1);
      var values = {};
      matcher.names.forEach(function (name, i) {
        if (!(name in values)) {
          values[name] = found[i + 1].trim();
        }
      });
      if (!best || score > best.score) {
        best = { doc: matcher.doc, score: score, exact: true, values: values };
      }
    }
    return best;
  }

  function partialMatch(matcher, exceptionLines) {
    if (!matcher.words.size) {
      return null;
    }
    var best = null;
    exceptionLines.forEach(function (line) {
      var lineWords = new Set((line.message.match(LOOKUP_WORD_RE) || []).map(function (w) { return w.toLowerCase(); }));
      var shared = 0;
      matcher.words.forEach(function (w) { if (lineWords.has(w)) { shared++; } });
      var fraction = shared / matcher.words.size;
      if (fraction < PARTIAL_THRESHOLD) {
        return;
      }
      var sameType = line.exception.split(".").pop() === matcher.doc.exception;
      var score = fraction * 100 + (sameType ? 20 : 0);
      if (!best || score > best.score) {
        best = { doc: matcher.doc, score: score, exact: false, partial: true, values: {} };
      }
    });
    return best;
  }

  function lookup(text) {
    if (!matchers) {
      matchers = docs.map(compileMatcher);
    }
    text = text.replace(/\r\n?/g, "\n");
    var exceptionLines = [];
    var found;
    EXCEPTION_LINE_RE.lastIndex = 0;
    while ((found = EXCEPTION_LINE_RE.exec(text)) !== null) {
      exceptionLines.push({ exception: found[1], message: found[2] });
    }
    var matches = [];
    matchers.forEach(function (matcher) {
      var match = exactMatch(matcher, text) || partialMatch(matcher, exceptionLines);
      if (match) {
        matches.push(match);
      }
    });
    return matches;
  }

  /* ---- combining and showing results ---- */
  function rank(query, pasted) {
    var byDoc = new Map();
    function add(result, boost) {
      var previous = byDoc.get(result.doc.index);
      var score = result.score + boost;
      if (!previous || score > previous.score) {
        byDoc.set(result.doc.index, { doc: result.doc, score: score, exact: result.exact,
          partial: result.partial, values: result.values });
      }
    }
    if (pasted.trim()) {
      lookup(pasted).forEach(function (r) { add(r, 10000); });
    }
    if (query.trim()) {
      if (query.trim().length >= 8) {
        lookup(query).forEach(function (r) { if (r.exact) { add(r, 10000); } });
      }
      wordSearch(query).forEach(function (r) { add(r, 0); });
    }
    return Array.from(byDoc.values()).sort(function (a, b) {
      return b.score - a.score || (a.doc.id < b.doc.id ? -1 : 1);
    }).slice(0, MAX_RESULTS);
  }

  function pageUrl(result) {
    var url = root + "errors/" + result.doc.id + "/index.html";
    var names = Object.keys(result.values || {});
    if (names.length) {
      url += "?" + names.map(function (name) {
        return encodeURIComponent(name) + "=" + encodeURIComponent(result.values[name]);
      }).join("&");
    }
    return url;
  }

  /* Append text to a node, wrapping words that start with a query word in <mark>. */
  function appendMarked(node, text, words) {
    if (!words.length) {
      node.appendChild(document.createTextNode(text));
      return;
    }
    var re = /[\p{L}\p{N}_]+/gu;
    var last = 0;
    var found;
    while ((found = re.exec(text)) !== null) {
      var lower = found[0].toLowerCase();
      var hit = words.some(function (w) { return lower.lastIndexOf(w, 0) === 0; });
      if (!hit) {
        continue;
      }
      node.appendChild(document.createTextNode(text.slice(last, found.index)));
      var mark = document.createElement("mark");
      mark.textContent = found[0];
      node.appendChild(mark);
      last = found.index + found[0].length;
    }
    node.appendChild(document.createTextNode(text.slice(last)));
  }

  function render(list, query, pasted) {
    results.textContent = "";
    var words = tokens(query);
    list.forEach(function (result, i) {
      var doc = result.doc;
      var item = document.createElement("li");
      item.className = "result" + (result.exact ? " exact" : "");
      var link = document.createElement("a");
      link.href = pageUrl(result);
      link.id = "result-" + i;
      link.className = "result-link";
      appendMarked(link, doc.message, words);
      var meta = document.createElement("span");
      meta.className = "meta";
      var code = document.createElement("code");
      code.textContent = doc.exception;
      meta.appendChild(code);
      meta.appendChild(document.createTextNode(" · " + doc.repo + " · " + doc.path));
      if (doc.kind !== "error") {
        meta.appendChild(document.createTextNode(" · " + doc.kind));
      }
      item.appendChild(link);
      item.appendChild(meta);
      if (result.exact || result.partial) {
        var why = document.createElement("span");
        why.className = "why";
        var names = Object.keys(result.values || {});
        why.textContent = result.exact
          ? "Matches the pasted text" + (names.length ? ": " + names.map(function (n) {
            return n + " = " + result.values[n];
          }).join(", ") : "")
          : "Close match: the message may have changed since this page was written";
        item.appendChild(why);
      }
      results.appendChild(item);
    });
    var asked = pasted.trim() ? "the pasted text" : "“" + query.trim() + "”";
    if (!query.trim() && !pasted.trim()) {
      status.textContent = "Type words of an error message, or paste a traceback.";
    } else if (!list.length) {
      status.textContent = "No error matches " + asked + ".";
    } else {
      status.textContent = list.length + (list.length === 1 ? " error matches " : " errors match ") + asked + ".";
    }
    if (list.length && window.ERRPAGES_FIRST_RESULT_MS === undefined) {
      window.ERRPAGES_FIRST_RESULT_MS = performance.now();
    }
  }

  function run() {
    var query = input.value;
    var pasted = traceback ? traceback.value : "";
    render(rank(query, pasted), query, pasted);
  }

  var timer = null;
  function schedule() {
    clearTimeout(timer);
    timer = setTimeout(run, 60);
  }

  function resultLinks() {
    return Array.prototype.slice.call(results.querySelectorAll("a.result-link"));
  }

  input.addEventListener("input", schedule);
  if (traceback) {
    traceback.addEventListener("input", schedule);
  }
  form.addEventListener("submit", function (event) {
    event.preventDefault();
    run();
    var first = resultLinks()[0];
    if (first && document.activeElement === input) {
      location.href = first.href;
    }
  });
  input.addEventListener("keydown", function (event) {
    if (event.key === "ArrowDown") {
      var first = resultLinks()[0];
      if (first) {
        event.preventDefault();
        first.focus();
      }
    }
  });
  results.addEventListener("keydown", function (event) {
    var links = resultLinks();
    var at = links.indexOf(document.activeElement);
    if (at < 0) {
      return;
    }
    if (event.key === "ArrowDown" && at < links.length - 1) {
      event.preventDefault();
      links[at + 1].focus();
    } else if (event.key === "ArrowUp") {
      event.preventDefault();
      (at === 0 ? input : links[at - 1]).focus();
    } else if (event.key === "Escape") {
      input.focus();
    }
  });

  var params = new URLSearchParams(location.search);
  if (params.get("q")) {
    input.value = params.get("q");
  }
  if (traceback && params.get("tb")) {
    traceback.value = params.get("tb");
  }
  run();
})();
