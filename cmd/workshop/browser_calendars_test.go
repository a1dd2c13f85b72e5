package main

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/workshop-platform/workshop/internal/operator"
	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// TestBrowserTechnicianCalendar: on a technician's page an owner gives
// working hours (a malformed one says why beside the field), adds an
// absence (a bad one says why beside the field), and removes it after a
// page that asks first, which then says it is done; the page passes
// axe-core and fits a laptop and a phone.
func TestBrowserTechnicianCalendar(t *testing.T) {
	t.Parallel()
	b := newChrome(t)
	b.allowed = func(text string) bool { return strings.Contains(text, "status of 422") }
	ctx := context.Background()
	db := storetest.SQLiteURL(t)
	w := newWorld(t, db)
	org := w.org("Calendar Browser Motors", "pro", 1)
	loc := org.Locations[0]
	appUser(t, w, org.ID, "boss@example.com", workshop.RoleOwner, testPassword)
	tech, err := w.op.CreateTechnician(ctx, operator.TechnicianRequest{LocationID: loc.ID, Name: "Aylin Demir", WIPLimit: 2})
	if err != nil {
		t.Fatal(err)
	}
	v := store.Visibility{OrgID: org.ID}
	srv := startServer(t, db)
	b.do(t, "a laptop", chromedp.EmulateViewport(1366, 768))
	b.signIn(t, srv.URL, "boss@example.com")
	b.do(t, "the technician's page", navigate(srv.URL+"/technicians/"+tech.ID), waitVisible(`#calendar-heading`))

	edit := `form[action$="/edit"] `
	b.do(t, "malformed hours", chromedp.SetValue(edit+`#workingHours`, "mornings"), jsClick(edit+`button[type="submit"]`))
	b.waitFor(t, "the message beside the hours", `!!document.getElementById("workingHours-error")`)
	b.checkAccessible(t, "technician page with a refused edit")
	b.do(t, "part-time hours", chromedp.SetValue(edit+`#workingHours`, "mon-fri 08:00-13:00"), jsClick(edit+`button[type="submit"]`))
	b.waitFor(t, "the hours shown", `document.querySelector(".facts").textContent.includes("fri 08:00-13:00")`)
	if got, err := w.st.Technician(ctx, v, tech.ID); err != nil || workshop.FormatWorkingHours(got.WorkingHours) !=
		"mon-fri 08:00-13:00" {
		t.Errorf("working hours stored: %v (%v), want Monday to Friday mornings", got.WorkingHours, err)
	}

	add := `form[action$="/absences"] `
	b.do(t, "an absence ending before it starts", chromedp.SetValue(add+`#start`, "2026-12-18T08:00"),
		chromedp.SetValue(add+`#end`, "2026-12-14T08:00"), chromedp.SetValue(add+`#reason`, "vacation"), jsClick(add+`button[type="submit"]`))
	b.waitFor(t, "the message beside the end", `!!document.getElementById("end-error")`)
	if got := b.text(t, `#end-error`); !strings.Contains(got, "after start") {
		t.Errorf("the end's message: %q, want it to say the end comes after the start", got)
	}
	b.do(t, "a vacation", chromedp.SetValue(add+`#start`, "2026-12-14T00:00"), chromedp.SetValue(add+`#end`, "2026-12-19T00:00"),
		chromedp.SetValue(add+`#reason`, "vacation"), chromedp.SetValue(add+`#note`, "Skiing"), jsClick(add+`button[type="submit"]`))
	b.waitFor(t, "the absence listed", `!!document.querySelector(".calendar-list") && document.querySelector(".calendar-list").textContent.includes("Skiing")`)
	list, err := w.st.Absences(ctx, store.CalendarFilter{Visibility: v, Owner: tech.ID}, workshop.PageRequest{Limit: 10})
	if err != nil || len(list.Data) != 1 || list.Data[0].Reason != "vacation" {
		t.Fatalf("absences stored: %+v (%v), want the vacation", list.Data, err)
	}
	b.checkShopFloor(t, "technician page with an absence")
	b.do(t, "back to a laptop", chromedp.EmulateViewport(1366, 768))
	b.screenshots(t, "technician-calendar")

	b.do(t, "remove it", jsClick(`.calendar-list a`))
	b.waitFor(t, "the question first", `document.querySelector("h1").textContent.includes("Remove Aylin Demir's absence?")`)
	if got := b.text(t, "main form p"); !strings.Contains(got, "Vacation from") {
		t.Errorf("the question says %q, want it to name the vacation and its dates", got)
	}
	b.checkAccessible(t, "the removal's question")
	b.do(t, "confirm", jsClick(`main form button[type="submit"]`))
	b.waitFor(t, "the page says it is done", `(document.querySelector('[role="status"]') || {textContent: ""}).textContent.includes("The absence is removed")`)
	if list, err := w.st.Absences(ctx, store.CalendarFilter{Visibility: v, Owner: tech.ID}, workshop.PageRequest{Limit: 10}); err != nil || len(list.Data) != 0 {
		t.Errorf("after the removal: %d absences (%v), want none", len(list.Data), err)
	}
	b.do(t, "a phone", chromedp.EmulateViewport(390, 844))
	overflow, err := chromedp.Run(b.ctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth - window.innerWidth`))
	if err != nil || overflow > 0 {
		t.Errorf("the technician page on a phone is %d px wider than the screen (%v)", overflow, err)
	}
}

// TestBrowserBookingFromDays: on the demo's new-job form an advisor
// chooses a catalog step, sees the days to offer, takes one (the job
// becomes a booking with that drop-off time and promise) and creates it;
// on a laptop and a phone.
func TestBrowserBookingFromDays(t *testing.T) {
	t.Parallel()
	b := newChrome(t)
	db := storetest.SQLiteURL(t)
	base, loc := demoSignIn(t, b, db, workshop.RoleAdvisor)
	b.do(t, "a laptop", chromedp.EmulateViewport(1366, 768))
	b.do(t, "the new job form", navigate(base+"/locations/"+loc+"/jobs/new"), waitVisible(`input[name="serviceCodes"][value="OIL"]`))
	b.do(t, "an oil change", jsClick(`input[name="serviceCodes"][value="OIL"]`))
	b.waitFor(t, "the days to offer", `!!document.querySelector('#quote button[name="useDay"]')`)
	label := b.text(t, `#quote button[name="useDay"]`)
	if !strings.Contains(label, ": ready ") {
		t.Errorf("the first day offered reads %q, want \"Day: ready HH:MM\"", label)
	}
	b.checkAccessible(t, "the new job form with the days to offer")
	for _, size := range []struct {
		name          string
		width, height int64
	}{{"phone", 390, 844}, {"laptop", 1366, 768}} {
		b.do(t, "the days on a "+size.name, chromedp.EmulateViewport(size.width, size.height),
			chromedp.Evaluate[chromedp.Void](`document.querySelector("#quote").scrollIntoView({block: "center"})`))
		b.screenshot(t, "newjob-days-"+size.name)
	}
	b.do(t, "a laptop again", chromedp.EmulateViewport(1366, 768))
	b.do(t, "take the first day", jsClick(`#quote button[name="useDay"]`))
	b.waitFor(t, "the drop-off and promise filled", `document.querySelector("#expectedArrival").value !== "" && document.querySelector("#promiseTime").value !== ""
		&& document.querySelector('input[name="kind"][value="booking"]').checked`)
	b.do(t, "the plate and the customer", chromedp.SetValue(`#vehiclePlate`, "B-CAL 41"), chromedp.SetValue(`#customerName`, "Hanna Schulz"),
		jsClick(`form[action$="/jobs/new"] button[type="submit"]:not([name])`))
	b.waitFor(t, "the job page", `location.pathname.startsWith("/jobs/") && document.body.textContent.includes("Drop-off")`)
	if got := b.text(t, "main"); !strings.Contains(got, "Hanna Schulz") {
		t.Errorf("the job page does not name the customer: %.300s", got)
	}
}
