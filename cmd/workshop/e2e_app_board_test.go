package main

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// promisedJob stores a walk-in promised at promise, with a plate and a
// vehicle, as POST /v1/scheduler/jobs does.
func (w *testWorld) promisedJob(orgID, locationID, plate, make_, model string, promise time.Time) workshop.Job {
	w.t.Helper()
	now := workshop.MicrosOf(time.Now())
	res, err := w.st.CreateJob(context.Background(), workshop.Job{ID: workshop.NewID(workshop.PrefixJob), OrgID: orgID,
		LocationID: locationID, Priority: "normal", Source: "other", CreatedAt: now, UpdatedAt: now, Steps: []workshop.Step{},
		VehiclePlate: &plate, VehicleMake: &make_, VehicleModel: &model, PromiseTime: &workshop.OffsetTime{Time: promise}}, true)
	if err != nil {
		w.t.Fatalf("create job: %v", err)
	}
	return res.Job
}

// TestAppBoardLinks (issue 27, item 1): every card opens its job; every
// count opens the job list of that status, late, at risk and all jobs
// included (issue 43), and the list shows those jobs; the board filters by status,
// and its search box finds a job by part of its plate or its model.
func TestAppBoardLinks(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		m := newMatrixWorld(t, db.URL)
		srv := startServer(t, db.URL)
		now := time.Now()
		late := m.w.promisedJob(m.org.ID, m.loc.ID, "B-WK 2211", "Volkswagen", "Passat", now.Add(-time.Hour))
		risky := m.w.promisedJob(m.org.ID, m.loc.ID, "HH-AB 77", "Opel", "Astra", now.Add(2*time.Hour))
		// Four hours of work promised in two: the promise watch finds the
		// plan finishes it late.
		made := workshop.MicrosOf(now)
		if _, err := m.w.st.CreateStep(t.Context(), store.Visibility{OrgID: m.org.ID}, workshop.Step{ID: workshop.NewID(workshop.PrefixStep),
			JobID: risky.ID, Label: "Gearbox", SchedulingMode: "sequential", EstimatedDuration: 240, TechIDs: []string{},
			Status: workshop.StepPending, CreatedAt: made, UpdatedAt: made}); err != nil {
			t.Fatal(err)
		}

		b := newBrowser(t, srv.URL)
		b.login(m.users[workshop.RoleAdvisor].Email, testPassword, "").want(t, "advisor signs in", http.StatusSeeOther, "/")
		board := "/locations/" + m.loc.ID + "/board"
		jobs := "/locations/" + m.loc.ID + "/jobs"
		// The page reads its counts and its cards apart: a look of the
		// promise watch between them shows the card at risk before the
		// count. Wait for both.
		atRiskTile := `<span class="n">1</span> <span class="label">At risk</span>`
		p := b.get(board)
		for deadline := time.Now().Add(20 * time.Second); !(strings.Contains(p.body, "At risk: planned") && strings.Contains(p.body, atRiskTile)) &&
			time.Now().Before(deadline); {
			<-time.After(100 * time.Millisecond) // the promise watch's next look
			p = b.get(board)
		}
		p.want(t, "the board", http.StatusOK, "",
			`href="/jobs/`+late.ID+`"`, `href="/jobs/`+risky.ID+`"`, `href="/jobs/`+m.job.ID+`"`,
			`action="`+jobs+`"`, "At risk: planned ", "Late: promise passed")
		for _, status := range []string{"booked", "arrived", "in_progress", "waiting", "ready", "delivered", "cancelled", "late", "at_risk", "all"} {
			if !strings.Contains(p.body, `href="`+jobs+`?status=`+status+`"`) {
				t.Errorf("the board has no count linking to the %s jobs", status)
			}
		}
		for _, tile := range []string{`<span class="n">1</span> <span class="label">Late</span>`, atRiskTile} {
			if !strings.Contains(p.body, tile) {
				t.Errorf("the board lacks the count %s; its counts: %v", tile, countRe.FindAllString(p.body, -1))
			}
		}

		for _, tc := range []struct {
			name, query   string
			want, wantNot []string
		}{
			{"late jobs", "?status=late", []string{"Late jobs", late.JobNumber}, []string{risky.JobNumber}},
			{"jobs at risk", "?status=at_risk", []string{"Jobs at risk", risky.JobNumber}, []string{late.JobNumber}},
			{"arrived jobs", "?status=arrived", []string{"Arrived jobs", late.JobNumber, risky.JobNumber}, nil},
			{"delivered jobs", "?status=delivered", []string{"Delivered jobs", "No job is delivered."}, []string{late.JobNumber}},
			{"all jobs", "?status=all", []string{"All jobs", late.JobNumber, risky.JobNumber, m.job.JobNumber}, nil},
			{"part of a plate", "?q=" + url.QueryEscape("wk22"), []string{late.JobNumber}, []string{risky.JobNumber}},
			{"a model", "?q=astra", []string{risky.JobNumber}, []string{late.JobNumber}},
		} {
			b.get(jobs+tc.query).want(t, tc.name, http.StatusOK, "", tc.want...)
			b.get(jobs+tc.query).wantNot(t, tc.name, tc.wantNot...)
		}

		// Filtered by a status, the board shows that column alone, and its
		// live stream and wall display keep the filter.
		f := b.get(board + "?status=arrived")
		f.want(t, "the board of arrived jobs", http.StatusOK, "", late.JobNumber, `data-live="`+board+`/events?status=arrived"`,
			`href="`+board+`?display=wall&amp;status=arrived"`, "Show every job")
		f.wantNot(t, "the board of arrived jobs", `aria-label="Booked"`)
		// By a technician: the jobs with unfinished steps of theirs (none here).
		b.get(board+"?tech="+m.tech.ID).wantNot(t, "the board of a technician at rest", `href="/jobs/`+late.ID+`"`)
	})
}

// countRe finds the board's count tiles, for failure messages.
var countRe = regexp.MustCompile(`<span class="n">\d+</span> <span class="label">[^<]+</span>`)
