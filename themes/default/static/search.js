/* errpages offline search and traceback lookup.
 *
 * The index is window.ERRPAGES_SEARCH, set by search-index.js (a script, so
 * that it loads from file:// where fetch() is refused). Two ways in:
 *  - words: every query word must prefix-match a word of the message,
 *    exception, tags, repository, source path or meaning; weighted by field;
 *    an exact or near-exact message match ranks first.
 *  - traceback lookup: each message template is matched against the pasted
 *    text with {placeholders} as wildcards, by lookup.js (the rules of
 *    generator/lookup.py).
 * A query is read as its first MAX_QUERY_WORDS words. A link carries at most the first
 * MAX_LINK_QUERY characters of a ?q= query and the last MAX_LINK_TRACEBACK of a ?tb= text
 * (where a traceback's exception line is), and the page says what it cut: a link of a
 * megabyte costs the page no more than one of these sizes.
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
  var MAX_QUERY_WORDS = 32;
  var MAX_RESULTS = 50;
  var RETIRED_PENALTY = 100000;

  var shared = new Set(data.shared);
  var vocabulary = data.vocabulary;
  var docs = data.docs.map(function (row, index) {
    var doc = { index: index };
    data.fields.forEach(function (name, i) {
      doc[name] = shared.has(name) ? data.strings[row[i]] : row[i];
    });
    return doc;
  });

  function tokens(text) {
    return (String(text).toLowerCase().match(TOKEN_RE) || []);
  }

  /* The words a query is searched and marked by: its first MAX_QUERY_WORDS distinct ones. */
  function queryWords(query) {
    return Array.from(new Set(tokens(query))).slice(0, MAX_QUERY_WORDS);
  }

  function normalise(text) {
    return String(text).toLowerCase().replace(/\s+/g, " ").trim();
  }

  /* ---- word search: a scan of lowercased fields, fast enough at tens of thousands ----
   * The meaning's words come as numbers into the sorted vocabulary, so a query
   * word is looked up there once, by binary search, not in every error. */
  var TEXT_FIELDS = ["message", "title", "exception", "tags", "repo", "path"];
  var lowered = null;
  var wordNumbers = null;

  /* A result shows its message, where the words were found; an error whose message another
   * error has too shows its label instead (the two never share one). */
  var sharedMessages = null;
  function shownText(doc) {
    if (!sharedMessages) {
      var seen = new Set();
      sharedMessages = new Set();
      docs.forEach(function (d) { (seen.has(d.message) ? sharedMessages : seen).add(d.message); });
    }
    return sharedMessages.has(doc.message) && doc.title ? doc.title : doc.message;
  }

  function prepare() {
    lowered = docs.map(function (doc) {
      return TEXT_FIELDS.map(function (field) {
        var value = field === "tags" ? doc.tags.join(" ") : doc[field];
        return " " + String(value || "").toLowerCase();
      });
    });
    wordNumbers = docs.map(function (doc) {
      return doc.words ? doc.words.split(" ").map(function (n) { return parseInt(n, 36); }) : [];
    });
  }

  function isWordChar(ch) {
    return ch !== undefined && /[\p{L}\p{N}_]/u.test(ch);
  }

  /* How well one field holds a query word: 1 for a whole word, 0.6 for a word's start. */
  function wordHit(text, word) {
    var best = 0;
    var at = text.indexOf(word);
    while (at >= 0 && best < 1) {
      if (!isWordChar(text[at - 1])) {
        best = Math.max(best, isWordChar(text[at + word.length]) ? 0.6 : 1);
      }
      at = text.indexOf(word, at + 1);
    }
    return best;
  }

  /* Vocabulary numbers of the words that start with `word`: 1 for the word itself, 0.6 else. */
  function vocabularyHits(word) {
    var hits = new Map();
    var lo = 0;
    var hi = vocabulary.length;
    while (lo < hi) {
      var mid = (lo + hi) >> 1;
      if (vocabulary[mid] < word) { lo = mid + 1; } else { hi = mid; }
    }
    for (var i = lo; i < vocabulary.length && vocabulary[i].lastIndexOf(word, 0) === 0; i++) {
      hits.set(i, vocabulary[i] === word ? 1 : 0.6);
    }
    return hits;
  }

  function wordSearch(query) {
    var words = queryWords(query);
    if (!words.length) {
      return [];
    }
    if (!lowered) {
      prepare();
    }
    var meaningHits = words.map(vocabularyHits);
    var phrase = normalise(query);
    var all = [];
    var some = [];
    docs.forEach(function (doc, index) {
      var fields = lowered[index];
      var score = 0;
      var hits = 0;
      words.forEach(function (word, w) {
        var best = 0;
        for (var f = 0; f < TEXT_FIELDS.length; f++) {
          var hit = wordHit(fields[f], word);
          if (hit) {
            best = Math.max(best, hit * WEIGHTS[TEXT_FIELDS[f]]);
          }
        }
        if (!best && meaningHits[w].size) {
          wordNumbers[index].forEach(function (n) {
            var hit = meaningHits[w].get(n);
            if (hit) {
              best = Math.max(best, hit * WEIGHTS.words);
            }
          });
        }
        if (best) {
          score += best;
          hits++;
        }
      });
      if (!hits) {
        return;
      }
      var message = fields[0].slice(1);
      score += hits * 10;
      if (message === phrase) {
        score += 500;
      } else if (phrase.length > 3 && message.indexOf(phrase) >= 0) {
        score += 300;
      }
      (hits === words.length ? all : some).push({ doc: doc, score: score, exact: false, values: {} });
    });
    return all.length ? all : some;
  }

  /* ---- traceback lookup: lookup.js, compiled when first asked ---- */
  var matchers = null;

  /* A theme's own search page that does not load lookup.js still has word search. */
  function lookup(text) {
    if (!window.ERRPAGES_LOOKUP) {
      return [];
    }
    matchers = matchers || window.ERRPAGES_LOOKUP.matchers(docs);
    return window.ERRPAGES_LOOKUP.lookup(text, matchers);
  }

  /* ---- combining and showing results ---- */
  function rank(query, pasted) {
    var byDoc = new Map();
    function add(result, boost) {
      var previous = byDoc.get(result.doc.index);
      var score = result.score + boost;
      if (!previous || score > previous.score) {
        byDoc.set(result.doc.index, { doc: result.doc, score: score, exact: result.exact,
          partial: result.partial, weak: result.weak, values: result.values,
          former: result.former || null });
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
    /* Retired errors stay findable (old versions still raise them) but rank after live ones. */
    byDoc.forEach(function (result) {
      if (result.doc.retired) {
        result.score -= RETIRED_PENALTY;
      }
    });
    return Array.from(byDoc.values()).sort(function (a, b) {
      return b.score - a.score || (a.doc.id < b.doc.id ? -1 : 1);
    }).slice(0, MAX_RESULTS);
  }

  function pageUrl(result) {
    var url = root + "errors/" + result.doc.id + "/index.html";
    var names = Object.keys(result.values || {});
    if (names.length) {
      var query = new URLSearchParams();
      names.forEach(function (name) { query.append(name, result.values[name]); });
      url += "?" + query.toString();
    }
    return url;
  }

  var HIDDEN = /[\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\u2028\u2029]/g;

  /* Direction overrides and zero-width characters are shown, never obeyed. */
  function reveal(text) {
    return String(text).replace(HIDDEN, function (ch) {
      return "[U+" + ch.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0") + "]";
    });
  }

  /* Append text to a node, wrapping words that start with a query word in <mark>. */
  function appendMarked(node, text, words) {
    text = reveal(text);
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
    var words = queryWords(query);
    list.forEach(function (result, i) {
      var doc = result.doc;
      var item = document.createElement("li");
      item.className = "result" + (result.exact ? " exact" : "");
      var link = document.createElement("a");
      link.href = pageUrl(result);
      link.id = "result-" + i;
      link.className = "result-link";
      appendMarked(link, shownText(doc), words);
      var meta = document.createElement("span");
      meta.className = "meta";
      var code = document.createElement("code");
      code.textContent = reveal(doc.exception);
      meta.appendChild(code);
      meta.appendChild(document.createTextNode(reveal(" · " + doc.repo + " · " + doc.path)));
      if (doc.kind !== "error") {
        meta.appendChild(document.createTextNode(" · " + doc.kind));
      }
      if (doc.retired) {
        var verb = doc.kind === "warning" ? "issued" : "raised";
        meta.appendChild(document.createTextNode(" · retired: no longer " + verb));
      }
      item.appendChild(link);
      item.appendChild(meta);
      if (result.exact || result.partial || result.weak) {
        var why = document.createElement("span");
        why.className = "why";
        var names = Object.keys(result.values || {});
        why.textContent = result.exact
          ? "Matches the pasted text" + (names.length ? ": " + names.map(function (n) {
            return n + " = " + reveal(result.values[n]);
          }).join(", ") : "")
          : result.weak
            ? "Weak match: little of this message is fixed text, so it may be in the text by chance"
            : "Close match: the message may have changed since this page was written";
        if (result.former) {
          why.textContent += " (as " + reveal(result.former[2]) + " worded it: " +
            reveal(result.former[1] + ": " + result.former[0]) + ")";
        }
        item.appendChild(why);
      }
      results.appendChild(item);
    });
    var shown = query.trim();
    shown = shown.length > 80 ? shown.slice(0, 80) + "…" : shown;  // a long ?q= link, quoted short
    var asked = pasted.trim() ? "the pasted text" : "“" + shown + "”";
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

  /* For scripts and tests: the same lookup and ranking the page uses. */
  window.ERRPAGES = {
    lookup: function (text) {
      return lookup(text).map(function (r) {
        return { id: r.doc.id, exact: r.exact, values: r.values, score: r.score };
      });
    },
    search: function (query, pasted) {
      return rank(query || "", pasted || "").map(function (r) { return r.doc.id; });
    }
  };

  var MAX_LINK_QUERY = 2000;
  var MAX_LINK_TRACEBACK = 65536;
  var params = new URLSearchParams(location.search);
  var cut = [];
  var linked = params.get("q") || "";
  if (linked.length > MAX_LINK_QUERY) {
    linked = linked.slice(0, MAX_LINK_QUERY);
    cut.push("its query to the first " + MAX_LINK_QUERY + " characters");
  }
  input.value = linked;
  linked = traceback ? params.get("tb") || "" : "";
  if (linked.length > MAX_LINK_TRACEBACK) {
    var from = linked.length - MAX_LINK_TRACEBACK;
    var line = linked.indexOf("\n", from);  // from a line's start: the first line read is whole
    linked = linked.slice(line < 0 ? from : line + 1);
    cut.push("its text to the last " + linked.length + " characters");
  }
  if (traceback) {
    traceback.value = linked;
  }
  run();
  if (cut.length) {
    status.textContent += " The link was longer than this page reads: it read " + cut.join(" and ") + ".";
  }
})();
