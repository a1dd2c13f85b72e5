package workshop_test

import (
	"slices"
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// TestPlanKeepsTheAnchorNearNow: a placement of the anchor in its first
// working hour is kept (technician, bay, start) while feasible, and freed
// when it is not; one further out is the planner's again.
func TestPlanKeepsTheAnchorNearNow(t *testing.T) {
	t.Parallel()
	// Monday 08:00 opening; two equal technicians and a bay each.
	base := func(anchor *workshop.DispatchAnchor, opts ...func(*workshop.DispatchInput)) workshop.DispatchInput {
		return day(func(in *workshop.DispatchInput) {
			in.Now = wk(0, 8, 0)
			in.Techs = []workshop.DispatchTech{{ID: "tec_a"}, {ID: "tec_b"}}
			in.Bays = []workshop.DispatchBay{{ID: "bay_1"}, {ID: "bay_2"}}
			in.Jobs = []workshop.DispatchJob{
				arrived("job_1", wk(0, 7, 0), dstep("s1", 60)),
				arrived("job_2", wk(0, 7, 5), dstep("s2", 60)),
			}
			in.Anchor = anchor
			for _, o := range opts {
				o(in)
			}
		})
	}
	// An anchor that put s1 on tec_b in bay_2 at 08:10 (the planner alone
	// would start it at 08:00 on the first technician and bay).
	anchor := &workshop.DispatchAnchor{Start: wk(0, 8, 0), Steps: []workshop.AnchorStep{
		{StepID: "s1", TechIDs: []string{"tec_b"}, BayID: "bay_2", Start: wk(0, 8, 10)},
		{StepID: "s2", TechIDs: []string{"tec_b"}, BayID: "bay_2", Start: wk(0, 11, 0)}, // beyond the first hour
	}}
	for _, c := range []struct {
		name      string
		in        workshop.DispatchInput
		kept      bool
		wantStart time.Time
	}{
		{"kept where it was", base(anchor), true, wk(0, 8, 10)},
		{"kept a minute later", base(anchor, func(in *workshop.DispatchInput) { in.Now = wk(0, 8, 1) }), true, wk(0, 8, 10)},
		{"the plan's start when later", base(anchor, func(in *workshop.DispatchInput) { in.Now = wk(0, 8, 40) }), true, wk(0, 8, 40)},
		{"the technician went home", base(anchor, func(in *workshop.DispatchInput) { in.Techs[1].Unavailable = true }), false, time.Time{}},
		{"the bay went into maintenance", base(anchor, func(in *workshop.DispatchInput) { in.Bays[1].Maintenance = true }), false, time.Time{}},
		{"a step in progress runs over", base(anchor, func(in *workshop.DispatchInput) {
			started := wk(0, 7, 0)
			in.Jobs = append(in.Jobs, arrived("job_3", wk(0, 6, 0), dstep("s3", 120, func(s *workshop.DispatchStep) {
				s.Status, s.StartedAt, s.TechIDs, s.BayID = workshop.StepInProgress, &started, []string{"tec_b"}, "bay_1"
			})))
		}), false, time.Time{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, byID := plan(t, c.in)
			s1 := byID["s1"]
			kept := slices.Equal(s1.TechIDs, []string{"tec_b"}) && s1.BayID == "bay_2" && s1.Start.Equal(c.wantStart)
			if kept != c.kept {
				t.Errorf("s1 = %v %s %v; want kept %v (at %v)", s1.TechIDs, s1.BayID, s1.Start, c.kept, c.wantStart)
			}
		})
	}
	// Beyond the first working hour the anchor binds nothing: s2 starts
	// when it is best, not at 11:00.
	if _, byID := plan(t, base(anchor)); byID["s2"].Start.Equal(wk(0, 11, 0)) {
		t.Errorf("s2 kept at 11:00, beyond the anchor's first hour")
	}
}
