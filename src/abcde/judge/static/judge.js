// abcde judge: the keys. Every move is a form POST or a link, so the page works
// without this script; it maps keys to those buttons and links, and stops a second
// verdict from being sent before the page has moved on.
(function () {
  "use strict";
  var sending = false;

  function keyName(event) {
    return event.key.length === 1 ? event.key.toLowerCase() : event.key.toLowerCase();
  }

  function target(key) {
    var all = document.querySelectorAll("[data-keys]");
    for (var i = 0; i < all.length; i++) {
      if (all[i].getAttribute("data-keys").split(" ").indexOf(key) >= 0) {
        return all[i];
      }
    }
    return null;
  }

  function toggleHelp(show) {
    var help = document.getElementById("help");
    if (!help) { return; }
    help.hidden = (show === undefined) ? !help.hidden : !show;
  }

  document.addEventListener("submit", function (event) {
    if (sending) {
      event.preventDefault();
      return;
    }
    sending = true;
    document.body.classList.add("sending");
  });

  window.addEventListener("pageshow", function () {
    // back/forward cache: a page shown again may send again
    sending = false;
    document.body.classList.remove("sending");
  });

  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey || event.isComposing) { return; }
    var t = event.target;
    if (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName))) { return; }
    var key = keyName(event);
    if (key === "escape") { toggleHelp(false); return; }
    // every page has the keys (#help), not every page a button for them
    if (key === "?") { event.preventDefault(); toggleHelp(); return; }
    var el = target(key);
    if (!el) { return; }
    event.preventDefault();
    if (sending || event.repeat) { return; }
    el.click();
  });

  document.addEventListener("click", function (event) {
    var el = event.target.closest ? event.target.closest("#help-button") : null;
    if (el) { toggleHelp(); }
  });
})();
