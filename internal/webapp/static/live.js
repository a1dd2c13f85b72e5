// The live board (and a technician's list of work, likewise): the body is
// swapped for each one the server sends over its event stream (GET
// .../board/events, /my/work/events). EventSource
// reconnects by itself across server restarts; the server sends the board
// again on every connection. A stream the server ends ("end": the session
// is over) or refuses reloads the page, which asks to sign in. The wall
// display also reloads itself every few minutes, once the server answers,
// to pick a new version of the application up.
(function () {
  "use strict";
  var board = document.querySelector("[data-live]"); // the board, or a technician's work
  if (!board || !board.dataset.live) return;
  if (window.workshopLive) window.workshopLive.close(); // a boosted page left one open
  var wall = board.dataset.wall;

  function reloadWhenUp() {
    fetch(wall || location.href, { credentials: "same-origin", cache: "no-store" }).then(function (r) {
      if (r.ok || r.redirected || r.status === 303) location.reload();
      else setTimeout(reloadWhenUp, 30000);
    }, function () { setTimeout(reloadWhenUp, 30000); });
  }
  if (wall) setInterval(reloadWhenUp, 5 * 60 * 1000);
  if (!window.EventSource) { setTimeout(reloadWhenUp, 60000); return; }

  var es = new EventSource(board.dataset.live);
  window.workshopLive = es;
  // A boosted link replaces the page without unloading it: the stream
  // closes with it (a board page opened next starts its own).
  function leave(e) {
    if (e.detail.target !== document.body) return;
    es.close();
    document.body.removeEventListener("htmx:beforeSwap", leave);
    document.body.removeEventListener("htmx:afterRequest", showHeldSoon);
  }
  document.body.addEventListener("htmx:beforeSwap", leave);
  function show(html) {
    board.innerHTML = html;
    if (window.htmx) window.htmx.process(board); // its links and forms boosted like the page's
    board.classList.remove("live-lost");
  }
  // A list that comes while a tap's answer is on its way waits: the answer
  // redraws the page, and the buttons stay disabled until then (the list
  // would bring them back enabled). An answer that redraws nothing (a
  // failure) shows the held list.
  var held = null;
  function showHeld() {
    if (held === null || !board.isConnected || document.querySelector("main .htmx-request")) return;
    var html = held;
    held = null;
    show(html);
  }
  // After the request's other events: its form is still on the page for
  // them (a failure's, which says so, comes after this one).
  function showHeldSoon() { setTimeout(showHeld, 0); }
  document.body.addEventListener("htmx:afterRequest", showHeldSoon);
  es.addEventListener("open", function () { board.classList.remove("live-lost"); });
  es.addEventListener("board", function (e) {
    if (!board.isConnected) { es.close(); return; } // navigated away
    held = e.data;
    showHeld();
  });
  es.addEventListener("end", function () { es.close(); location.reload(); });
  es.addEventListener("error", function () {
    board.classList.add("live-lost");
    if (es.readyState === EventSource.CLOSED) setTimeout(reloadWhenUp, 5000);
  });
})();
