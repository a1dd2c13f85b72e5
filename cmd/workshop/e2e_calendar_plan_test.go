package main

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/store/storetest"
)

// TestPlanKeepsCalendars: through the contract's endpoints and commands,
// technicians' hours and absences and a bay's maintenance window keep the
// plan off them, the capacity counts them, and a booking's drop-off time
// holds its steps back, on both databases.
func TestPlanKeepsCalendars(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		p := newPlanWorld(t, db) // open 00:00-23:59 every day; Ana and Ben do brakes
		now := time.Now()
		// Ana is away for three days; Ben works only 00:00-06:00 (every day).
		away := map[string]any{"techId": p.techs["Ana"], "start": now.Add(-time.Hour).Format(time.RFC3339),
			"end": now.Add(72 * time.Hour).Format(time.RFC3339), "reason": "vacation"}
		p.call("POST", "/v1/scheduler/absences", away, 201)
		hours := `[`
		for i, d := range []string{"mon", "tue", "wed", "thu", "fri", "sat", "sun"} {
			if i > 0 {
				hours += ","
			}
			hours += `{"day":"` + d + `","start":"00:00","end":"06:00"}`
		}
		if _, err := p.w.op.SetTechnicianHours(context.Background(), p.techs["Ben"], hours+`]`); err != nil {
			t.Fatal(err)
		}
		// Lift 1 (OIL, BRAKES) is serviced for the next 30 hours; Lift 2 takes anything.
		window := map[string]any{"start": now.Add(-time.Minute).Format(time.RFC3339), "end": now.Add(30 * time.Hour).Format(time.RFC3339), "reason": "inspection"}
		p.call("POST", "/v1/scheduler/bays/"+p.bays["Lift 1"]+"/maintenance-windows", window, 201)
		// A booking dropped off in 10 hours.
		var booked struct{ ID string }
		dropOff := now.Add(10 * time.Hour).Truncate(time.Minute)
		p.call("POST", "/v1/scheduler/jobs", map[string]any{"locationId": p.loc.ID, "promiseTime": now.Add(100 * time.Hour).Format(time.RFC3339),
			"expectedArrival": dropOff.Format(time.RFC3339)}, 201).Decode(t, &booked)
		p.call("POST", "/v1/scheduler/jobs/"+booked.ID+"/steps", map[string]any{"serviceCode": "BRAKES"}, 201)
		for range 4 {
			p.job(now.Add(20*time.Hour), "high", "BRAKES")
		}

		plan := p.plan()
		if len(plan.Steps) != 5 {
			t.Fatalf("plan: %d steps placed, want 5; unplaced %+v", len(plan.Steps), plan.Unplaced)
		}
		for _, s := range plan.Steps {
			if slices.Contains(s.TechIDs, p.techs["Ana"]) && s.PlannedStart.Before(now.Add(72*time.Hour)) {
				t.Errorf("step %s on Ana at %v, during her absence", s.StepID, s.PlannedStart)
			}
			if slices.Contains(s.TechIDs, p.techs["Ben"]) {
				local := s.PlannedStart.In(s.PlannedStart.Location())
				if local.Hour() >= 6 {
					t.Errorf("step %s on Ben at %v, outside his hours 00:00-06:00", s.StepID, local)
				}
			}
			if s.BayID != nil && *s.BayID == p.bays["Lift 1"] && s.PlannedStart.Before(now.Add(30*time.Hour)) {
				t.Errorf("step %s in Lift 1 at %v, during its maintenance window", s.StepID, s.PlannedStart)
			}
			if s.JobID == booked.ID && s.PlannedStart.Before(dropOff) {
				t.Errorf("the booking's step starts %v, before its drop-off %v", s.PlannedStart, dropOff)
			}
		}

		var c capacityOut
		p.call("GET", "/v1/scheduler/capacity?locationId="+p.loc.ID+"&days=5", nil, 200).Decode(t, &c)
		for _, d := range c.Days[1:3] { // whole days of her absence
			for _, tc := range d.Technicians {
				switch tc.TechID {
				case p.techs["Ana"]:
					if tc.AvailableMinutes != 0 {
						t.Errorf("%s: Ana available %d minutes, want 0 (away)", d.Date, tc.AvailableMinutes)
					}
				case p.techs["Ben"]:
					if tc.AvailableMinutes != 360 {
						t.Errorf("%s: Ben available %d minutes, want 360 (00:00-06:00)", d.Date, tc.AvailableMinutes)
					}
				}
			}
		}
	})
}
