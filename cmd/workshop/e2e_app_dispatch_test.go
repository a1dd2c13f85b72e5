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

func init() {
	dispatch := func(m *matrixWorld) string { return "/locations/" + m.loc.ID + "/dispatch" }
	appActions = append(appActions,
		appAction{name: "dispatch view", method: "GET", path: dispatch, allowed: jobWriters},
		appAction{name: "accept the plan", method: "POST", path: func(m *matrixWorld) string { return dispatch(m) + "/apply" },
			form: func(*matrixWorld) url.Values { return url.Values{"stepId": {"stp_none"}} }, allowed: jobWriters},
	)
}

// The dispatch view: the plan's proposals on each technician's and bay's
// lane, a step no technician can do among the unplaced with why, its job
// at risk; accepting one step assigns just it, accepting the plan the
// rest, as the API's plan apply does.
func TestAppDispatch(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		ctx := context.Background()
		w := newWorld(t, db.URL)
		o := w.org("Dispatch Motors", "pro", 1)
		loc := o.Locations[0]
		appUser(t, w, o.ID, "desk@dispatch.example", workshop.RoleAdvisor, testPassword)
		appUser(t, w, o.ID, "tech@dispatch.example", workshop.RoleTechnician, testPassword)
		if _, err := w.op.CreateTechnician(ctx, operator.TechnicianRequest{LocationID: loc.ID, Name: "Jonas", WIPLimit: 2}); err != nil {
			t.Fatal(err)
		}
		if _, err := w.op.CreateBay(ctx, loc.ID, "Lift 1", nil, nil); err != nil {
			t.Fatal(err)
		}
		now := workshop.MicrosOf(time.Now())
		if _, err := w.st.PutCatalogItem(ctx, workshop.CatalogItem{ID: workshop.NewID(workshop.PrefixCatalogItem), OrgID: o.ID,
			LocationID: loc.ID, ServiceCode: "EV-HV", Name: "High voltage check", EstimatedDuration: 60,
			RequiredSkills: []string{"high_voltage"}, IsActive: true, CreatedAt: now, UpdatedAt: now}); err != nil {
			t.Fatal(err)
		}
		job := w.job(o.ID, loc.ID)
		first, second := w.step(o.ID, job.ID), w.step(o.ID, job.ID)
		ev := w.job(o.ID, loc.ID)
		code := "EV-HV"
		hv, err := w.st.CreateStep(ctx, store.Visibility{OrgID: o.ID}, workshop.Step{ID: workshop.NewID(workshop.PrefixStep), JobID: ev.ID,
			Label: "High voltage check", ServiceCode: &code, SchedulingMode: "sequential", EstimatedDuration: 60, TechIDs: []string{},
			Status: workshop.StepPending, CreatedAt: now, UpdatedAt: now})
		if err != nil {
			t.Fatal(err)
		}
		srv := startServer(t, db.URL)
		path := "/locations/" + loc.ID + "/dispatch"

		tech := newBrowser(t, srv.URL)
		tech.login("tech@dispatch.example", testPassword, "").want(t, "technician signs in", http.StatusSeeOther, "/")
		tech.get(path).want(t, "technician opens dispatch", http.StatusForbidden, "")

		b := newBrowser(t, srv.URL)
		b.login("desk@dispatch.example", testPassword, "").want(t, "advisor signs in", http.StatusSeeOther, "/")
		p := b.get(path)
		p.want(t, "the plan", http.StatusOK, "", `data-name="Jonas"`, "proposed by the planner", "Accept the whole plan",
			"for 2 unassigned steps", ev.JobNumber+" · High voltage check</a>", "No technician has the skills", "Jobs at risk",
			`name="stepId" value="`+first.ID+`"`)
		b.get(path+"?by=bay").want(t, "the plan by bay", http.StatusOK, "", `data-name="Lift 1"`)
		b.get(path+"?date=tomorrow").want(t, "a bad date", http.StatusBadRequest, "", "YYYY-MM-DD")

		b.post(path+"/apply", url.Values{"stepId": {first.ID}}).want(t, "accept one step", http.StatusSeeOther, path+"?accepted="+first.ID)
		steps := map[string]workshop.Step{}
		for _, st := range deskJob(t, w, o.ID, job.ID).Steps {
			steps[st.ID] = st
		}
		if len(steps[first.ID].TechIDs) != 1 || steps[first.ID].BayID == nil || len(steps[second.ID].TechIDs) != 0 {
			t.Errorf("after accepting one step: first %+v, second %+v; want only the first assigned", steps[first.ID], steps[second.ID])
		}
		b.get(path+"?accepted="+first.ID).want(t, "accepted", http.StatusOK, "",
			"Accepted "+job.JobNumber+" · Matrix step: Jonas, Lift 1.", "assigned by a person", "for 1 unassigned step.")
		b.post(path+"/apply", url.Values{}).want(t, "accept the whole plan", http.StatusSeeOther, path+"?accepted=all&n=1")
		b.get(path+"?accepted=all&n=1").want(t, "accepted all", http.StatusOK, "",
			"Accepted the whole plan: the technicians and bays it proposed are now assigned to 1 step.")
		for _, st := range deskJob(t, w, o.ID, job.ID).Steps {
			if len(st.TechIDs) != 1 || st.BayID == nil {
				t.Errorf("after accepting the plan, step %s has %v, %v; want a technician and a bay", st.Label, st.TechIDs, st.BayID)
			}
		}
		if got := deskJob(t, w, o.ID, ev.ID).Steps[0]; len(got.TechIDs) != 0 || got.ID != hv.ID {
			t.Errorf("the unplaceable step was assigned: %+v", got)
		}
		b.get(path).wantNot(t, "nothing left to accept", "Accept the whole plan")
	})
}
