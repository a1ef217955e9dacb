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

  setUpCopyButtons();
  fillPlaceholders();
})();
