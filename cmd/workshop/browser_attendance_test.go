package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/workshop-platform/workshop/internal/operator"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// A technician's shift in a real browser: they tap "Clock in" on the time
// clock and then "Clock out", each confirmed; the timesheet of the night
// the clocks go forward shows its shift as the 3 hours it was; an
// advisor's correction with the clock-out before the clock-in is refused
// beside the field, the right one is kept in the record's history, and
// the advisor clocks Jonas in from the list of every technician. Every
// page passes axe-core and the shop-floor sizes.
func TestBrowserTimeClock(t *testing.T) {
	t.Parallel()
	b := newChrome(t)
	b.allowed = func(text string) bool { return strings.Contains(text, "status of 422") } // the refused correction
	ctx := context.Background()
	db := storetest.SQLiteURL(t)
	w := newWorld(t, db)
	org := w.org("Browser Clock Motors", "pro", 1)
	loc := org.Locations[0] // Europe/Berlin
	appUser(t, w, org.ID, "advisor@example.com", workshop.RoleAdvisor, testPassword)
	techUser := appUser(t, w, org.ID, "jonas@example.com", workshop.RoleTechnician, testPassword)
	jonas, err := w.op.CreateTechnician(ctx, operator.TechnicianRequest{LocationID: loc.ID, Name: "Jonas Weber", WIPLimit: 2, UserID: techUser.ID})
	if err != nil {
		t.Fatal(err)
	}
	zone, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	night := shiftOf(t, w, org.ID, jonas.ID, time.Date(2026, 3, 29, 0, 30, 0, 0, zone), time.Date(2026, 3, 29, 4, 30, 0, 0, zone))
	srv := startServer(t, db)

	b.signIn(t, srv.URL, "jonas@example.com")
	b.do(t, "the time clock", navigate(srv.URL+"/locations/"+loc.ID+"/clock"), waitVisible(`.clock-button`))
	b.checkShopFloor(t, "time clock, clocked out")
	b.do(t, "tap clock in", jsClick(`.clock-button`))
	b.waitFor(t, "the clock-in confirmed", `(document.querySelector(".confirmation") || {}).textContent?.startsWith("Jonas Weber clocked in at")`)
	b.waitText(t, "the clock-out button", ".clock-button", "Clock out")
	b.checkShopFloor(t, "time clock, clocked in")
	b.do(t, "tap clock out", jsClick(`.clock-button`))
	b.waitText(t, "the clock-out confirmed", ".confirmation", "Jonas Weber clocked out.")
	b.waitText(t, "the clock-in button again", ".clock-button", "Clock in")

	b.do(t, "the timesheet of the night the clocks go forward",
		navigate(srv.URL+"/locations/"+loc.ID+"/timesheets?period=day&date=2026-03-29"), waitVisible(`#location-total`))
	if got := b.text(t, "#location-total"); got != "3:00" {
		t.Errorf("the night's total reads %q, want 3:00 (00:30 to 04:30 when an hour is skipped)", got)
	}
	b.checkShopFloor(t, "timesheet of a day")
	b.do(t, "the week of it", jsClick(`.timesheet-nav a:nth-child(4)`))
	b.waitFor(t, "the week", `document.querySelector("h1").textContent.startsWith("Timesheet of week 13")`)
	if got := b.text(t, "#location-total"); got != "3:00" {
		t.Errorf("the week's total reads %q, want 3:00", got)
	}
	b.checkShopFloor(t, "timesheet of a week")

	b.do(t, "sign out", jsClick(`form[action="/logout"] button`), waitVisible(`input[name="email"]`))
	b.signIn(t, srv.URL, "advisor@example.com")
	b.do(t, "the night's record", navigate(srv.URL+"/attendance/"+night.ID), waitVisible(`#clockIn`))
	b.checkShopFloor(t, "attendance record")
	b.do(t, "a clock-out before the clock-in", chromedp.SetValue(`#clockOut`, "2026-03-29T00:00"), jsClick(`form.correction button[type="submit"]`))
	b.waitFor(t, "the refusal beside the field", `(document.getElementById("clockOut-error") || {}).textContent?.includes("before the clock-in")`)
	b.checkAccessible(t, "refused correction")
	b.do(t, "correct the clock-out", chromedp.SetValue(`#clockOut`, "2026-03-29T05:00"), jsClick(`form.correction button[type="submit"]`))
	b.waitText(t, "the correction confirmed", ".confirmation", "The record is corrected.")
	b.waitText(t, "the new total", "#record-worked", "3:30")
	if history := b.text(t, ".correction-history tbody"); !strings.Contains(history, "advisor@example.com") {
		t.Errorf("the history reads %q, want the advisor's correction", history)
	}
	b.checkShopFloor(t, "corrected attendance record")

	b.do(t, "the advisor's time clock", navigate(srv.URL+"/locations/"+loc.ID+"/clock"), waitVisible(`#clock-`+jonas.ID))
	b.do(t, "clock Jonas in", jsClick(`#clock-`+jonas.ID+` button`))
	b.waitFor(t, "Jonas in", `document.querySelector("#clock-`+jonas.ID+`").textContent.includes("In since")`)
	b.checkShopFloor(t, "time clock of every technician")
}
