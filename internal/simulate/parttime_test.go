package simulate

import (
	"testing"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// TestPartTimeTechniciansWorkTheirHours: under both policies a part-time
// technician starts work only in their own hours, and a step's work is
// counted in them (the planner's rule, workshop.WorkPeriods), so that a
// step they start at 12:30 runs on into the next morning.
func TestPartTimeTechniciansWorkTheirHours(t *testing.T) {
	t.Parallel()
	c := small(3)
	c.PartTime = 3
	w, err := NewWorkshop(c)
	if err != nil {
		t.Fatal(err)
	}
	days := Days(c, w)
	for _, policy := range Policies {
		r := newRun(w, days, policy, workshop.PlanWithEstimate)
		r.simulate()
		worked := 0
		for _, j := range r.jobs {
			for _, s := range j.steps {
				sh, partTime := r.shifts[s.tech]
				if s.status == workshop.StepPending || !partTime {
					continue
				}
				worked++
				if !sh.Open(s.start) {
					t.Errorf("%s: %s started a step at %v, outside their hours", policy, s.tech, s.start.In(w.Zone))
				}
				if local := s.end.In(w.Zone); local.Hour() > 13 || local.Hour() == 13 && local.Minute() > 0 || local.Hour() < 7 {
					t.Errorf("%s: %s's step ends %v, outside their hours 07:00-13:00", policy, s.tech, local)
				}
			}
		}
		if worked == 0 {
			t.Errorf("%s: the part-time technicians did no work", policy)
		}
	}
}
