package main

import (
	"context"
	"path"
	"slices"
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

// fillSignIn opens url (the sign-in page, or a page that leads to it),
// fills the form with email and password and sends it.
func fillSignIn(url, email, password string) []chromedp.Action[chromedp.Void] {
	return []chromedp.Action[chromedp.Void]{
		navigate(url),
		waitVisible(`input[name="email"]`),
		chromedp.SendKeys(`input[name="email"]`, email),
		chromedp.SendKeys(`input[name="password"]`, password),
		jsClick(`form[action="/login"] button[type="submit"]`),
	}
}

// signIn signs in through the sign-in page and waits for the page it
// leads to (the board; a technician's work).
func (b *chrome) signIn(t *testing.T, base, email string) {
	t.Helper()
	b.do(t, "sign in as "+email, fillSignIn(base+"/login", email, testPassword)...)
	b.waitFor(t, "signed in as "+email, `location.pathname !== "/login" && !!document.querySelector("main h1")`)
}

// jsClick clicks the first element of sel by script: a click at the
// element's place, as chromedp.Click does it, can land on another element
// when the page moves under it (htmx swapping the page in). It waits until
// htmx has settled what it swapped in: new content is boosted 20 ms after
// the swap, when it loses the class htmx-added, and a form submitted
// before goes to the server without htmx (a full page load, its address
// the form's; seen in TestBrowserTechnicianPhone).
func jsClick(sel string) chromedp.Action[chromedp.Void] {
	return chromedp.Evaluate[chromedp.Void](`new Promise((done, fail) => (function click() {
		if (document.querySelector(".htmx-added")) return setTimeout(click, 10);
		try { document.querySelector(`+strconv.Quote(sel)+`).click(); done(); } catch (e) { fail(e); }
	})())`, chromedp.EvalAwaitPromise)
}

// waitFor waits until the script js is true (10 s at most), across the
// page being replaced meanwhile.
func (b *chrome) waitFor(t *testing.T, doing, js string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 10*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, waitFor(js, js+" to hold")); err != nil {
		t.Fatalf("browser, %s: %v", doing, err)
	}
}

// waitText waits until the text of the first element of sel is want.
func (b *chrome) waitText(t *testing.T, doing, sel, want string) {
	t.Helper()
	b.waitFor(t, doing+" ("+sel+" reads "+strconv.Quote(want)+")",
		`(document.querySelector(`+strconv.Quote(sel)+`) || {}).textContent === `+strconv.Quote(want))
}

// worked0 is the number of the job whose page is at address.
func worked0(t *testing.T, w *testWorld, orgID, address string) string {
	return deskJob(t, w, orgID, path.Base(address)).JobNumber
}

