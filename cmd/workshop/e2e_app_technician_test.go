package main

import (
	"context"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/operator"
	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// A technician signed in sees the board and their own work, and starts
// and completes the steps assigned to them, from their list and from the
// job page; a step of another technician, and every other write, is
// refused.
func TestAppTechnicianWorksOwnSteps(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		ctx := context.Background()
		w := newWorld(t, db.URL)
		org := w.org("Tech Motors", "pro", 1)
		loc := org.Locations[0]
		user := appUser(t, w, org.ID, "jonas@example.com", workshop.RoleTechnician, testPassword)
		appUser(t, w, org.ID, "aylin@example.com", workshop.RoleTechnician, testPassword) // works as no technician
		jonas, err := w.op.CreateTechnician(ctx, operator.TechnicianRequest{LocationID: loc.ID, Name: "Jonas <b>Weber</b>", WIPLimit: 2,
			UserID: user.ID})
		if err != nil {
			t.Fatal(err)
		}
		other, err := w.op.CreateTechnician(ctx, operator.TechnicianRequest{LocationID: loc.ID, Name: "Aylin", WIPLimit: 2})
		if err != nil {
			t.Fatal(err)
		}
		job := w.job(org.ID, loc.ID)
		v := store.Visibility{OrgID: org.ID}
		step := func(label string, techs ...string) workshop.Step {
			t.Helper()
			now := workshop.MicrosOf(time.Now())
			st, err := w.st.CreateStep(ctx, v, workshop.Step{ID: workshop.NewID(workshop.PrefixStep), JobID: job.ID, Label: label,
				SchedulingMode: "parallel", EstimatedDuration: 30, TechIDs: []string{}, Status: workshop.StepPending, CreatedAt: now, UpdatedAt: now})
			if err != nil {
				t.Fatal(err)
			}
			st, err = w.st.PatchStep(ctx, v, job.ID, st.ID, store.StepPatch{UpdatedAt: st.UpdatedAt, TechIDs: &techs}, now)
			if err != nil {
				t.Fatal(err)
			}
			return st
		}
		mine, theirs := step("Brakes <script>", jonas.ID), step("Wash", other.ID)
		srv := startServer(t, db.URL)

		b := newBrowser(t, srv.URL)
		b.login("jonas@example.com", testPassword, "").want(t, "the technician signs in", http.StatusSeeOther, "/")
		b.get("/").want(t, "a technician's home: their work (contract section 7)", http.StatusSeeOther, "/my/work")
		b.get("/locations/"+loc.ID+"/board").want(t, "the board", http.StatusOK, "", `href="/my/work"`)
		p := b.get("/my/work")
		p.want(t, "my work", http.StatusOK, "", "Jonas &lt;b&gt;Weber&lt;/b&gt;", "Brakes &lt;script&gt;", job.JobNumber,
			`action="/jobs/`+job.ID+`/steps/`+mine.ID+`/start#refusal"`, `name="next" value="/my/work"`)
		p.wantNot(t, "my work", "Wash", "<script>")

		start := func(st workshop.Step, action string) page {
			t.Helper()
			cur := deskJob(t, w, org.ID, job.ID)
			for _, s := range cur.Steps {
				if s.ID == st.ID {
					st = s
				}
			}
			return b.post("/jobs/"+job.ID+"/steps/"+st.ID+"/"+action, url.Values{"updatedAt": {ver(st.UpdatedAt)}, "next": {"/my/work"}})
		}
		started := "/my/work?done=started&step=" + mine.ID
		start(mine, "start").want(t, "start my step", http.StatusSeeOther, started)
		start(theirs, "start").want(t, "start another technician's step", http.StatusForbidden, "")
		b.get(started).want(t, "my work, the start confirmed at the step", http.StatusOK, "", "In progress", "/complete",
			`<p class="confirmation work-done" role="status">Brakes &lt;script&gt; started at `)
		completed := "/my/work?done=completed&step=" + mine.ID
		start(mine, "complete").want(t, "complete my step", http.StatusSeeOther, completed)
		p = b.get(completed)
		p.want(t, "my work, the completion confirmed in the step's place", http.StatusOK, "", `id="work-`+mine.ID+`"`,
			`<p class="confirmation work-done" role="status">Brakes &lt;script&gt; completed at `, `data-live="/my/work/events?done=completed&amp;step=`+mine.ID+`"`)
		p.wantNot(t, "my work, the completion confirmed", "/complete#refusal")
		got := deskJob(t, w, org.ID, job.ID)
		for _, s := range got.Steps {
			if want := map[string]string{mine.ID: workshop.StepCompleted, theirs.ID: workshop.StepPending}[s.ID]; s.Status != want {
				t.Errorf("step %s = %s, want %s", s.Label, s.Status, want)
			}
		}
		b.get("/my/work").want(t, "my work, done", http.StatusOK, "", "No steps are assigned to you now.")
		// Everything else stays refused: assigning, delivering, creating.
		b.post("/jobs/"+job.ID+"/steps/"+theirs.ID+"/assign", url.Values{"techIds": {jonas.ID}, "updatedAt": {ver(theirs.UpdatedAt)}}).
			want(t, "a technician assigns", http.StatusForbidden, "")
		b.post("/jobs/"+job.ID+"/deliver", url.Values{"updatedAt": {ver(got.UpdatedAt)}}).want(t, "a technician delivers", http.StatusForbidden, "")

		// A technician user who works as no technician is told so.
		a := newBrowser(t, srv.URL)
		a.login("aylin@example.com", testPassword, "").want(t, "the other technician signs in", http.StatusSeeOther, "/")
		a.get("/my/work").want(t, "no technician", http.StatusOK, "", "does not work as a technician")
		a.post("/jobs/"+job.ID+"/steps/"+theirs.ID+"/start", url.Values{"updatedAt": {ver(theirs.UpdatedAt)}}).
			want(t, "a user who works as no technician starts", http.StatusForbidden, "")
	})
}

// The time a technician's list says a step has taken is its working time
// (issue 43, item 4): Brakes, left in progress from Friday 16:00 over the
// weekend, has taken 7:30 by Monday 10:00, as its duration statistics
// would count it, not the 66 hours on the wall clock.
func TestAppTimeSpentIsWorkingTime(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		p := newPhoneMonday(t, db.URL)
		srv := startServerAt(t, db.URL, p.now)
		b := newBrowser(t, srv.URL)
		b.login(p.techEmail, testPassword, "").want(t, "sign in", http.StatusSeeOther, "/")
		b.get("/my/work").want(t, "my work", http.StatusOK, "", "<dt>Time spent</dt><dd>7:30 (since ", "<dt>Time spent</dt><dd>1:00 (since ",
			"<dt>Time spent</dt><dd>0:00</dd>")
	})
}
