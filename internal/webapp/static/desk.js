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
  // One answer at a time: the page's hx-sync drops a second tap while the
  // first is on its way (a late first answer would replace the page the
  // second's refusal is on). Meanwhile its buttons are disabled, so the
  // tap that would be dropped shows it cannot be made; the answer redraws
  // the page, or they come back when none is swapped in.
  function syncsOnMain(elt) {
    var main = elt.closest && elt.closest("main");
    return main && elt.closest("[hx-sync]") === main ? main : null;
  }
  document.addEventListener("htmx:beforeRequest", function (e) {
    var main = syncsOnMain(e.target);
    if (!main) return;
    main.querySelectorAll("form button:not(:disabled)").forEach(function (b) {
      b.disabled = true;
      b.setAttribute("data-busy", "");
    });
  });
  document.addEventListener("htmx:afterRequest", function (e) {
    // A request of its own (the new-job quote) leaves them as they are.
    if (e.target.isConnected && !syncsOnMain(e.target)) return;
    document.querySelectorAll("main button[data-busy]").forEach(function (b) {
      b.disabled = false;
      b.removeAttribute("data-busy");
    });
  });
  // A tap on a card's button (a technician's step: data-keep-place)
  // keeps the card where it was: the answer redraws the list with the
  // card in its place, saying what was done where the button was, and the
  // page is scrolled so that the card stays under the finger. Until the
  // redraw has settled the page takes no tap: a second quick tap lands
  // on nothing, never on another card. A refusal is shown where the
  // answer puts it instead.
  var kept = null;
  document.addEventListener("htmx:beforeRequest", function (e) {
    var card = e.target.closest && e.target.closest("[data-keep-place]");
    kept = card && card.id ? { id: card.id, top: card.getBoundingClientRect().top } : null;
  });
  document.addEventListener("htmx:afterSwap", function (e) {
    var was = kept;
    kept = null;
    if (!was || !e.detail.xhr || e.detail.xhr.status >= 300) return;
    var card = document.getElementById(was.id);
    if (card) window.scrollBy(0, card.getBoundingClientRect().top - was.top);
    var main = document.querySelector("main");
    if (!main) return;
    main.classList.add("settling");
    setTimeout(function () { main.classList.remove("settling"); }, 400);
  });
  // An answer that never came (the network), or a server error, which
  // swaps nothing in, says so in view: otherwise the tap would seem to
  // have done nothing.
  function failed(e) {
    var main = document.querySelector("main");
    if (!main) return;
    var p = document.getElementById("request-failed");
    if (!p) {
      p = document.createElement("p");
      p.id = "request-failed";
      p.className = "error";
      p.setAttribute("role", "alert");
      main.insertBefore(p, main.firstChild);
    }
    p.textContent = e.type === "htmx:responseError"
      ? "The server could not do that (error " + e.detail.xhr.status + "). Try again; if it happens again, tell your administrator."
      : "No answer from the server: check the connection, then try again. What you sent may not have been saved.";
    p.scrollIntoView({ block: "nearest" });
  }
  ["htmx:sendError", "htmx:timeout", "htmx:responseError"].forEach(function (name) {
    document.addEventListener(name, failed);
  });
})();
