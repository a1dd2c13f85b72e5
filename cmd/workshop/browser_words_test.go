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

// A refused start on the job page in a real browser, on a laptop and on a
// phone (issue 43, items 2 and 3): the refusal names the technician, in
// view beside the step; the "Assign by hand" form beside it still ticks
// the technician and shows the bay; the page passes axe-core.
func TestBrowserRefusalInStaffWords(t *testing.T) {
	t.Parallel()
	b := newChrome(t)
	b.allowed = func(text string) bool { return strings.Contains(text, "status of 422") }
	ctx := context.Background()
	db := storetest.SQLiteURL(t)
	w := newWorld(t, db)
	org := w.org("Words Motors", "pro", 1)
	loc := org.Locations[0]
	v := store.Visibility{OrgID: org.ID}
	appUser(t, w, org.ID, "advisor@words.example", workshop.RoleAdvisor, testPassword)
	aylin, err := w.op.CreateTechnician(ctx, operator.TechnicianRequest{LocationID: loc.ID, Name: "Aylin Demir", WIPLimit: 1})
	if err != nil {
		t.Fatal(err)
	}
	lift, err := w.op.CreateBay(ctx, loc.ID, "Lift 1", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	assigned := func(bay *string) (workshop.Job, workshop.Step) {
		j := w.job(org.ID, loc.ID)
		st := w.step(org.ID, j.ID)
		st, err := w.st.PatchStep(ctx, v, j.ID, st.ID, store.StepPatch{UpdatedAt: st.UpdatedAt, TechIDs: &[]string{aylin.ID}, BayID: &bay},
			workshop.MicrosOf(time.Now()))
		if err != nil {
			t.Fatal(err)
		}
		return j, st
	}
	busyJob, busy := assigned(nil)
	if _, err := w.st.PatchStep(ctx, v, busyJob.ID, busy.ID, store.StepPatch{UpdatedAt: busy.UpdatedAt, Status: refTo(workshop.StepInProgress)},
		workshop.MicrosOf(time.Now())); err != nil {
		t.Fatal(err)
	}
	job, step := assigned(&lift.ID)
	srv := startServer(t, db)

	b.do(t, "a laptop", chromedp.EmulateViewport(1366, 768))
	b.signIn(t, srv.URL, "advisor@words.example")
	card := "#step-" + step.ID
	b.do(t, "the job's page", navigate(srv.URL+"/jobs/"+job.ID), waitVisible(card+` form[action*="/start"] button`))
	b.do(t, "start it", jsClick(card+` form[action*="/start"] button`))
	b.waitFor(t, "the refusal beside the technicians", `!!document.querySelector("#techs-`+step.ID+`-error")`)
	if got, want := b.text(t, "#techs-"+step.ID+"-error"), "Aylin Demir already has 1 step in progress; their limit is 1."; got != want {
		t.Errorf("the refusal says %q, want %q", got, want)
	}
	b.waitFor(t, "the refusal in view", `(r => r.top >= -1 && r.bottom <= innerHeight)(document.querySelector("#techs-`+step.ID+`-error").getBoundingClientRect())`)
	kept, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](`document.querySelector("`+card+` input[name=techIds][value='`+aylin.ID+`']").checked &&
		document.querySelector("#bay-`+step.ID+`").value === "`+lift.ID+`" && document.querySelector("`+card+` details.assign").open`))
	if err != nil || !kept {
		t.Errorf("the assign form beside the refusal lost the assignment (%v): want Aylin ticked and Lift 1 chosen", err)
	}
	b.checkAccessible(t, "the job page with a refused start")
	b.screenshots(t, "job-refused-start")
}
