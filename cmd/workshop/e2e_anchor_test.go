package main

// Re-plans move little near now (contract section 8) through the API on
// both databases and across two processes.

import (
	"context"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/httpapi/apitest"
	"github.com/workshop-platform/workshop/internal/operator"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

func TestReplansKeepNearNow(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		p := newPlanWorld(t, db)
		ctx := context.Background()
		for _, name := range []string{"Dora", "Emil", "Finn", "Gus"} {
			tec, err := p.w.op.CreateTechnician(ctx, operator.TechnicianRequest{LocationID: p.loc.ID, Name: name,
				Skills: []string{"engine", "brakes"}, WIPLimit: 2})
			if err != nil {
				t.Fatal(err)
			}
			p.techs[name] = tec.ID
		}
		for _, name := range []string{"Lift 3", "Lift 4"} {
			if _, err := p.w.op.CreateBay(ctx, p.loc.ID, name, nil, nil); err != nil {
				t.Fatal(err)
			}
		}
		second := startServer(t, db.URL).URL // another process: its own plan cache
		now := time.Now()
		for i := range 8 {
			codes := []string{"OIL", "BRAKES"}
			if i%3 == 2 {
				codes = []string{"BRAKES"}
			}
			p.job(now.Add(time.Duration(3+i)*time.Hour), "normal", codes...)
		}
		read := func(base string) planOut {
			var out planOut
			r := apitest.Call(t, base, apitest.Request{Method: "GET", Path: "/v1/scheduler/plan?locationId=" + p.loc.ID, Key: p.o.Key.Key})
			if r.Status != 200 {
				t.Fatalf("GET plan: %d %s", r.Status, r.Body)
			}
			r.Decode(t, &out)
			return out
		}
		version := func() int64 {
			v, err := p.w.st.PlanVersion(ctx, p.loc.ID)
			if err != nil {
				t.Fatal(err)
			}
			return v
		}

		before := version()
		minute := time.Now().Truncate(time.Minute)
		anchor := read(p.api)
		again := read(second)
		if after := version(); after != before {
			t.Errorf("reading (and anchoring) the plan moved the plan version %d -> %d", before, after)
		}
		if time.Now().Truncate(time.Minute).Equal(minute) && !reflect.DeepEqual(again.Steps, anchor.Steps) {
			t.Errorf("two processes' plans of unchanged data in one minute differ:\n%+v\n%+v", anchor.Steps, again.Steps)
		}

		// Send the busiest technician home.
		count := map[string]int{}
		for _, s := range anchor.Steps {
			for _, id := range s.TechIDs {
				count[id]++
			}
		}
		busiest := ""
		for _, id := range p.techs {
			if busiest == "" || count[id] > count[busiest] || count[id] == count[busiest] && id < busiest {
				busiest = id
			}
		}
		var tech struct{ UpdatedAt string }
		p.call("GET", "/v1/scheduler/technicians/"+busiest, nil, 200).Decode(t, &tech)
		p.call("PATCH", "/v1/scheduler/technicians/"+busiest, map[string]any{"status": "unavailable", "updatedAt": tech.UpdatedAt}, 200)
		replan := read(second)

		affected := map[string]bool{}
		for _, s := range anchor.Steps {
			if slices.Contains(s.TechIDs, busiest) {
				affected[s.JobID] = true
			}
		}
		placed := map[string]int{}
		for i, s := range replan.Steps {
			placed[s.StepID] = i
			if slices.Contains(s.TechIDs, busiest) {
				t.Errorf("step %s still on the technician sent home", s.StepID)
			}
		}
		start := anchor.Steps[0].PlannedStart
		for _, s := range anchor.Steps {
			start = workshop.Earlier(start, s.PlannedStart)
		}
		kept := 0
		for _, s := range anchor.Steps {
			if affected[s.JobID] || !s.PlannedStart.Before(start.Add(workshop.KeptWindow)) { // open around the clock: working time is wall time
				continue
			}
			i, ok := placed[s.StepID]
			if !ok {
				t.Errorf("step %s near now is no longer placed", s.StepID)
				continue
			}
			n := replan.Steps[i]
			if !slices.Equal(n.TechIDs, s.TechIDs) || !reflect.DeepEqual(n.BayID, s.BayID) || n.PlannedStart.Sub(s.PlannedStart).Abs() > workshop.KeptTolerance {
				t.Errorf("step %s near now moved: %v %v %v -> %v %v %v", s.StepID, s.TechIDs, ptrValue(s.BayID), s.PlannedStart,
					n.TechIDs, ptrValue(n.BayID), n.PlannedStart)
			}
			kept++
		}
		if kept == 0 {
			t.Errorf("no step of an unaffected job was placed near now: the test shows nothing (plan %+v)", anchor.Steps)
		}
	})
}
