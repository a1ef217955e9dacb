/* errpages: behaviour shared by every page. No inline handlers: this file is the only script. */
(function () {
  "use strict";

  var MAX_VALUE_LENGTH = 500;
  var HIDDEN = /[\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\u2028\u2029]/g;

  /* Direction overrides and zero-width characters are shown, never obeyed. */
  function reveal(text) {
    return text.replace(HIDDEN, function (ch) {
      return "[U+" + ch.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0") + "]";
    });
  }

  /* Copy text to the clipboard; falls back to a hidden textarea where the async API is missing. */
  function copyText(text) {
    if (navigator.clipboard && window.isSecureContext) {
      return navigator.clipboard.writeText(text).catch(function () {
        return legacyCopy(text);
      });
    }
    return legacyCopy(text);
  }

  function legacyCopy(text) {
    return new Promise(function (resolve, reject) {
      var area = document.createElement("textarea");
      area.value = text;
      area.setAttribute("readonly", "");
      area.style.position = "fixed";
      area.style.opacity = "0";
      document.body.appendChild(area);
      area.select();
      var ok = false;
      try {
        ok = document.execCommand("copy");
      } catch (e) {
        ok = false;
      }
      document.body.removeChild(area);
      if (ok) {
        resolve();
      } else {
        reject(new Error("copy refused"));
      }
    });
  }

  /* The address to share: the canonical URL when the site knows it, else this page's own. */
  function shareUrl(button) {
    var url = button.getAttribute("data-url") || location.href.split("#")[0].split("?")[0];
    return url + location.search;
  }

  function markdownLabel(text) {
    return text.replace(/\\/g, "\\\\").replace(/\[/g, "\\[").replace(/\]/g, "\\]");
  }

  function setUpCopyButtons() {
    var status = document.getElementById("copy-status");
    var buttons = document.querySelectorAll("button[data-copy]");
    Array.prototype.forEach.call(buttons, function (button) {
      button.hidden = false;
      button.addEventListener("click", function () {
        var url = shareUrl(button);
        var kind = button.getAttribute("data-copy");
        var text = kind === "markdown"
          ? "[" + markdownLabel(button.getAttribute("data-label") || "") + "](" + url.replace(/\)/g, "%29") + ")"
          : url;
        copyText(text).then(function () {
          button.setAttribute("data-copied", "true");
          if (status) {
            status.textContent = kind === "markdown" ? "Copied Markdown link: " + text : "Copied URL: " + text;
          }
          setTimeout(function () { button.removeAttribute("data-copied"); }, 2000);
        }, function () {
          if (status) {
            status.textContent = "Could not copy; select and copy this instead: " + text;
          }
        });
      });
    });
  }

  /* A value as Python's repr() shows it: a string quoted, unless it is quoted already or
   * reads as a number, None, True, False or a container (which repr() shows as they are). */
  function pythonRepr(value) {
    if (/^(-?[0-9][0-9_.eE+-]*|None|True|False)$/.test(value) || /^[[({<]/.test(value) ||
        (value.length > 1 && (value[0] === "'" || value[0] === '"') && value[value.length - 1] === value[0])) {
      return value;
    }
    var quote = value.indexOf("'") >= 0 && value.indexOf('"') < 0 ? '"' : "'";
    var escaped = value.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/\r/g, "\\r").replace(/\t/g, "\\t");
    return quote + (quote === "'" ? escaped.replace(/'/g, "\\'") : escaped) + quote;
  }

  /* Show the reader's own values in the message: errors/<id>/?backend=mori. */
  function fillPlaceholders() {
    if (!location.search || typeof URLSearchParams === "undefined") {
      return;
    }
    var params = new URLSearchParams(location.search);
    var filled = [];
    var vars = document.querySelectorAll(".message-text var.placeholder[data-name]");
    Array.prototype.forEach.call(vars, function (node) {
      var name = node.getAttribute("data-name");
      if (!params.has(name)) {
        return;
      }
      var value = params.get(name).slice(0, MAX_VALUE_LENGTH);
      value = reveal(node.getAttribute("data-conversion") === "r" ? pythonRepr(value) : value);
      node.setAttribute("title", node.textContent + " (value from the link)");
      node.textContent = value;
      node.classList.add("filled");
      if (filled.indexOf(name) < 0) {
        filled.push(name);
      }
    });
    var note = document.getElementById("filled-note");
    if (note && filled.length) {
      note.textContent = "Showing the values from this link for: " + filled.join(", ") + ".";
      note.hidden = false;
    }
  }

  /* Whether a listed error is raised in a release: its data-raised holds ranges of release
   * indexes, "0-4 6-9" (first, and one past the last). */
  function raisedIn(item, repo, index) {
    if (item.getAttribute("data-repo") !== repo) {
      return false;
    }
    return (item.getAttribute("data-raised") || "").split(" ").some(function (span) {
      var ends = span.split("-");
      return ends.length === 2 && Number(ends[0]) <= index && index < Number(ends[1]);
    });
  }

  /* Keep an element's text as the page was built, to put back when the filter is cleared. */
  function setText(node, text) {
    if (!node.hasAttribute("data-built")) {
      node.setAttribute("data-built", node.textContent);
    }
    node.textContent = text === null ? node.getAttribute("data-built") : text;
  }

  /* Narrow a listing to the errors one release raises, kept in the address
   * (?release=8.1.3, and &repo=owner/name where the page lists several repositories). */
  function setUpReleaseFilter() {
    var form = document.querySelector("form[data-release-filter]");
    if (!form) {
      return;
    }
    var select = form.querySelector("select");
    var several = select.querySelector("optgroup") !== null;
    var stats = document.querySelector("[data-release-stats]");
    var empty = document.querySelector("[data-release-empty]");

    function apply() {
      var option = select.options[select.selectedIndex];
      var chosen = option && option.value ? option : null;
      var repo = chosen ? chosen.getAttribute("data-repo") : "";
      var index = chosen ? Number(chosen.getAttribute("data-index")) : -1;
      var shown = 0;
      Array.prototype.forEach.call(document.querySelectorAll("li[data-raised]"), function (item) {
        item.hidden = chosen !== null && !raisedIn(item, repo, index);
        shown += item.hidden ? 0 : 1;
      });
      Array.prototype.forEach.call(document.querySelectorAll("tr[data-repo]"), function (row) {
        row.hidden = chosen !== null && row.getAttribute("data-repo") !== repo;
        Array.prototype.forEach.call(row.querySelectorAll("[data-count]"), function (cell) {
          setText(cell, chosen ? chosen.getAttribute("data-" + cell.getAttribute("data-count")) : null);
        });
      });
      Array.prototype.forEach.call(document.querySelectorAll(".exception-group"), function (group) {
        var count = 0;
        Array.prototype.forEach.call(group.querySelectorAll("ul.error-list"), function (list) {
          var visible = list.querySelectorAll("li:not([hidden])").length;
          list.hidden = visible === 0;
          if (list.previousElementSibling) {
            list.previousElementSibling.hidden = visible === 0;
          }
          count += visible;
        });
        group.hidden = count === 0;
        var counter = group.querySelector(".count");
        if (counter) {
          setText(counter, chosen ? "(" + count + ")" : null);
        }
      });
      if (stats) {
        setText(stats, chosen ? chosen.getAttribute("data-summary") : null);
      }
      if (empty) {
        empty.hidden = chosen === null || shown > 0;
      }
      return chosen;
    }

    function remember(chosen) {
      var params = new URLSearchParams(location.search);
      params.delete("release");
      params.delete("repo");
      if (chosen) {
        if (several) {
          params.set("repo", chosen.getAttribute("data-repo"));
        }
        params.set("release", chosen.getAttribute("data-name"));
      }
      var query = params.toString();
      try {
        history.replaceState(null, "", location.pathname + (query ? "?" + query : "") + location.hash);
      } catch (e) {
        /* a browser that refuses to change the address keeps the filter all the same */
      }
    }

    var params = new URLSearchParams(location.search);
    var wanted = params.get("release");
    var wantedRepo = params.get("repo");
    Array.prototype.forEach.call(select.options, function (option) {
      if (option.value && option.getAttribute("data-name") === wanted &&
          (!wantedRepo || option.getAttribute("data-repo") === wantedRepo)) {
        if (!select.value) {
          select.value = option.value;
        }
      }
    });
    form.hidden = false;
    form.addEventListener("submit", function (event) {
      event.preventDefault();
    });
    select.addEventListener("change", function () {
      remember(apply());
    });
    apply();
  }

  setUpCopyButtons();
  fillPlaceholders();
  setUpReleaseFilter();
})();
