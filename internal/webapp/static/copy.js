// Copy buttons: a button with data-copy="ID" copies the value of the
// element with that id (a readonly input or textarea). Without scripts the
// buttons stay hidden and the value is there to select and copy by hand.
// A boosted page runs this again: the click handler is added once.
(function () {
  "use strict";
  if (!navigator.clipboard) return;
  document.querySelectorAll("button[data-copy][hidden]").forEach(function (b) { b.hidden = false; });
  if (window.workshopCopy) return;
  window.workshopCopy = true;
  document.addEventListener("click", function (e) {
    var b = e.target.closest && e.target.closest("button[data-copy]");
    if (!b) return;
    var field = document.getElementById(b.dataset.copy);
    if (!field) return;
    var label = b.dataset.label || b.textContent;
    b.dataset.label = label;
    navigator.clipboard.writeText(field.value).then(function () {
      b.textContent = "Copied";
    }, function () {
      field.select();
      b.textContent = "Select and copy it by hand";
    });
    setTimeout(function () { b.textContent = label; }, 3000);
  });
})();
