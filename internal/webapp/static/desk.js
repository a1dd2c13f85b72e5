// The application's own behaviour, embedded and served as a file (the
// Content-Security-Policy allows no inline script). Every page works
// without it; it saves a round trip or a click where it can.
(function () {
  "use strict";
  // On a phone the header is one line: a menu button opens the rest. The
  // class tells the style sheet that the button works; without this file
  // the header shows everything.
  document.documentElement.classList.add("js");
  document.addEventListener("click", function (e) {
    var t = e.target.closest && e.target.closest(".menu-toggle");
    if (!t) return;
    var open = t.getAttribute("aria-expanded") !== "true";
    t.setAttribute("aria-expanded", String(open));
    t.closest(".bar").classList.toggle("open", open);
  });
  // The new-job form's quote: "Use ... as the promise" fills the promise
  // field in place (without JavaScript the button asks the server, which
  // shows the form again with it filled).
  document.addEventListener("click", function (e) {
    var b = e.target.closest && e.target.closest("button[data-promise]");
    if (!b) return;
    var input = document.getElementById("promiseTime");
    if (!input) return;
    e.preventDefault();
    input.value = b.getAttribute("data-promise");
    b.textContent = "Promise set: " + b.textContent.replace(/^Use /, "").replace(/ as the promise$/, "");
    b.disabled = true;
  });
})();
