package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/workshop-platform/workshop/internal/operator"
	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// TestBrowserTechnicianPhone is a technician's day on a 390x844 phone
// (issue 27 item 7): signed in to their own work, each step with its job,
// plate, vehicle, bay, plan, estimate and time spent; the header one line
// of at most 64 px with a menu button; a start refused by the WIP limit
// says why at the step, on the same page; a step changed by someone else
// is marked on the live list; clocking out with a step in progress asks
// first and names it.
func TestBrowserTechnicianPhone(t *testing.T) {
	t.Parallel()
	b := newChrome(t)
	b.allowed = func(text string) bool {
		// the refused start; the answer made to fail below
		return strings.Contains(text, "status of 422") || strings.Contains(text, "htmx:sendError") || strings.Contains(text, "htmx:afterRequest")
	}
	ctx := context.Background()
	db := storetest.SQLiteURL(t)
	w := newWorld(t, db)
	org := w.org("Phone Motors", "pro", 1)
	loc := org.Locations[0]
	v := store.Visibility{OrgID: org.ID}
	techUser := appUser(t, w, org.ID, "jonas@example.com", workshop.RoleTechnician, testPassword)
	jonas, err := w.op.CreateTechnician(ctx, operator.TechnicianRequest{LocationID: loc.ID, Name: "Jonas Weber", WIPLimit: 1, UserID: techUser.ID})
	if err != nil {
		t.Fatal(err)
	}
	lift, err := w.op.CreateBay(ctx, loc.ID, "Lift 1", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	assigned := func(label, plate string) (workshop.Job, workshop.Step) {
		j := w.job(org.ID, loc.ID)
		model := "Golf"
		if _, err := w.st.PatchJob(ctx, v, j.ID, store.JobPatch{UpdatedAt: j.UpdatedAt, VehiclePlate: ptrTo(&plate), VehicleModel: ptrTo(&model)},
			workshop.MicrosOf(time.Now())); err != nil {
			t.Fatal(err)
		}
		now := workshop.MicrosOf(time.Now())
		st, err := w.st.CreateStep(ctx, v, workshop.Step{ID: workshop.NewID(workshop.PrefixStep), JobID: j.ID, Label: label,
			SchedulingMode: "sequential", EstimatedDuration: 30, TechIDs: []string{}, Status: workshop.StepPending, CreatedAt: now, UpdatedAt: now})
		if err != nil {
			t.Fatal(err)
		}
		st, err = w.st.PatchStep(ctx, v, j.ID, st.ID, store.StepPatch{UpdatedAt: st.UpdatedAt, TechIDs: &[]string{jonas.ID}, BayID: ptrTo(&lift.ID)},
			workshop.MicrosOf(time.Now()))
		if err != nil {
			t.Fatal(err)
		}
		return j, st
	}
	_, brakes := assigned("Brakes", "B-AA 1")
	oilJob, oil := assigned("Oil change", "B-BB 2")
	if _, err := w.st.ClockIn(ctx, v, jonas.ID, time.Now().Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	srv := startServer(t, db)

	b.do(t, "a phone", chromedp.EmulateViewport(390, 844))
	b.signIn(t, srv.URL, "jonas@example.com")
	if got := b.location(t); !strings.HasSuffix(got, "/my/work") {
		t.Errorf("a technician signs in to %s, want /my/work", got)
	}
	height, err := chromedp.Run(b.ctx, chromedp.Evaluate[float64](`document.querySelector("header.bar").getBoundingClientRect().height`))
	if err != nil || height > 64 {
		t.Errorf("the header on a 390x844 phone is %.0f px high (%v), want at most 64", height, err)
	}
	b.screenshots(t, "mywork")
	b.do(t, "a phone again", chromedp.EmulateViewport(390, 844))
	b.checkAccessible(t, "my work on a phone")
	b.do(t, "open the menu", jsClick(`.menu-toggle`))
	b.waitFor(t, "the menu open", `document.querySelector('.bar a[href="/my/work"]').getBoundingClientRect().height > 0`)
	b.checkAccessible(t, "my work, menu open")
	b.do(t, "close the menu", jsClick(`.menu-toggle`))

	card := "#work-" + brakes.ID
	text := b.text(t, card)
	for _, want := range []string{"Brakes", "B-AA 1", "Golf", "Lift 1", "0:30", "Plan", "Time spent"} {
		if !strings.Contains(text, want) {
			t.Errorf("my work's step lacks %q: %s", want, text)
		}
	}

	// Two quick taps, Brakes then Oil change: one answer at a time, so
	// the second is not sent (its button disabled while the first is on
	// its way); otherwise the later answer would replace the page the
	// other is on. Brakes starts.
	oilCard := "#work-" + oil.ID
	b.do(t, "tap start Brakes, then start Oil change at once", chromedp.Evaluate[chromedp.Void](`
		document.querySelector("`+card+` form[action*='/start'] button").click();
		document.querySelector("`+oilCard+` form[action*='/start'] button").click();`),
		waitVisible(card+` form[action*="/complete"] button`))
	b.waitFor(t, "the start answered", `!document.querySelector(".htmx-request")`)
	sent, err := chromedp.Run(b.ctx, chromedp.Evaluate[int](`performance.getEntriesByType("resource").
		filter(e => e.name.includes("/steps/`+oil.ID+`/start")).length`))
	if err != nil || sent != 0 {
		t.Errorf("the second tap sent %d requests (%v), want none while the first was on its way", sent, err)
	}
	if refused, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](`!!document.querySelector("#refusal")`)); err != nil || refused {
		t.Errorf("after the two taps the page shows a refusal (%v), want Brakes started only", err)
	}

	// Oil change is refused (WIP limit 1), the reason at the step, the
	// page still the list.
	b.do(t, "start Oil change", jsClick(oilCard+` form[action*="/start"] button`), waitVisible(`#refusal[role="alert"]`))
	if msg := b.text(t, "#refusal"); !strings.Contains(msg, "Oil change") || !strings.Contains(msg, "limit") {
		t.Errorf("the refused start says %q, want the step and the WIP limit", msg)
	}
	if got := b.location(t); !strings.HasSuffix(got, "/my/work") {
		t.Errorf("after a refused start the address bar is %s, want /my/work", got)
	}
	b.waitFor(t, "the refusal in view", `(r => r.top >= -1 && r.bottom <= innerHeight)(document.querySelector("#refusal").getBoundingClientRect())`)
	b.screenshots(t, "mywork-refused")
	b.do(t, "a phone again", chromedp.EmulateViewport(390, 844))

	// Someone else changes the next step: the live list marks it.
	cur := deskJob(t, w, org.ID, oilJob.ID).Steps[0]
	if _, err := w.st.PatchStep(ctx, v, oilJob.ID, oil.ID, store.StepPatch{UpdatedAt: cur.UpdatedAt, BayID: ptrTo[*string](nil)},
		workshop.MicrosOf(time.Now())); err != nil {
		t.Fatal(err)
	}
	b.waitFor(t, "the changed step marked", `!!document.querySelector("`+oilCard+` .changed-mark")`)
	if text := b.text(t, oilCard); !strings.Contains(text, "none") {
		t.Errorf("the changed step shows %q, want its bay gone", text)
	}

	// A tap whose answer never comes (the network fails): while it is on
	// its way the buttons are disabled and a new list waits; when it fails
	// the buttons come back and the list that came meanwhile shows.
	b.do(t, "hold the next complete", chromedp.Evaluate[chromedp.Void](`(() => {
		const open = XMLHttpRequest.prototype.open, send = XMLHttpRequest.prototype.send;
		window.restoreXHR = () => { XMLHttpRequest.prototype.open = open; XMLHttpRequest.prototype.send = send; };
		XMLHttpRequest.prototype.open = function (method, url) { this.url = url; return open.apply(this, arguments); };
		XMLHttpRequest.prototype.send = function () {
			if (!String(this.url).includes("/complete")) return send.apply(this, arguments);
			window.heldXHR = this; // never sent
		};
		window.lists = 0;
		window.workshopLive.addEventListener("board", () => window.lists++);
	})()`))
	b.do(t, "tap complete Brakes", jsClick(card+` form[action*="/complete"] button`))
	b.waitFor(t, "the buttons disabled", `!!window.heldXHR && document.querySelector("`+oilCard+` form[action*='/start'] button").disabled`)
	cur = deskJob(t, w, org.ID, oilJob.ID).Steps[0]
	if _, err := w.st.PatchStep(ctx, v, oilJob.ID, oil.ID, store.StepPatch{UpdatedAt: cur.UpdatedAt, BayID: ptrTo(&lift.ID)},
		workshop.MicrosOf(time.Now())); err != nil {
		t.Fatal(err)
	}
	b.waitFor(t, "the new list came", `window.lists > 0`)
	if text := b.text(t, oilCard); strings.Contains(text, "Lift 1") {
		t.Errorf("a list was shown while an answer was on its way: %q", text)
	}
	b.do(t, "the answer fails", chromedp.Evaluate[chromedp.Void](`window.heldXHR.onerror(); window.restoreXHR()`))
	b.waitFor(t, "the held list shown", `document.querySelector("`+oilCard+`").textContent.includes("Lift 1")`)
	b.waitFor(t, "the buttons back", `!document.querySelector("`+card+` form[action*='/complete'] button").disabled`)
	b.waitText(t, "the failure said", "#request-failed", "No answer from the server: check the connection, then try again. What you sent may not have been saved.")
	b.waitFor(t, "the failure in view", `(r => r.top >= -1 && r.bottom <= innerHeight)(document.querySelector("#request-failed").getBoundingClientRect())`)
	b.screenshots(t, "mywork-no-answer")
	b.do(t, "a phone again", chromedp.EmulateViewport(390, 844))
	b.checkAccessible(t, "my work, no answer")
	if step := deskJob(t, w, org.ID, oilJob.ID).Steps[0]; step.Status != workshop.StepPending {
		t.Errorf("Oil change is %s, want pending", step.Status)
	}

	// Clocking out with Brakes in progress asks first, naming it.
	b.do(t, "the time clock", navigate(srv.URL+"/locations/"+loc.ID+"/clock"), waitVisible(`.clock-button`))
	b.do(t, "tap clock out", jsClick(`.clock-button`), waitVisible(`#ask-heading`))
	if text := b.text(t, "section.confirm"); !strings.Contains(text, "Brakes") {
		t.Errorf("the clock-out question says %q, want Brakes named", text)
	}
	if open, err := w.st.OpenAttendance(ctx, v); err != nil || len(open) != 1 {
		t.Errorf("asking clocked out: %d open records (%v), want still 1", len(open), err)
	}
	b.screenshots(t, "clockout-ask")
	b.do(t, "a phone again", chromedp.EmulateViewport(390, 844))
	b.checkAccessible(t, "the clock-out question")
	b.do(t, "clock out anyway", jsClick(`section.confirm button[type="submit"]`))
	b.waitFor(t, "clocked out", `(document.querySelector(".confirmation") || {}).textContent === "Jonas Weber clocked out."`)
}
