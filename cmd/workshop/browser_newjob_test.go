package main

import (
	"context"
	"path"
	"strconv"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/workshop-platform/workshop/internal/operator"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// counted drives the browser as a person does, counting what issue 27
// measures: clicks (a link, button, checkbox or radio button activated;
// typing is not one) and page loads (the page replaced, by a navigation
// or by htmx swapping a whole page in; a fragment such as the quote is
// not one).
type counted struct {
	b             *chrome
	clicks, loads int
}

// click clicks sel and waits until settled holds, counting a page load
// when the page was replaced meanwhile.
func (c *counted) click(t *testing.T, doing, sel, settled string) {
	t.Helper()
	c.b.do(t, doing+": mark the page", chromedp.Evaluate[chromedp.Void](`document.querySelector("main").dataset.seen = "1"`), jsClick(sel))
	c.clicks++
	c.b.waitFor(t, doing, `!document.querySelector(".htmx-request") && (`+settled+`)`)
	if replaced, err := chromedp.Run(c.b.ctx, chromedp.Evaluate[bool](`document.querySelector("main").dataset.seen !== "1"`)); err != nil {
		t.Fatal(err)
	} else if replaced {
		c.loads++
	}
}

// TestBrowserNewJobClicks: from the board, a walk-in with two catalog
// steps, the quoted promise taken and its plan accepted takes at most 6
// clicks and 3 page loads (issue 27); a booking takes at most 4 clicks.
func TestBrowserNewJobClicks(t *testing.T) {
	t.Parallel()
	b := newChrome(t)
	ctx := context.Background()
	db := storetest.SQLiteURL(t)
	w := newWorld(t, db)
	org := w.org("Quick Desk Motors", "pro", 1)
	loc := org.Locations[0]
	appUser(t, w, org.ID, "advisor@example.com", workshop.RoleAdvisor, testPassword)
	jonas, err := w.op.CreateTechnician(ctx, operator.TechnicianRequest{LocationID: loc.ID, Name: "Jonas Weber", WIPLimit: 2})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.op.CreateBay(ctx, loc.ID, "Lift 1", nil, nil); err != nil {
		t.Fatal(err)
	}
	w.catalogItem(org.ID, loc.ID, "OIL", "Oil change", 45)
	w.catalogItem(org.ID, loc.ID, "BRK", "Brake pads", 60)
	srv := startServer(t, db)
	b.signIn(t, srv.URL, "advisor@example.com")
	board := srv.URL + "/locations/" + loc.ID + "/board"

	c := &counted{b: b}
	b.do(t, "the board", navigate(board), waitVisible(`#jobs-heading`))
	c.click(t, "New job", `header a[href$="/jobs/new"]`, `!!document.querySelector("#vehiclePlate")`)
	b.do(t, "type the plate", chromedp.SendKeys(`#vehiclePlate`, "B-QK 12"))
	c.click(t, "the first catalog step", `input[name="serviceCodes"][value="OIL"]`, `!!document.querySelector("#quote button[data-promise]")`)
	first, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.querySelector("#quote button[data-promise]").dataset.promise`))
	if err != nil {
		t.Fatal(err)
	}
	c.click(t, "the second catalog step", `input[name="serviceCodes"][value="BRK"]`,
		`(document.querySelector("#quote button[data-promise]") || {dataset: {}}).dataset.promise > `+strconv.Quote(first))
	b.screenshots(t, "newjob-quote")
	b.checkAccessible(t, "the new-job form with its quote")
	quoted, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.querySelector("#quote button[data-promise]").dataset.promise`))
	if err != nil {
		t.Fatal(err)
	}
	c.click(t, "take the quoted promise", `#quote button[data-promise]`, `document.querySelector("#promiseTime").value === `+strconv.Quote(quoted))
	c.click(t, "create the job", `form[action$="/jobs/new"] > button[type="submit"]`, `!!document.querySelector("#steps-heading")`)
	jobID := path.Base(b.location(t))
	c.click(t, "accept its plan", `form[action*="/jobs/`+jobID+`/accept"] button`,
		`(document.querySelector("main .confirmation") || {}).textContent?.startsWith("Plan accepted")`)
	b.screenshots(t, "newjob-accepted")
	b.checkAccessible(t, "the new job, planned")
	t.Logf("walk-in with two catalog steps, quoted promise, plan accepted: %d clicks, %d page loads (targets 6 and 3)", c.clicks, c.loads)
	if c.clicks > 6 || c.loads > 3 {
		t.Errorf("walk-in: %d clicks and %d page loads, want at most 6 and 3", c.clicks, c.loads)
	}
	j := deskJob(t, w, org.ID, jobID)
	if j.Status != workshop.JobArrived || len(j.Steps) != 2 || j.PromiseTime == nil ||
		j.PromiseTime.In(mustZone(t, loc.Timezone)).Format("2006-01-02T15:04") != quoted {
		t.Errorf("the walk-in = %s, %d steps, promise %v; want arrived, 2 steps, promised %s", j.Status, len(j.Steps), j.PromiseTime, quoted)
	}
	for _, st := range j.Steps {
		if len(st.TechIDs) != 1 || st.TechIDs[0] != jonas.ID || st.BayID == nil {
			t.Errorf("step %s after the plan was accepted: techs %v bay %v, want Jonas Weber and a bay", st.Label, st.TechIDs, st.BayID)
		}
	}

	// A booking: New job, Booking, a step, Create.
	c = &counted{b: b}
	b.do(t, "the board again", navigate(board), waitVisible(`#jobs-heading`))
	c.click(t, "New job", `header a[href$="/jobs/new"]`, `!!document.querySelector("#vehiclePlate")`)
	b.do(t, "type the plate", chromedp.SendKeys(`#vehiclePlate`, "B-BK 7"))
	c.click(t, "booking", `input[name="kind"][value="booking"]`, `document.querySelector('input[value="booking"]').checked`)
	c.click(t, "a catalog step", `input[name="serviceCodes"][value="OIL"]`, `!!document.querySelector("#quote button[data-promise]")`)
	c.click(t, "create the booking", `form[action$="/jobs/new"] > button[type="submit"]`, `!!document.querySelector("#steps-heading")`)
	t.Logf("booking with a catalog step: %d clicks, %d page loads (target: 4 clicks)", c.clicks, c.loads)
	if c.clicks > 4 {
		t.Errorf("booking: %d clicks, want at most 4", c.clicks)
	}
	if j := deskJob(t, w, org.ID, path.Base(b.location(t))); j.Status != workshop.JobBooked || len(j.Steps) != 1 {
		t.Errorf("the booking = %s with %d steps, want booked with one", j.Status, len(j.Steps))
	}
}