// The service advisor's day in a real browser: a walk-in is booked in
// with a catalog step, assigned, started, completed and delivered;
// another job is cancelled with a reason; a stale edit shows the conflict
// and the current values; a day close puts a banner on the job's page and
// refuses its writes; a technician finds their step under "My work" and
// starts it. Every page passes axe-core and the shop-floor sizes, and
// logs no console error.
func TestBrowserJobDesk(t *testing.T) {
	t.Parallel()
	b := newChrome(t)
	// The browser logs the 409s this test provokes (a stale edit, a write
	// during the day close), which the contract asks for.
	b.allowed = func(text string) bool { return strings.Contains(text, "status of 409") }
	ctx := context.Background()
	db := storetest.SQLiteURL(t)
	w := newWorld(t, db)
	org := w.org("Browser Desk Motors", "pro", 1)
	loc := org.Locations[0]
	appUser(t, w, org.ID, "advisor@example.com", workshop.RoleAdvisor, testPassword)
	techUser := appUser(t, w, org.ID, "jonas@example.com", workshop.RoleTechnician, testPassword)
	jonas, err := w.op.CreateTechnician(ctx, operator.TechnicianRequest{LocationID: loc.ID, Name: "Jonas Weber", WIPLimit: 2, UserID: techUser.ID})
	if err != nil {
		t.Fatal(err)
	}
	bay, err := w.op.CreateBay(ctx, loc.ID, "Lift 1", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.op.SetCancelTags(ctx, loc.ID, []string{"no_show=Customer did not come"}); err != nil {
		t.Fatal(err)
	}
	now := workshop.MicrosOf(time.Now())
	w.catalogItem(org.ID, loc.ID, "OIL", "Oil change", 45)
	srv := startServer(t, db)
	v := store.Visibility{OrgID: org.ID}
	b.signIn(t, srv.URL, "advisor@example.com")

	// Booked in: a walk-in with a catalog step.
	b.do(t, "the new job form", navigate(srv.URL+"/locations/"+loc.ID+"/jobs/new"), waitVisible(`#vehiclePlate`))
	b.checkShopFloor(t, "new job form")
	b.do(t, "fill in a job",
		jsClick(`input[name="kind"][value="walk_in"]`),
		chromedp.SendKeys(`#vehiclePlate`, "B-WS 42"),
		jsClick(`input[name="serviceCodes"][value="OIL"]`),
	)
	// The step's choice brings the availability quote with its own submit
	// button ("Use … as the promise"): wait for it, then press "Create job",
	// the form's button without a name, so the two never race.
	b.waitFor(t, "the quote", `!!document.querySelector("#quote .quote")`)
	b.do(t, "create a job", jsClick(`form[action$="/jobs/new"] button[type="submit"]:not([name])`), waitVisible(`#steps-heading`))
	jobPage := b.location(t)
	b.waitText(t, "the new job", "h1 .status", "Arrived")
	b.checkShopFloor(t, "job page")

	// Worked: assigned to Jonas in Lift 1, started, completed, delivered.
	b.do(t, "assign the step",
		jsClick(`details.assign summary`),
		jsClick(`details.assign input[name="techIds"][value="`+jonas.ID+`"]`),
		chromedp.SetValue(`details.assign select[name="bayId"]`, bay.ID),
		jsClick(`details.assign button[type="submit"]`),
	)
	b.waitFor(t, "the assignment", `document.querySelector(".step dl").textContent.includes("Jonas Weber")`)
	b.waitFor(t, "the assignment said at its step", `(document.querySelector(".step .confirmation") || {}).textContent === "Oil change assigned to Jonas Weber in Lift 1."`)
	b.do(t, "start the step", jsClick(`form[action*="/start"] button`), waitVisible(`form[action*="/complete"] button`))
	b.waitText(t, "the started job", "h1 .status", "In progress")
	b.waitText(t, "the start said at its step", ".step .confirmation", "Oil change started.")
	b.waitFor(t, "the step in view", `(r => r.top >= 0 && r.top < innerHeight)(document.querySelector(".step").getBoundingClientRect())`)
	b.screenshots(t, "job-started")
	b.do(t, "complete the step", jsClick(`form[action*="/complete"] button`))
	b.waitText(t, "the completed job", "h1 .status", "Ready")
	b.do(t, "deliver", jsClick(`form[action*="/deliver"] button`))
	b.waitText(t, "the delivered job", "h1 .status", "Delivered")
	b.waitText(t, "the delivery said", "main .confirmation", worked0(t, w, org.ID, jobPage)+" delivered.")
	if loc := b.location(t); strings.Contains(loc, "/deliver") {
		t.Errorf("after delivering, the address bar is %s, want the job's page", loc)
	}
	b.checkAccessible(t, "delivered job page")
	worked := deskJob(t, w, org.ID, path.Base(jobPage))
	if worked.Status != workshop.JobDelivered || len(worked.Steps) != 1 || !slices.Equal(worked.Steps[0].TechIDs, []string{jonas.ID}) ||
		worked.Steps[0].BayID == nil || *worked.Steps[0].BayID != bay.ID {
		t.Fatalf("after the browser's work the job is %s with steps %+v; want delivered, its step by Jonas in Lift 1", worked.Status, worked.Steps)
	}

	// Cancelled with a reason.
	cancelled := w.job(org.ID, loc.ID)
	b.do(t, "a job to cancel", navigate(srv.URL+"/jobs/"+cancelled.ID), waitVisible(`#finish-heading`))
	b.do(t, "ask to cancel it", jsClick(`a[href$="/cancel"]`), waitVisible(`#confirm-heading`))
	b.screenshots(t, "job-cancel-confirm")
	b.checkAccessible(t, "the cancel's confirmation")
	if got := deskJob(t, w, org.ID, cancelled.ID).Status; got == workshop.JobCancelled {
		t.Fatalf("one click cancelled the job")
	}
	b.do(t, "cancel it", jsClick(`input[name="reasonTags"][value="no_show"]`), jsClick(`form[action$="/cancel"] button`))
	b.waitText(t, "the cancelled job", "h1 .status", "Cancelled")
	b.waitText(t, "the cancel said", "main .confirmation", cancelled.JobNumber+" cancelled.")
	if j := deskJob(t, w, org.ID, cancelled.ID); j.Status != workshop.JobCancelled || len(j.CancelReasons) != 1 || j.CancelReasons[0] != "no_show" {
		t.Errorf("cancelled job = %s %v, want cancelled for no_show", j.Status, j.CancelReasons)
	}

	// A stale edit: someone changes the plate while the form is open.
	stale := w.job(org.ID, loc.ID)
	b.do(t, "a job to edit", navigate(srv.URL+"/jobs/"+stale.ID), waitVisible(`form[action*="/edit"]`))
	plate := ptrTo(ptrTo("HH-XY 9"))
	if _, err := w.st.PatchJob(ctx, v, stale.ID, store.JobPatch{UpdatedAt: stale.UpdatedAt, VehiclePlate: plate}, workshop.MicrosOf(time.Now())); err != nil {
		t.Fatal(err)
	}
	b.do(t, "save the stale edit",
		chromedp.SetValue(`form[action*="/edit"] #vehiclePlate`, "B-OLD 1"),
		jsClick(`form[action*="/edit"] button[type="submit"]`),
		waitVisible(`form[action*="/edit"] p.error[role="alert"]`),
	)
	if got, err := chromedp.Run(b.ctx, chromedp.Value(`form[action*="/edit"] #vehiclePlate`)); err != nil || got != "HH-XY 9" {
		t.Errorf("after the conflict the plate field shows %q (%v), want the current HH-XY 9", got, err)
	}
	b.checkAccessible(t, "job page with a conflict")
	if j := deskJob(t, w, org.ID, stale.ID); j.VehiclePlate == nil || *j.VehiclePlate != "HH-XY 9" {
		t.Errorf("the stale edit overwrote the plate: %v", j.VehiclePlate)
	}

	// A day close: a banner on the job page, and its writes refused.
	open := w.job(org.ID, loc.ID)
	if _, err := w.op.StartDayClose(ctx, loc.ID); err != nil {
		t.Fatal(err)
	}
	b.do(t, "a job during the day close", navigate(srv.URL+"/jobs/"+open.ID), waitVisible(`.banner[role="status"]`))
	b.checkAccessible(t, "job page during a day close")
	b.do(t, "deliver during the day close", jsClick(`form[action*="/deliver"] button`),
		waitVisible(`#finish p.error[role="alert"]`))
	b.waitFor(t, "the refusal in view", `(r => r.top >= 0 && r.bottom <= innerHeight)(document.querySelector("#finish p.error").getBoundingClientRect())`)
	if loc := b.location(t); strings.Contains(loc, "/deliver") {
		t.Errorf("after a refused delivery, the address bar is %s, want the job's page", loc)
	}
	if j := deskJob(t, w, org.ID, open.ID); j.Status == workshop.JobDelivered {
		t.Errorf("a job was delivered during the day close")
	}
	if _, err := w.op.FinishDayClose(ctx, loc.ID); err != nil {
		t.Fatal(err)
	}

	// The technician's view: their step under "My work", started there.
	mine := w.job(org.ID, loc.ID)
	st, err := w.st.CreateStep(ctx, v, workshop.Step{ID: workshop.NewID(workshop.PrefixStep), JobID: mine.ID, Label: "Brakes",
		SchedulingMode: "sequential", EstimatedDuration: 30, TechIDs: []string{}, Status: workshop.StepPending, CreatedAt: now, UpdatedAt: now})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.st.PatchStep(ctx, v, mine.ID, st.ID, store.StepPatch{UpdatedAt: st.UpdatedAt, TechIDs: &[]string{jonas.ID}},
		workshop.MicrosOf(time.Now())); err != nil {
		t.Fatal(err)
	}
	b.do(t, "sign out", jsClick(`form[action="/logout"] button`), waitVisible(`input[name="email"]`))
	b.signIn(t, srv.URL, "jonas@example.com")
	b.do(t, "my work: a technician signs in to it", waitVisible(`.my-work form[action*="/start"] button`))
	b.checkShopFloor(t, "my work")
	if n, err := chromedp.Run(b.ctx, chromedp.Evaluate[int](`document.querySelectorAll('a[href$="/jobs/new"], form[action$="/deliver"]').length`)); err != nil || n != 0 {
		t.Errorf("a technician's page offers %d job writes (%v), want none", n, err)
	}
	b.do(t, "start my step", jsClick(`.my-work form[action*="/start"] button`), waitVisible(`.my-work form[action*="/complete"] button`))
	if j := deskJob(t, w, org.ID, mine.ID); j.Steps[0].Status != workshop.StepInProgress {
		t.Errorf("the technician's step is %s, want in_progress", j.Steps[0].Status)
	}
}

func ptrTo[T any](v T) *T { return &v }

// The pages the other browser tests do not pass through pass axe-core
// and the shop-floor sizes too: the job list, the dispatch view, the wall
// display, the organisation chooser, an invite, and a page that is not
// found.
func TestBrowserOtherPagesAccessible(t *testing.T) {
	t.Parallel()
	b := newChrome(t)
	b.allowed = func(text string) bool { return strings.Contains(text, "status of 404") }
	db := storetest.SQLiteURL(t)
	w := newWorld(t, db)
	first, second := w.org("Alpha Motors", "pro", 1), w.org("Beta Motors", "pro", 1)
	advisor := appUser(t, w, first.ID, "advisor@example.com", workshop.RoleAdvisor, testPassword)
	appUser(t, w, second.ID, "advisor@example.com", workshop.RoleAdvisor, testPassword)
	invited := appUser(t, w, first.ID, "new@example.com", workshop.RoleTechnician, "")
	loc := first.Locations[0]
	w.step(first.ID, w.job(first.ID, loc.ID).ID)
	srv := startServer(t, db)
	invite, err := w.op.Invite(context.Background(), invited.ID, srv.URL)
	if err != nil {
		t.Fatal(err)
	}

	b.do(t, "an invite", navigate(invite.InviteURL), waitVisible(`input[name="password"]`))
	b.checkShopFloor(t, "invite page")
	b.do(t, "sign in to two organisations", append(fillSignIn(srv.URL+"/login", "advisor@example.com", testPassword),
		waitVisible(`form[action="/orgs"]`))...)
	b.checkShopFloor(t, "organisation chooser")
	b.do(t, "choose the first", jsClick(`form[action="/orgs"] button[value="`+advisor.ID+`"]`))
	b.waitFor(t, "the board", `!!document.getElementById("jobs-heading")`)
	b.do(t, "the job list", navigate(srv.URL+"/locations/"+loc.ID+"/jobs"), waitVisible(`#list-heading`))
	b.checkShopFloor(t, "job list")
	// The dispatch timeline's bars are as wide as their steps are long: it
	// is checked at the desk's sizes (browser_dispatch_test.go), not the
	// shop floor's.
	b.do(t, "the dispatch view", navigate(srv.URL+"/locations/"+loc.ID+"/dispatch"), waitVisible(`#timeline-heading`))
	b.checkAccessible(t, "dispatch view")
	b.do(t, "the wall display", navigate(srv.URL+"/locations/"+loc.ID+"/board?display=wall"), waitVisible(`#jobs-heading`))
	b.checkAccessible(t, "wall display")
	b.do(t, "a page that is not found", navigate(srv.URL+"/no/such/page"), waitVisible(`h1`))
	b.checkShopFloor(t, "not found page")
}
