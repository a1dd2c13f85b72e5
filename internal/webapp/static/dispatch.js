// The dispatch timeline, moved by hand. The page is drawn on the server
// and works without this script (each bar opens its step's move form);
// this adds, for the same form post (.../steps/{id}/move):
//   - dragging a bar or a tray step with the pointer to a row and a time,
//     snapped to 5 minutes;
//   - the same by keyboard: focus a bar, arrow keys pick a row (up, down)
//     and a time (left, right: 5 minutes; with Shift, an hour), Enter
//     moves it there, Escape leaves it;
//   - live updates: the timeline is swapped for each one the server sends
//     over its event stream (as live.js does for the board), but never in
//     the middle of a move.
// A refused move puts the bar back and says why; a move onto a technician
// without the step's skills or a bay without its service asks first.
(function () {
  "use strict";
  var root = document.getElementById("dispatch");
  if (!root) return;
  var said = document.getElementById("dispatch-message");
  var alarm = document.getElementById("dispatch-alert");
  var SNAP = 5;

  function say(text, undo) {
    alarm.textContent = "";
    said.textContent = text;
    if (undo) { // the step's earlier technicians, bay and time, with its new version
      var b = document.createElement("button");
      b.type = "button";
      b.className = "undo";
      b.textContent = "Undo";
      b.addEventListener("click", function () { sendUndo(undo, b); });
      said.appendChild(document.createTextNode(" "));
      said.appendChild(b);
    }
  }
  function warn(text) { said.textContent = ""; alarm.textContent = text; }

  // ---- live updates
  var pendingBody = null, busy = false, keep = null; // keep: the step whose bar keeps the focus
  function swap(html) {
    if (busy) { pendingBody = html; return; }
    var focused = document.activeElement && root.contains(document.activeElement) && document.activeElement.closest("[data-step]");
    var step = focused ? focused.dataset.step : keep;
    var scroll = tl() ? tl().scrollLeft : 0;
    root.innerHTML = html;
    if (tl()) tl().scrollLeft = scroll;
    if (step) refocus(step);
  }
  function tl() { return root.querySelector(".tl"); }
  // refocus puts the keyboard on the step's bar (in the row it moved to).
  function refocus(step) {
    var again = root.querySelector(".tl-bar[data-step=\"" + step + "\"] a, .tray-step[data-step=\"" + step + "\"] a");
    if (again) again.focus({ preventScroll: true });
  }
  function idle() {
    busy = false;
    if (pendingBody !== null) { var html = pendingBody; pendingBody = null; swap(html); }
  }
  if (window.workshopDispatch) window.workshopDispatch.close(); // a boosted page left one open
  if (window.EventSource && root.dataset.live) {
    var es = new EventSource(root.dataset.live);
    window.workshopDispatch = es;
    var leave = function (e) {
      if (e.detail.target !== document.body) return;
      es.close();
      document.body.removeEventListener("htmx:beforeSwap", leave);
    };
    document.body.addEventListener("htmx:beforeSwap", leave);
    es.addEventListener("open", function () { root.classList.remove("live-lost"); });
    es.addEventListener("board", function (e) {
      if (!root.isConnected) { es.close(); return; }
      swap(e.data);
    });
    es.addEventListener("end", function () { es.close(); location.reload(); });
    es.addEventListener("error", function () { root.classList.add("live-lost"); });
  }

  // ---- the axis
  function timeline() { return root.querySelector(".timeline"); }
  function axis() {
    var t = timeline();
    return { from: +t.dataset.axisFrom, span: +t.dataset.axisSpan, date: t.dataset.date, by: t.dataset.by };
  }
  function clock(minute) {
    var h = Math.floor(minute / 60), m = minute % 60;
    return (h < 10 ? "0" : "") + h + ":" + (m < 10 ? "0" : "") + m;
  }
  function rows() { return Array.prototype.slice.call(root.querySelectorAll(".tl-row[data-row]")); }
  function snap(minute, ax) {
    var m = Math.round(minute / SNAP) * SNAP;
    return Math.max(ax.from, Math.min(ax.from + ax.span - SNAP, m));
  }
  function minuteAt(clientX, track, ax) {
    var r = track.getBoundingClientRect();
    return snap(ax.from + (clientX - r.left) / r.width * ax.span, ax);
  }
  function leftOf(minute, ax) { return (minute - ax.from) / ax.span * 100; }

  // ---- a move in the making: the item (a bar or a tray step), where it
  // would go (row, minute) and a ghost drawn there.
  function Move(item) {
    var ax = axis();
    this.item = item;
    this.ax = ax;
    this.fromRow = item.closest(".tl-row");
    this.width = item.classList.contains("tl-bar") ? parseFloat(item.style.width) : 100 * 60 / ax.span;
    this.row = this.fromRow || rows()[0];
    this.minute = item.classList.contains("tl-bar") ? +item.dataset.start : ax.from; // its real start, on or off the grid
    this.ghost = document.createElement("span");
    this.ghost.className = "drop-ghost";
    this.ghost.setAttribute("aria-hidden", "true");
    busy = true;
  }
  Move.prototype.show = function () {
    rows().forEach(function (r) { r.classList.remove("drop-target"); });
    if (!this.row) return;
    this.row.classList.add("drop-target");
    var track = this.row.querySelector(".tl-track");
    if (this.ghost.parentNode !== track) track.appendChild(this.ghost);
    this.ghost.style.left = leftOf(this.minute, this.ax) + "%";
    this.ghost.style.width = this.width + "%";
    this.ghost.textContent = clock(this.minute);
  };
  // by moves the start to the next (or previous) multiple of step minutes.
  Move.prototype.by = function (step) {
    var m = step > 0 ? Math.floor(this.minute / step) * step + step : Math.ceil(this.minute / -step) * -step + step;
    this.minute = Math.max(this.ax.from, Math.min(this.ax.from + this.ax.span - SNAP, m));
  };
  Move.prototype.where = function () { return this.row.dataset.name + ", " + clock(this.minute); };
  Move.prototype.end = function () {
    this.ghost.remove();
    rows().forEach(function (r) { r.classList.remove("drop-target"); });
    this.item.classList.remove("dragging", "picked");
    this.item.style.transform = "";
  };
  // fields are the form's: technicians and bay after the move, the start.
  Move.prototype.fields = function () {
    var techs = (this.item.dataset.techs || "").split(" ").filter(Boolean);
    var bay = this.item.dataset.bay || "";
    var target = this.row.dataset.row;
    if (this.ax.by === "bay") {
      bay = target;
    } else {
      var from = this.fromRow && this.fromRow.dataset.row;
      var i = techs.indexOf(from);
      if (i >= 0) techs[i] = target; // a shared step: this row's technician is replaced
      else techs = [target];
      techs = techs.filter(function (t, j) { return techs.indexOf(t) === j; });
    }
    var f = new URLSearchParams(); // a urlencoded body, as a form sends
    techs.forEach(function (t) { f.append("techIds", t); });
    f.append("bayId", bay);
    f.append("start", this.ax.date + "T" + clock(this.minute));
    f.append("updatedAt", this.item.dataset.updated);
    f.append("action", "move");
    return f;
  };
  Move.prototype.send = function (confirmed) {
    var m = this, f = m.fields();
    if (confirmed) f.append("confirm", "1");
    var url = timeline().dataset.steps + m.item.dataset.step + "/move";
    var step = m.item.dataset.step, wasBar = m.item.classList.contains("tl-bar");
    m.item.setAttribute("aria-busy", "true");
    return post(url, f).then(function (a) {
      m.item.removeAttribute("aria-busy");
      if (a.confirm) {
        if (window.confirm(a.confirm)) return m.send(true);
        m.end();
        say("Not moved.");
        idle();
        if (wasBar) refocus(step);
        return;
      }
      m.end();
      if (a.error) {
        warn(a.error + " " + "The step stays where it was.");
      } else {
        say(a.message, a.undo);
        if (a.updatedAt) m.item.dataset.updated = a.updatedAt; // a next move before the redraw is not stale
        if (wasBar) { // where it went, until the server's drawing arrives
          m.row.querySelector(".tl-track").appendChild(m.item);
          m.item.style.left = leftOf(m.minute, m.ax) + "%";
          m.item.dataset.start = m.minute;
        }
      }
      keep = step;
      idle();
      refocus(step);
    });
  };

  // post sends a form's fields and reads the JSON answer.
  function post(url, f) {
    return fetch(url, { method: "POST", body: f, credentials: "same-origin", headers: { "Accept": "application/json" } })
      .then(function (r) {
        return r.json().catch(function () { return { error: "The server did not answer (" + r.status + ")." }; });
      }, function () { return { error: "The server could not be reached: nothing was changed." }; });
  }

  // sendUndo puts a moved step back as it was, if no one changed it since.
  function sendUndo(undo, button) {
    var f = new URLSearchParams();
    Object.keys(undo.fields).forEach(function (k) {
      [].concat(undo.fields[k]).forEach(function (v) { f.append(k, v); });
    });
    button.disabled = true;
    post(undo.url, f).then(function (a) {
      if (a.error) warn(a.error); else say(a.message);
      var item = root.querySelector("[data-step=\"" + undo.step + "\"]");
      if (item && a.updatedAt) item.dataset.updated = a.updatedAt;
      keep = undo.step;
      refocus(undo.step);
    });
  }

  // ---- what a move would do: the plan's preview, asked 150 ms after the
  // pointer (or the keyboard) stops, said beside the ghost and in words.
  var previewTimer = null, previewSeq = 0;
  var previewed = document.getElementById("dispatch-preview");
  function preview(m) {
    clearTimeout(previewTimer);
    var seq = ++previewSeq;
    previewTimer = setTimeout(function () {
      var f = m.fields();
      post(timeline().dataset.steps + m.item.dataset.step + "/preview", f).then(function (a) {
        if (seq !== previewSeq || !m.ghost.isConnected) return; // moved on since
        var words = a.error || a.effects || "";
        m.ghost.dataset.effects = words;
        m.ghost.classList.toggle("costly", !!a.late);
        if (previewed) previewed.textContent = words ? "If moved to " + m.where() + ": " + words : "";
      });
    }, 150);
  }
  function stopPreview() {
    clearTimeout(previewTimer);
    previewSeq++;
    if (previewed) previewed.textContent = "";
  }

  function movable(target) {
    if (!timeline() || !timeline().dataset.mayMove) return null;
    if (target.closest("button")) return null; // the Accept button
    return target.closest(".tl-bar[data-movable], .tray-step[data-movable]");
  }

  // ---- pointer drags
  // rowAt is the row under the pointer, looking through the dragged item.
  function rowAt(x, y, item) {
    return document.elementsFromPoint(x, y).filter(function (el) { return !item.contains(el); })
      .map(function (el) { return el.closest(".tl-row[data-row]"); }).filter(Boolean)[0];
  }
  var drag = null, justDragged = false;
  root.addEventListener("pointerdown", function (e) {
    if (e.button !== 0 || drag) return;
    var item = movable(e.target);
    if (!item) return;
    // The bar's start follows the pointer as it was grabbed.
    var offset = item.classList.contains("tl-bar") ? e.clientX - item.getBoundingClientRect().left : 0;
    drag = { item: item, x: e.clientX, y: e.clientY, id: e.pointerId, move: null, offset: offset };
    busy = true; // no swap under a pressed pointer: the item would be gone
    item.setPointerCapture(e.pointerId);
  });
  root.addEventListener("pointermove", function (e) {
    if (!drag || e.pointerId !== drag.id) return;
    if (!drag.move) {
      if (Math.abs(e.clientX - drag.x) + Math.abs(e.clientY - drag.y) < 6) return;
      drag.move = new Move(drag.item);
      drag.item.classList.add("dragging");
    }
    e.preventDefault();
    drag.item.style.transform = "translate(" + (e.clientX - drag.x) + "px," + (e.clientY - drag.y) + "px)";
    var under = rowAt(e.clientX, e.clientY, drag.item);
    if (under) {
      drag.move.row = under;
      var minute = minuteAt(e.clientX - drag.offset, under.querySelector(".tl-track"), drag.move.ax);
      if (under !== drag.move.row || minute !== drag.move.minute || !drag.move.ghost.isConnected) {
        drag.move.row = under;
        drag.move.minute = minute;
        drag.move.show();
        preview(drag.move);
      }
    }
  });
  function drop(e) {
    if (!drag || e.pointerId !== drag.id) return;
    var d = drag;
    drag = null;
    stopPreview();
    if (!d.move) { idle(); return; } // a click: the link opens the form
    justDragged = true;
    setTimeout(function () { justDragged = false; }, 0);
    var under = e.type === "pointerup" && rowAt(e.clientX, e.clientY, d.item);
    if (!under) { d.move.end(); idle(); say("Not moved."); return; }
    d.move.send(false);
  }
  // A link's own drag and drop would take the pointer away (pointercancel).
  root.addEventListener("dragstart", function (e) { if (movable(e.target)) e.preventDefault(); });
  root.addEventListener("pointerup", drop);
  root.addEventListener("pointercancel", drop);
  root.addEventListener("click", function (e) { if (justDragged) { e.preventDefault(); e.stopPropagation(); } }, true);

  // ---- keyboard moves: each arrow key moves the bar to be (a row, or the
  // next 5 minutes), Enter moves it there, Escape leaves it.
  var picked = null;
  root.addEventListener("keydown", function (e) {
    var item = e.target.tagName === "A" && movable(e.target);
    if (!item) return;
    var keys = { ArrowLeft: 1, ArrowRight: 1, ArrowUp: 1, ArrowDown: 1 };
    if (keys[e.key]) {
      e.preventDefault();
      if (!picked || picked.item !== item) {
        if (picked) picked.end();
        picked = new Move(item);
        item.classList.add("picked");
      }
      var step = e.shiftKey ? 60 : SNAP, all = rows(), i = all.indexOf(picked.row);
      if (e.key === "ArrowLeft") picked.by(-step);
      if (e.key === "ArrowRight") picked.by(step);
      if (e.key === "ArrowUp" && i > 0) picked.row = all[i - 1];
      if (e.key === "ArrowDown" && i < all.length - 1) picked.row = all[i + 1];
      picked.show();
      preview(picked);
      say("Move to " + picked.where() + "? Enter to move, Escape to leave it.");
    } else if (e.key === "Enter" && picked && picked.item === item) {
      e.preventDefault();
      var m = picked;
      picked = null;
      stopPreview();
      m.send(false);
    } else if (e.key === "Escape" && picked) {
      picked.end();
      picked = null;
      stopPreview();
      say("Not moved.");
      idle();
    }
  });

  // ---- a bar's form in place: a click or tap on a bar (or the text beside
  // it) opens the form its link leads to in a dialog; without this script
  // the link opens the form's page.
  var dialog = null;
  function openForm(href, opener) {
    if (!dialog) {
      dialog = document.createElement("dialog");
      dialog.className = "step-dialog";
      dialog.setAttribute("aria-labelledby", "step-dialog-title");
      document.body.appendChild(dialog);
      dialog.addEventListener("close", function () {
        busy = false;
        idle();
        if (dialog.opener && dialog.opener.isConnected) dialog.opener.focus();
        else if (dialog.step) refocus(dialog.step);
      });
    }
    fetch(href, { credentials: "same-origin" }).then(function (r) { return r.text(); }).then(function (html) {
      var doc = new DOMParser().parseFromString(html, "text/html");
      var sheet = doc.querySelector(".step-sheet");
      if (!sheet) { location.href = href; return; }
      var h = sheet.querySelector("h1");
      if (h) { h.id = "step-dialog-title"; }
      dialog.innerHTML = "";
      var close = document.createElement("button");
      close.type = "button";
      close.className = "dialog-close secondary";
      close.textContent = "Close";
      close.addEventListener("click", function () { dialog.close(); });
      dialog.appendChild(close);
      dialog.appendChild(document.importNode(sheet, true));
      dialog.opener = opener;
      dialog.step = opener && opener.closest("[data-step]") && opener.closest("[data-step]").dataset.step;
      busy = true; // no redraw under an open form
      if (!dialog.open) dialog.showModal();
      formPreview(dialog.querySelector("form.move-form"));
    });
  }
  root.addEventListener("click", function (e) {
    if (e.defaultPrevented || e.button !== 0 || e.ctrlKey || e.metaKey || e.shiftKey) return;
    var bar = e.target.closest(".tl-bar");
    if (!bar) return;
    var link = bar.querySelector("a");
    if (!link) return;
    e.preventDefault();
    openForm(link.href, link);
  });
  // The move form in the dialog: its preview as its fields change, and
  // its move sent as a drag's is (Undo offered); Accept and the rest post
  // as they do without this script.
  function formPreview(form) {
    if (!form) return;
    var out = form.querySelector(".form-preview");
    var seq = 0;
    function ask() {
      var f = new URLSearchParams(new FormData(form));
      var s = ++seq;
      out.textContent = "Working out what this move would do…";
      post(form.getAttribute("action").replace(/\/move$/, "/preview"), f).then(function (a) {
        if (s === seq) out.textContent = a.error || ("If moved so: " + a.effects);
      });
    }
    form.addEventListener("change", ask);
    form.addEventListener("submit", function (e) {
      var how = e.submitter && e.submitter.value;
      if (how !== "move" && how !== "unschedule") return;
      e.preventDefault();
      var f = new URLSearchParams(new FormData(form));
      f.set("action", how);
      var to = form.getAttribute("action");
      post(to, f).then(function answer(a) {
        if (a.confirm) {
          if (!window.confirm(a.confirm)) return;
          f.set("confirm", "1");
          return post(to, f).then(answer);
        }
        if (a.error) { out.textContent = a.error; out.classList.add("error"); return; }
        keep = dialog.step;
        dialog.close();
        say(a.message, a.undo);
      });
    });
    ask();
  }
  // Said once every handler is in place: a page swapped in by a boosted
  // link shows before its script has run, and a click meanwhile follows
  // the bar's link to the form's own page (tests wait for this).
  root.dataset.ready = "true";
})();
