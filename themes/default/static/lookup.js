/* errpages traceback lookup: which message templates a pasted text shows.
 *
 * The rules of generator/lookup.py (its docstring states them), written again
 * for the browser; the cases of tests/lookup_cases.yaml hold the two to the
 * same results. One pass per template, no backtracking regular expression, so
 * no text (a pasted log, a ?tb= link) can freeze the tab. No DOM: the search
 * page uses it, and so can a worker.
 */
(function (root) {
  "use strict";

  // Line breaks are \n and \r; these are the other white space characters.
  var WHITESPACE_RE = /[\t\v\f\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]/g;
  var SPACES_RE = / {2,}/g;
  var LINE_BREAKS_RE = /\n{2,}/g;
  var WORD_RE = /[A-Za-z0-9_]{2,}/g;
  var EXCEPTION_LINE_RE = /(?:^| )((?:[A-Za-z_][A-Za-z0-9_]*\.)*[A-Za-z_][A-Za-z0-9_]*): (.+)$/gm;
  // generator/messages.py's TOKEN_RE.
  var PLACEHOLDER_RE = /\{\{|\}\}|\{([A-Za-z0-9_]+)((?:\.[A-Za-z_][A-Za-z0-9_]*|\[[^\]{}]*\])*)(![rsa])?(:[^{}]*)?\}/g;
  var MAX_TEXT = 4000000;
  var MAX_EXCEPTION_LINES = 100;
  var PARTIAL_THRESHOLD = 0.6;
  var EXACT_BASE = 1000;
  var MIN_EXACT_LITERAL = 10;
  var KEY_ERROR = "KeyError: ";

  /* Every run of white space as one space, or one line break when it holds one. */
  function linedText(text) {
    text = text.replace(WHITESPACE_RE, " ").replace(SPACES_RE, " ");
    return text.replace(/ \n/g, "\n").replace(/\n /g, "\n").replace(LINE_BREAKS_RE, "\n");
  }

  /* The string a quoted Python string literal stands for; null for other text. Only the
   * escapes of a quote and of a backslash are read; others stay as they are. */
  function unquoted(text) {
    var quote = text[0];
    if (text.length < 2 || (quote !== "'" && quote !== '"') || text[text.length - 1] !== quote) {
      return null;
    }
    var result = "";
    var end = text.length - 1;
    for (var index = 1; index < end; index++) {
      if (text[index] === "\\" && index + 1 < end && "\\'\"".indexOf(text[index + 1]) >= 0) {
        index++;
      }
      result += text[index];
    }
    return result;
  }

  /* Each line's "KeyError: '…'" as "KeyError: …": the message as the record has it. */
  function unquotedKeyErrors(lined) {
    if (lined.indexOf(KEY_ERROR) < 0) {
      return lined;
    }
    return lined.split("\n").map(function (line) {
      var at = line.indexOf(KEY_ERROR);
      if (at < 0 || (at > 0 && line[at - 1] !== " " && line[at - 1] !== ".")) {
        return line;
      }
      var head = at + KEY_ERROR.length;
      var inner = unquoted(line.slice(head));
      return inner === null ? line : line.slice(0, head) + inner;
    }).join("\n");
  }

  function wordsOf(text) {
    return new Set((text.match(WORD_RE) || []).map(function (w) { return w.toLowerCase(); }));
  }

  function stripSpaces(text) {
    var start = 0;
    var end = text.length;
    while (start < end && text[start] === " ") { start++; }
    while (end > start && text[end - 1] === " ") { end--; }
    return text.slice(start, end);
  }

  /* A text as the matcher reads it: lined keeps its line breaks, flat has them as spaces. */
  function readText(text) {
    text = text.replace(/\r\n?/g, "\n");
    if (text.length > MAX_TEXT) {
      var start = text.length - MAX_TEXT;
      if (text[start - 1] !== "\n") {
        start = text.indexOf("\n", start) + 1 || start;
      }
      text = text.slice(start);
    }
    var lined = unquotedKeyErrors(linedText(text));
    return { lined: lined, flat: lined.replace(/\n/g, " "), words: new Set(lined.match(WORD_RE) || []) };
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
      parts.push({ text: found[0], name: found[1], conversion: (found[3] || "").slice(1) });
    }
    literal += template.slice(last);
    if (literal) {
      parts.push({ text: literal, name: "" });
    }
    return parts;
  }

  /* A record's message template (or a former wording: [message, exception, releases]) as its
   * literal runs and the placeholder gaps around them. */
  function compileMatcher(doc, wording) {
    var message = wording ? wording[0] : doc.message;
    var template = stripSpaces(linedText(message.replace(/\r/g, "\n")).replace(/\n/g, " "));
    var literals = [];
    var gaps = [];
    var conversions = [];
    var gap = [];
    var conversion = "";
    var required = [];
    messageParts(template).forEach(function (part) {
      if (part.name) {
        conversion = gap.length ? conversion : part.conversion;
        gap.push(part.name);
        return;
      }
      var literal = part.text;
      literals.push(literal);
      gaps.push(gap);
      conversions.push(conversion);
      gap = [];
      conversion = "";
      var found;
      WORD_RE.lastIndex = 0;
      while ((found = WORD_RE.exec(literal)) !== null) {
        if (found.index > 0 && found.index + found[0].length < literal.length) {
          required.push(found[0]);
        }
      }
    });
    gaps.push(gap);
    conversions.push(conversion);
    return {
      doc: doc,
      /* the class's own name: a record may write it dotted, a traceback prints either */
      exception: (wording ? wording[1] : doc.exception).split(".").pop(),
      former: wording || null,
      literals: literals,
      gaps: gaps,
      conversions: conversions,
      literalLength: Array.from(literals.join("").replace(/ /g, "")).length,  // code points, as in Python
      requiredWords: required,
      words: wordsOf(literals.join(" "))
    };
  }

  /* The first place of needle at or after a position, for positions that only grow. */
  function finder(text, needle) {
    var since = text.length + 1;
    var found = -1;
    return function (position) {
      if (!(since <= position && (found < 0 || position <= found))) {
        since = position;
        found = text.indexOf(needle, position);
      }
      return found;
    };
  }

  function need(gap) {
    return gap.length ? 1 : 0;
  }

  /* Whether "Exception:" (or "pkg.Exception:") stands right before this place. */
  function namedBefore(flat, start, exception) {
    var colon = flat[start - 1] === " " ? start - 2 : start - 1;
    if (colon < 0 || flat[colon] !== ":") {
      return false;
    }
    var head = colon - exception.length;
    return head >= 0 && flat.startsWith(exception, head) &&
      (head === 0 || flat[head - 1] === " " || flat[head - 1] === ".");
  }

  /* What each gap's first placeholder stood for (a !r one's quoted string unquoted); a name
   * used twice keeps its first value. */
  function placeholderValues(matcher, flat, begin, starts, end) {
    var values = Object.create(null);
    matcher.gaps.forEach(function (names, index) {
      if (!names.length || names[0] in values) {
        return;
      }
      var gapStart = index === 0 ? begin : starts[index - 1] + matcher.literals[index - 1].length;
      var gapEnd = index < starts.length ? starts[index] : end;
      var value = stripSpaces(flat.slice(gapStart, gapEnd));
      var string = matcher.conversions[index] === "r" ? unquoted(value) : null;
      values[names[0]] = string === null ? value : string;
    });
    return values;
  }

  function allPresent(required, words) {
    for (var i = 0; i < required.length; i++) {
      if (!words.has(required[i])) {
        return false;
      }
    }
    return true;
  }

  /* The best full match of one template in the text, or null: one pass, no backtracking. */
  function exactMatch(matcher, text) {
    var literals = matcher.literals;
    var gaps = matcher.gaps;
    if (!literals.length || !allPresent(matcher.requiredWords, text.words)) {
      return null;
    }
    var flat = text.flat;
    var lined = text.lined;
    var places = literals.map(function (literal) { return finder(flat, literal); });
    var lineEnds = gaps.map(function () { return finder(lined, "\n"); });
    var last = literals.length - 1;
    var floor = 0;  // matches do not overlap: the next one starts after the last one ends
    var search = need(gaps[0]);
    var best = null;
    var first;
    while ((first = places[0](search)) >= 0) {
      search = first + 1;
      var starts = [first];
      for (var index = 1; index <= last; index++) {
        var gapStart = starts[index - 1] + literals[index - 1].length;
        var found = places[index](gapStart + need(gaps[index]));
        if (found < 0) {
          return best;  // and no later try can find it either
        }
        var lineEnd = lineEnds[index](gapStart);
        if (lineEnd >= 0 && lineEnd < found) {
          break;
        }
        starts.push(found);
      }
      if (starts.length <= last) {
        continue;
      }
      var end = starts[last] + literals[last].length;
      if (gaps[last + 1].length) {
        var tail = end;
        end = lineEnds[last + 1](tail);
        end = end < 0 ? flat.length : end;
        if (end === tail) {
          continue;
        }
      }
      var begin = first;
      if (gaps[0].length) {
        while (begin > floor && lined[begin - 1] !== "\n" && lined[begin - 1] !== ":") {
          begin--;
        }
        while (begin < first && flat[begin] === " ") {
          begin++;
        }
        if (begin === first) {
          continue;
        }
      }
      var named = namedBefore(flat, begin, matcher.exception);
      var wholeLine = named && (end === lined.length || lined[end] === "\n");
      var weak = matcher.literalLength < MIN_EXACT_LITERAL && !wholeLine;
      var score = weak ? matcher.literalLength : EXACT_BASE + matcher.literalLength;
      score += named && !weak ? 200 : 0;
      score += begin / Math.max(flat.length, 1);  // later wins ties: the raised one is last
      if (!best || score > best.score) {
        best = { doc: matcher.doc, score: score, exact: !weak, partial: false, weak: weak,
          values: placeholderValues(matcher, flat, begin, starts, end), former: matcher.former };
      }
      floor = end;
      search = Math.max(search, end + need(gaps[0]));
    }
    return best;
  }

  /* The last MAX_EXCEPTION_LINES different "Exception: message" lines of a text (the same
     exception and words count once, where last seen), in the text's order, with the
     message's words: each is compared with every template. */
  function exceptionLines(text) {
    var lines = [];
    var found;
    EXCEPTION_LINE_RE.lastIndex = 0;
    while ((found = EXCEPTION_LINE_RE.exec(text.lined)) !== null) {
      lines.push(found);
    }
    var seen = new Set();
    var kept = [];
    for (var i = lines.length - 1; i >= 0 && kept.length < MAX_EXCEPTION_LINES; i--) {
      var words = wordsOf(lines[i][2]);
      var key = lines[i][1] + "\n" + Array.from(words).sort().join(" ");
      if (!seen.has(key)) {
        seen.add(key);
        kept.push({ exception: lines[i][1], words: words });
      }
    }
    return kept.reverse();
  }

  /* Most of the template's words in one exception line: a likely match for a changed message. */
  function partialMatch(matcher, lines) {
    if (!matcher.words.size) {
      return null;
    }
    var best = null;
    lines.forEach(function (line) {
      var shared = 0;
      matcher.words.forEach(function (w) { if (line.words.has(w)) { shared++; } });
      var fraction = shared / matcher.words.size;
      if (fraction < PARTIAL_THRESHOLD) {
        return;
      }
      var sameType = line.exception.split(".").pop() === matcher.exception;
      var score = fraction * 100 + (sameType ? 20 : 0);
      if (!best || score > best.score) {
        best = { doc: matcher.doc, score: score, exact: false, partial: true, weak: false,
          values: Object.create(null), former: matcher.former };
      }
    });
    return best;
  }

  /* Rank the records a traceback or log shows: full matches first, then partial ones; each
   * record once, by its best match (its message first among equals). */
  function lookup(text, matchers) {
    var seen = readText(text);
    var lines = exceptionLines(seen);
    var matches = [];
    matchers.forEach(function (matcher, order) {
      var match = exactMatch(matcher, seen) || partialMatch(matcher, lines);
      if (match) {
        match.order = order;
        matches.push(match);
      }
    });
    matches.sort(function (a, b) {
      return b.score - a.score || (a.doc.id < b.doc.id ? -1 : a.doc.id > b.doc.id ? 1 : 0) ||
        a.order - b.order;
    });
    var found = new Set();
    return matches.filter(function (match) {
      var first = !found.has(match.doc.id);
      found.add(match.doc.id);
      return first;
    });
  }

  root.ERRPAGES_LOOKUP = {
    /* docs: objects with id, message and exception, and former wordings as `former`:
     * [[message, exception, releases], ...]. */
    matchers: function (docs) {
      var matchers = [];
      docs.forEach(function (doc) {
        matchers.push(compileMatcher(doc));
        (doc.former || []).forEach(function (wording) {
          matchers.push(compileMatcher(doc, wording));
        });
      });
      return matchers;
    },
    lookup: lookup
  };
})(typeof self !== "undefined" ? self : this);
