package main

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
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
			"for 2 unassigned steps", ev.JobNumber+" · High voltage check</a>", "No technician has the skills", "Jobs at risk")
		b.get(path+"/steps/"+first.ID).want(t, "a proposal's form", http.StatusOK, "", "Accept the proposal", `name="stepId" value="`+first.ID+`"`)
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
			"Accepted "+job.JobNumber+" · Matrix step: Jonas, Lift 1.", "assigned by a person", "for 1 unassigned step:")
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

		// The week, a table without JavaScript: Jonas's hours each day.
		b.get(path+"/week").want(t, "the week", http.StatusOK, "", `<table class="week">`, "Jonas", " of ", "Jobs at risk")
		b.get(path+"/week?from=yesterday").want(t, "a bad date", http.StatusBadRequest, "", "YYYY-MM-DD")
		b.get(path+"/week?from=2000-01-01").want(t, "before today", http.StatusUnprocessableEntity, "", "The plan covers today")
		tech.get(path+"/week").want(t, "technician opens the week", http.StatusForbidden, "")
	})
}

// "Accept the whole plan" says how many steps on which days, and offers
// the day's alone, which accepts that day's proposals only (the demo's
// plan proposes steps today and tomorrow).
func TestAppDispatchAcceptDay(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		w := newWorld(t, db.URL)
		out, err := w.op.Demo(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		srv := startServer(t, db.URL)
		b := newBrowser(t, srv.URL)
		var owner operator.DemoUser
		for _, u := range out.Users {
			if u.Role == workshop.RoleOwner {
				owner = u
			}
		}
		b.login(owner.Email, owner.Password, "").want(t, "owner signs in", http.StatusSeeOther, "/")
		path := "/locations/" + out.LocationIDs[0] + "/dispatch"
		page := b.get(path)
		page.want(t, "the plan", http.StatusOK, "", "Accept the whole plan (")
		m := regexp.MustCompile(`Accept this day's (\d+) alone`).FindStringSubmatch(page.body)
		date := regexp.MustCompile(`data-date="([0-9-]+)"`).FindStringSubmatch(page.body)
		if m == nil || date == nil {
			t.Skipf("the demo's plan proposes steps on one day only: nothing to tell apart")
		}
		before := strings.Count(page.body, `class="tl-bar proposed`)
		b.post(path+"/apply", url.Values{"scope": {"day"}, "date": {date[1]}}).want(t, "accept the day", http.StatusSeeOther,
			path+"?accepted=day&date="+date[1]+"&n="+m[1])
		after := b.get(path + "?accepted=day&date=" + date[1] + "&n=" + m[1])
		after.want(t, "the day accepted", http.StatusOK, "", "Accepted this day&#39;s proposals", "Accept the whole plan (")
		if n := strings.Count(after.body, `class="tl-bar proposed`); n != 0 || before == 0 {
			t.Errorf("proposed bars on the day: %d before, %d after accepting the day; want some, then none", before, n)
		}
	})
}

