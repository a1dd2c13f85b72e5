package main

import (
	"context"
	"fmt"
	"strconv"
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

// phoneMonday is a technician's list on a Monday at 10:00 (the server's
// clock stopped there), in a workshop of the default hours: Brakes in
// progress since Friday 16:00, Oil change since 09:00, Wash to do.
type phoneMonday struct {
	w                 *testWorld
	org               *testOrg
	now               time.Time
	brakes, oil, wash workshop.Step
	brakesJob, oilJob workshop.Job
	techEmail         string
}

func newPhoneMonday(t *testing.T, databaseURL string) *phoneMonday {
	t.Helper()
	ctx := context.Background()
	zone := mustZone(t, "Europe/Berlin")
	day := time.Now().In(zone).AddDate(0, 0, 3)
	for day.Weekday() != time.Monday {
		day = day.AddDate(0, 0, 1)
	}
	p := &phoneMonday{now: time.Date(day.Year(), day.Month(), day.Day(), 10, 0, 0, 0, zone), techEmail: "jonas@phone.example"}
	st := storetest.Open(t, databaseURL, store.WithClock(func() time.Time { return p.now }))
	op := operator.New(st)
	op.Now = func() time.Time { return p.now }
	p.w = &testWorld{t: t, st: st, op: op}
	p.org = p.w.orgIn("Phone Motors", "pro", "Europe/Berlin")
	loc := p.org.Locations[0]
	user := appUser(t, p.w, p.org.ID, p.techEmail, workshop.RoleTechnician, testPassword)
	jonas, err := op.CreateTechnician(ctx, operator.TechnicianRequest{LocationID: loc.ID, Name: "Jonas Weber", WIPLimit: 3, UserID: user.ID})
	if err != nil {
		t.Fatal(err)
	}
	v := store.Visibility{OrgID: p.org.ID}
	step := func(label string, started *time.Time) (workshop.Job, workshop.Step) {
		t.Helper()
		j := p.w.job(p.org.ID, loc.ID)
		s := p.w.step(p.org.ID, j.ID)
		patch := store.StepPatch{UpdatedAt: s.UpdatedAt, Label: &label, TechIDs: &[]string{jonas.ID}}
		if started != nil {
			patch.Status, patch.ActualStart = refTo(workshop.StepInProgress), refTo(workshop.MicrosOf(*started))
		}
		if s, err = st.PatchStep(ctx, v, j.ID, s.ID, patch, workshop.MicrosOf(p.now)); err != nil {
			t.Fatal(err)
		}
		return j, s
	}
	p.brakesJob, p.brakes = step("Brakes", refTo(p.now.AddDate(0, 0, -3).Add(6*time.Hour))) // Friday 16:00
	p.oilJob, p.oil = step("Oil change", refTo(p.now.Add(-time.Hour)))
	_, p.wash = step("Wash", nil)
	return p
}

// A technician completes a step on a 390x844 phone (issue 43, item 4):
// the completion is said in words where the Complete button was, the
// card staying in its place, so that a second tap at the same spot lands
// on those words and opens nothing; the time spent on a step left in
// progress over the weekend is its working time (7:30: Friday 16:00 to
// 17:30, Saturday 09:00 to 13:00, Monday 08:00 to 10:00), not 66 hours.
func TestBrowserTechnicianCompletesAndTapsAgain(t *testing.T) {
	t.Parallel()
	b := newChrome(t)
	db := storetest.SQLiteURL(t)
	p := newPhoneMonday(t, db)
	srv := startServerAt(t, db, p.now)
	b.do(t, "a phone", chromedp.EmulateViewport(390, 844))
	b.signIn(t, srv.URL, p.techEmail)
	card := "#work-" + p.brakes.ID
	b.waitFor(t, "the list", `!!document.querySelector("`+card+`")`)
	spent, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.querySelector("`+card+` dt:nth-of-type(7) + dd").textContent`))
	if err != nil || !strings.HasPrefix(spent, "7:30 (since ") {
		t.Errorf("Brakes, in progress since Friday 16:00, has spent %q (%v), want 7:30 of working time", spent, err)
	}
	button := card + ` form[action*="/complete"] button`
	at, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]float64](`(() => { const b = document.querySelector(`+strconv.Quote(button)+`);
		b.scrollIntoView({block: "center"}); const r = b.getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; })()`))
	if err != nil {
		t.Fatal(err)
	}
	b.do(t, "tap Complete Brakes", chromedp.MouseClickXY(at[0], at[1]))
	b.waitFor(t, "the completion said in the card", `(document.querySelector("`+card+` .work-done") || {}).textContent === "Brakes completed at 10:00."`)
	b.waitFor(t, "the redraw settled", `!document.querySelector("main.settling") && !document.querySelector(".htmx-request")`)
	under, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`(e => e.closest(".work-done") ? "the confirmation" :
		(e.closest("a, button") || e).outerHTML.slice(0, 120))(document.elementFromPoint(`+fmt.Sprint(at[0])+`, `+fmt.Sprint(at[1])+`))`))
	if err != nil || under != "the confirmation" {
		t.Errorf("under the finger after the completion: %s (%v), want the confirmation", under, err)
	}
	b.screenshots(t, "mywork-completed")
	b.do(t, "the phone again", chromedp.EmulateViewport(390, 844))
	b.checkAccessible(t, "my work, a step completed")
	b.do(t, "scroll back", chromedp.Evaluate[chromedp.Void](`document.querySelector("`+card+` .work-done").scrollIntoView({block: "center"})`))
	at, err = chromedp.Run(b.ctx, chromedp.Evaluate[[]float64](`(r => [r.left + r.width / 2, r.top + r.height / 2])(
		document.querySelector("`+card+` .work-done").getBoundingClientRect())`))
	if err != nil {
		t.Fatal(err)
	}
	b.do(t, "tap the same place again", chromedp.MouseClickXY(at[0], at[1]))
	b.waitFor(t, "nothing in flight", `!document.querySelector(".htmx-request")`)
	if got := b.location(t); !strings.Contains(got, "/my/work") {
		t.Errorf("the second tap went to %s, want the list still", got)
	}
	if st := deskJob(t, p.w, p.org.ID, p.oilJob.ID).Steps[0]; st.Status != workshop.StepInProgress {
		t.Errorf("Oil change is %s after the second tap, want still in progress", st.Status)
	}
}
