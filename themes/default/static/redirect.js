/* Redirect pages: go on to the new address keeping #anchor and ?values, which a meta refresh drops. */
(function () {
  "use strict";
  var refresh = document.querySelector('meta[http-equiv="refresh"]');
  if (!refresh) {
    return;
  }
  var target = refresh.getAttribute("content").replace(/^\s*\d+\s*;\s*url=/i, "");
  location.replace(target + location.search + location.hash);
})();