// Moving a step without JavaScript: each bar opens a form of its step
// (technicians, bay, start) whose post is one step PATCH with the
// updatedAt it was drawn from. A stale form is refused and says so; a
// technician without the step's skills is asked about first; a bay in
// maintenance is refused with its name; Unschedule returns the time to
// the planner and keeps the technicians and bay.
func TestAppDispatchMove(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		w := newWorld(t, db.URL)
		s := newDispatchShop(t, w)
		appUser(t, w, s.org.ID, "move@timeline.example", workshop.RoleAdvisor, testPassword)
		srv := startServer(t, db.URL)
		b := newBrowser(t, srv.URL)
		b.login("move@timeline.example", testPassword, "").want(t, "advisor signs in", http.StatusSeeOther, "/")
		path := "/locations/" + s.loc.ID + "/dispatch"
		oil := deskJob(t, w, s.org.ID, s.jobs[2].ID).Steps[0]
		zone, _ := time.LoadLocation(s.loc.Timezone)
		day := time.Now().In(zone).AddDate(0, 0, 1).Format(time.DateOnly)

		b.get(path+"/steps/"+oil.ID+"?date="+day).want(t, "the move form", http.StatusOK, "",
			"Move "+s.jobs[2].JobNumber+" · Oil service · M-XY 3120", `name="techIds" value="`+s.cem.ID+`"`, `name="start"`, "Unschedule")
		move := func(st workshop.Step, extra url.Values) url.Values {
			v := url.Values{"techIds": {s.cem.ID}, "bayId": {s.lift1.ID}, "start": {day + "T10:30"}, "action": {"move"},
				"updatedAt": {strconv.FormatInt(int64(st.UpdatedAt), 10)}, "date": {day}}
			for k, vs := range extra {
				v[k] = vs
			}
			return v
		}
		b.post(path+"/steps/"+oil.ID+"/move", move(oil, url.Values{"action": {"preview"}})).want(t, "what the move would do, without JavaScript",
			http.StatusOK, "", "If moved so: ", "other step", `name="start" type="datetime-local" step="300" value="`+day+`T10:30"`)
		if got := stepByID(t, w, s, oil.ID); got.NotBefore != nil || len(got.TechIDs) != 0 {
			t.Errorf("a preview moved the step: %v %v", got.TechIDs, got.NotBefore)
		}
		b.post(path+"/steps/"+oil.ID+"/move", move(oil, nil)).want(t, "move", http.StatusSeeOther, movedTo(path, day, "move", oil, stepByID(t, w, s, oil.ID)))
		moved := movedTo(path, day, "move", oil, stepByID(t, w, s, oil.ID))
		b.get(moved).want(t, "told", http.StatusOK, "", "Moved "+s.jobs[2].JobNumber+" · Oil service · M-XY 3120 to Cem Yilmaz, Lift 1.")
		got := stepByID(t, w, s, oil.ID)
		if got.NotBefore == nil || got.NotBefore.In(zone).Format("2006-01-02T15:04") != day+"T10:30" ||
			len(got.TechIDs) != 1 || got.TechIDs[0] != s.cem.ID || got.BayID == nil || *got.BayID != s.lift1.ID {
			t.Errorf("moved step: %v %v %v; want Cem, Lift 1, %sT10:30", got.TechIDs, got.BayID, got.NotBefore, day)
		}

		b.post(path+"/steps/"+oil.ID+"/move", move(oil, url.Values{"start": {day + "T11:00"}})).want(t, "a stale form",
			http.StatusConflict, "", "Someone else changed this step")

		b.post(path+"/steps/"+oil.ID+"/move", move(got, url.Values{"action": {"unschedule"}})).want(t, "unschedule",
			http.StatusSeeOther, movedTo(path, day, "unschedule", got, stepByID(t, w, s, oil.ID)))
		unscheduled := movedTo(path, day, "unschedule", got, stepByID(t, w, s, oil.ID))
		b.get(unscheduled).want(t, "told", http.StatusOK, "", "Unscheduled "+s.jobs[2].JobNumber+" · Oil service · M-XY 3120: the planner times it again")
		if got = stepByID(t, w, s, oil.ID); got.NotBefore != nil || len(got.TechIDs) != 1 || got.BayID == nil {
			t.Errorf("unscheduled step: %v %v %v; want no notBefore, its technician and bay kept", got.TechIDs, got.BayID, got.NotBefore)
		}

		// Undo, from the page the move led to: the step's technicians, bay
		// and notBefore as they were, if no one changed it since.
		undone := b.get(unscheduled)
		undone.want(t, "the undo offered", http.StatusOK, "", `class="undo"`, `name="action" value="undo"`)
		unschedulededStep := got
		undo := url.Values{"action": {"undo"}, "techIds": {s.cem.ID}, "bayId": {s.lift1.ID},
			"notBefore": {day + "T10:30:00" + time.Now().In(zone).Format("-07:00")}, "updatedAt": {strconv.FormatInt(int64(unschedulededStep.UpdatedAt), 10)}, "date": {day}}
		b.post(path+"/steps/"+oil.ID+"/move", undo).want(t, "undo", http.StatusSeeOther, path+"?date="+day+"&how=undo&moved="+oil.ID)
		b.get(path+"?date="+day+"&how=undo&moved="+oil.ID).want(t, "told", http.StatusOK, "", "Put "+s.jobs[2].JobNumber+" · Oil service · M-XY 3120 back: Cem Yilmaz, Lift 1, not before ")
		if got = stepByID(t, w, s, oil.ID); got.NotBefore == nil || got.NotBefore.In(zone).Format("2006-01-02T15:04") != day+"T10:30" {
			t.Errorf("after the undo, notBefore %v; want %sT10:30 again", got.NotBefore, day)
		}
		b.post(path+"/steps/"+oil.ID+"/move", undo).want(t, "an undo after a change", http.StatusConflict, "", "since it was moved, so it was not put back")

		lonely := url.Values{"techIds": {s.ana.ID}, "bayId": {s.lift1.ID}}
		b.post(path+"/steps/"+s.lonely.ID+"/move", move(s.lonely, lonely)).want(t, "a technician without the skills",
			http.StatusOK, "", "Ana Petrova does not have the isolation skill that Isolation test needs. Move it anyway?", `name="confirm" value="1"`)
		if got = stepByID(t, w, s, s.lonely.ID); len(got.TechIDs) != 0 {
			t.Errorf("moved before confirming: %v", got.TechIDs)
		}
		lonely.Set("confirm", "1")
		b.post(path+"/steps/"+s.lonely.ID+"/move", move(s.lonely, lonely)).want(t, "confirmed",
			http.StatusSeeOther, movedTo(path, day, "move", s.lonely, stepByID(t, w, s, s.lonely.ID)))

		wipers := deskJob(t, w, s.org.ID, s.jobs[2].ID).Steps[1]
		b.post(path+"/steps/"+wipers.ID+"/move", move(wipers, url.Values{"bayId": {s.lift3.ID}})).want(t, "a bay in maintenance",
			http.StatusUnprocessableEntity, "", "Lift 3 is in maintenance")
	})
}

// movedTo is where a move without JavaScript leads: the dispatch page of
// the day, saying what moved, with the Undo of it (the step as it was
// before, and the version the move left).
func movedTo(path, day, how string, before, after workshop.Step) string {
	v := url.Values{"date": {day}, "how": {how}, "moved": {before.ID}, "undo.techIds": before.TechIDs,
		"undo.bayId": {deref(before.BayID)}, "undo.notBefore": {""}, "undo.updatedAt": {strconv.FormatInt(int64(after.UpdatedAt), 10)}}
	if before.NotBefore != nil {
		v.Set("undo.notBefore", before.NotBefore.Time.Format(time.RFC3339))
	}
	return path + "?" + v.Encode()
}
