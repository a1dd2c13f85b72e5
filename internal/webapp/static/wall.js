// The wall display pages through what does not fit one screen: each list
// (the jobs of a status, the bays, the technicians) is cut into pages of
// what fits its place, and every 15 s the next page shows, "page 1 of 3"
// said in the corner. Type keeps its size (the wall's documented scale):
// nothing shrinks to fit, nothing is cut off. Without this script, and
// on a screen narrower than a TV's layout (a phone, a tablet: one column),
// the wall lists everything and scrolls.
(function () {
  "use strict";
  var board = document.querySelector("body.wall #board");
  if (!board) return;
  var said = document.getElementById("wall-page");
  var PERIOD = 15000, page = 0, pages = 1;
  var wide = window.matchMedia("(min-width: 1101px)"); // app.css: the wall's one-column layout below

  function lists() { return board.querySelectorAll("ul.jobs, ul.bays, ul.techs"); }
  // cut gives each item of a list the page it is on, by where it falls in
  // the list's own height; it is the list's number of pages.
  function cut(ul) {
    var items = Array.prototype.slice.call(ul.children);
    items.forEach(function (li) { li.hidden = false; });
    var box = ul.getBoundingClientRect(), room = ul.clientHeight, p = 0, start = box.top;
    items.forEach(function (li) {
      var r = li.getBoundingClientRect();
      if (r.bottom - start > room + 0.5 && r.top > start) { p++; start = r.top; }
      li.dataset.page = p;
    });
    ul.dataset.pages = p + 1;
    return p + 1;
  }
  function show() {
    var paged = wide.matches;
    document.documentElement.classList.toggle("wall-paged", paged);
    if (!paged) {
      lists().forEach(function (ul) { Array.prototype.forEach.call(ul.children, function (li) { li.hidden = false; }); });
      said.textContent = "";
      pages = 1;
      return;
    }
    pages = 1;
    lists().forEach(function (ul) { pages = Math.max(pages, cut(ul)); });
    if (page >= pages) page = 0;
    lists().forEach(function (ul) {
      var mine = page % +ul.dataset.pages;
      Array.prototype.forEach.call(ul.children, function (li) { li.hidden = +li.dataset.page !== mine; });
    });
    said.textContent = pages > 1 ? "page " + (page + 1) + " of " + pages : "";
  }
  function next() { page = (page + 1) % pages; show(); }
  setInterval(next, PERIOD);
  // live.js swaps the board's body for each one the server sends.
  new MutationObserver(show).observe(board, { childList: true });
  window.addEventListener("resize", show);
  window.workshopWall = { next: next, pages: function () { return pages; } };
  show();
})();
