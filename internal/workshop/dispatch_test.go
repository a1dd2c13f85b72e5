package workshop_test

import (
	"slices"
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/workshop"
	"github.com/workshop-platform/workshop/internal/workshop/dispatchcheck"
)

// monday is 07:00 on Monday 23 November 2026 in Berlin: an hour before the
// default opening (weekdays 08:00-17:30, lunch 12:00-12:30).
var monday = time.Date(2026, 11, 23, 7, 0, 0, 0, berlin)

// wk is a Berlin time of the test week, day days after its Monday.
func wk(day, hour, minute int) time.Time {
	return time.Date(2026, 11, 23+day, hour, minute, 0, 0, berlin)
}

func ref[T any](v T) *T { return &v }

// day is a workshop on the default calendar at monday, changed by opts.
func day(opts ...func(*workshop.DispatchInput)) workshop.DispatchInput {
	in := workshop.DispatchInput{Calendar: workshop.NewCalendar(berlin, workshop.DefaultSettings()), Now: monday}
	for _, o := range opts {
		o(&in)
	}
	return in
}

func dstep(id string, minutes int, opts ...func(*workshop.DispatchStep)) workshop.DispatchStep {
	s := workshop.DispatchStep{ID: id, Mode: "sequential", Duration: time.Duration(minutes) * time.Minute, Status: workshop.StepPending}
	for _, o := range opts {
		o(&s)
	}
	return s
}

// scheduledAt schedules a step: notBefore, its technician and bay ("" none).
func scheduledAt(at time.Time, tech, bay string) func(*workshop.DispatchStep) {
	return func(s *workshop.DispatchStep) { s.NotBefore, s.TechIDs, s.BayID = &at, []string{tech}, bay }
}

func needs(code string, skills ...string) func(*workshop.DispatchStep) {
	return func(s *workshop.DispatchStep) { s.ServiceCode, s.RequiredSkills = code, skills }
}

func arrived(id string, at time.Time, steps ...workshop.DispatchStep) workshop.DispatchJob {
	return workshop.DispatchJob{ID: id, Priority: "normal", ArrivalTime: &at, CreatedAt: at, Steps: steps}
}

// plan plans in, fails on any broken rule, and returns the plan with its
// steps by id.
func plan(t *testing.T, in workshop.DispatchInput) (workshop.Dispatch, map[string]workshop.PlannedStep) {
	t.Helper()
	d := workshop.PlanDispatch(in)
	for _, err := range dispatchcheck.Check(in, d) {
		t.Error(err)
	}
	byID := map[string]workshop.PlannedStep{}
	for _, s := range d.Steps {
		byID[s.StepID] = s
	}
	return d, byID
}

func unplacedReason(d workshop.Dispatch, stepID string) string {
	for _, u := range d.Unplaced {
		if u.StepID == stepID {
			return u.Reason
		}
	}
	return ""
}

func TestPlanDispatchRules(t *testing.T) {
	t.Parallel()
	techs := func(ts ...workshop.DispatchTech) func(*workshop.DispatchInput) {
		return func(in *workshop.DispatchInput) { in.Techs = ts }
	}
	bays := func(bs ...workshop.DispatchBay) func(*workshop.DispatchInput) {
		return func(in *workshop.DispatchInput) { in.Bays = bs }
	}
	jobs := func(js ...workshop.DispatchJob) func(*workshop.DispatchInput) {
		return func(in *workshop.DispatchInput) { in.Jobs = js }
	}
	tests := []struct {
		name  string
		in    workshop.DispatchInput
		check func(t *testing.T, d workshop.Dispatch, s map[string]workshop.PlannedStep)
	}{
		{"starts at the opening, the skilled technician, a bay offering the service",
			day(techs(workshop.DispatchTech{ID: "ana", Skills: []string{"tyres"}}, workshop.DispatchTech{ID: "ben", Skills: []string{"ev"}}),
				bays(workshop.DispatchBay{ID: "b1", Services: []string{"OIL"}}, workshop.DispatchBay{ID: "b2", Services: []string{"HV"}}),
				jobs(arrived("j1", monday, dstep("s1", 60, needs("HV", "ev"))))),
			func(t *testing.T, d workshop.Dispatch, s map[string]workshop.PlannedStep) {
				if got := s["s1"]; !slices.Equal(got.TechIDs, []string{"ben"}) || got.BayID != "b2" || !got.Start.Equal(wk(0, 8, 0)) || got.Pinned {
					t.Errorf("got %+v, want ben in b2 at 08:00, not pinned", got)
				}
			}},
		{"a step spans the lunch break in working time",
			day(techs(workshop.DispatchTech{ID: "ana"}), jobs(arrived("j1", monday, dstep("s1", 240), dstep("s2", 60)))),
			func(t *testing.T, d workshop.Dispatch, s map[string]workshop.PlannedStep) {
				if got := s["s2"]; !got.Start.Equal(wk(0, 12, 30)) || !got.End.Equal(wk(0, 13, 30)) {
					t.Errorf("s2 %v-%v, want 12:30-13:30 (after 08:00-12:00 and the break)", got.Start, got.End)
				}
			}},
		{"work spills over the night and the weekend",
			day(func(in *workshop.DispatchInput) { in.Now = wk(4, 16, 0) }, techs(workshop.DispatchTech{ID: "ana"}),
				jobs(arrived("j1", wk(4, 15, 0), dstep("s1", 120)))),
			func(t *testing.T, d workshop.Dispatch, s map[string]workshop.PlannedStep) {
				if got := s["s1"]; !got.Start.Equal(wk(4, 16, 0)) || !got.End.Equal(wk(5, 9, 30)) {
					t.Errorf("s1 %v-%v, want Friday 16:00 to Saturday 09:30", got.Start, got.End)
				}
			}},
		{"unavailable technicians and bays in maintenance get nothing; a later phase waits for the unplaced step",
			day(techs(workshop.DispatchTech{ID: "ana", Skills: []string{"ev"}, Unavailable: true}, workshop.DispatchTech{ID: "ben"}),
				bays(workshop.DispatchBay{ID: "b1", Maintenance: true}, workshop.DispatchBay{ID: "b2", Services: []string{"OIL"}}),
				jobs(arrived("j1", monday, dstep("ev", 30, needs("HV", "ev")), dstep("wash", 30, func(s *workshop.DispatchStep) { s.Mode = "parallel" }),
					dstep("after", 30, func(s *workshop.DispatchStep) { s.Phase = 1 })),
					arrived("j2", monday, dstep("tyres", 30, needs("TYRES"))))),
			func(t *testing.T, d workshop.Dispatch, s map[string]workshop.PlannedStep) {
				for id, want := range map[string]string{"ev": "no_qualified_technician", "after": "after_unplaced_step", "tyres": "no_suitable_bay"} {
					if got := unplacedReason(d, id); got != want {
						t.Errorf("%s unplaced %q, want %q", id, got, want)
					}
				}
				for _, u := range d.Unplaced {
					if want := map[string]string{"after": "ev"}[u.StepID]; u.BlockedBy != want {
						t.Errorf("%s blocked by %q, want %q", u.StepID, u.BlockedBy, want)
					}
				}
				if got := s["wash"]; got.BayID != "b2" || !slices.Equal(got.TechIDs, []string{"ben"}) {
					t.Errorf("the parallel wash %+v, want ben in b2 (it waits for nothing unplaced)", got)
				}
				if j := d.Jobs[0]; j.ProjectedCompletion != nil || !j.AtRisk || j.LateMinutes != 0 {
					t.Errorf("job with unplaced steps: %+v, want no projection, at risk, 0 late minutes", j)
				}
			}},
		{"a step's own want of a technician comes before waiting for an unplaced step",
			day(techs(workshop.DispatchTech{ID: "ben"}), jobs(arrived("j1", monday, dstep("ev", 30, needs("HV", "ev")),
				dstep("gear", 30, needs("GEAR", "gearbox"), func(s *workshop.DispatchStep) { s.Phase = 1 }),
				dstep("wash", 30, func(s *workshop.DispatchStep) { s.Phase = 2 })))),
			func(t *testing.T, d workshop.Dispatch, s map[string]workshop.PlannedStep) {
				for id, want := range map[string]string{"ev": "no_qualified_technician", "gear": "no_qualified_technician", "wash": "after_unplaced_step"} {
					if got := unplacedReason(d, id); got != want {
						t.Errorf("%s unplaced %q, want %q", id, got, want)
					}
				}
				if u := d.Unplaced[len(d.Unplaced)-1]; u.StepID != "wash" || u.BlockedBy != "ev" {
					t.Errorf("last unplaced %+v, want wash blocked by ev (the first it waits for)", u)
				}
			}},
		{"in progress is pinned; its technician and bay are busy until it ends",
			day(func(in *workshop.DispatchInput) { in.Now = wk(0, 9, 0) }, techs(workshop.DispatchTech{ID: "ana"}), bays(workshop.DispatchBay{ID: "b1"}),
				jobs(arrived("j1", wk(0, 8, 0), dstep("run", 120, func(s *workshop.DispatchStep) {
					s.Status, s.StartedAt, s.TechIDs, s.BayID = workshop.StepInProgress, ref(wk(0, 8, 30)), []string{"ana"}, "b1"
				})), arrived("j2", wk(0, 8, 0), dstep("next", 30)))),
			func(t *testing.T, d workshop.Dispatch, s map[string]workshop.PlannedStep) {
				if got := s["run"]; !got.Pinned || !got.Start.Equal(wk(0, 8, 30)) || !got.End.Equal(wk(0, 10, 30)) {
					t.Errorf("run %+v, want pinned 08:30-10:30", got)
				}
				if got := s["next"]; !got.Start.Equal(wk(0, 10, 30)) {
					t.Errorf("next starts %v, want 10:30 when ana and b1 are free", got.Start)
				}
			}},
		{"an assigned technician is kept, the planner picks the bay; phases and parallel steps",
			day(techs(workshop.DispatchTech{ID: "ana"}, workshop.DispatchTech{ID: "ben"}), bays(workshop.DispatchBay{ID: "b1"}, workshop.DispatchBay{ID: "b2"}),
				jobs(arrived("j1", monday, dstep("a", 60, func(s *workshop.DispatchStep) { s.TechIDs = []string{"ben"} }),
					dstep("b", 30, func(s *workshop.DispatchStep) { s.Mode = "parallel" }),
					dstep("c", 30, func(s *workshop.DispatchStep) { s.Phase = 1 })))),
			func(t *testing.T, d workshop.Dispatch, s map[string]workshop.PlannedStep) {
				if got := s["a"]; !got.Pinned || !slices.Equal(got.TechIDs, []string{"ben"}) || got.BayID == "" {
					t.Errorf("a %+v, want pinned, ben, a bay chosen", got)
				}
				if a, b := s["a"], s["b"]; !b.Start.Before(a.End) {
					t.Errorf("parallel b starts %v, want it to overlap a (%v-%v)", b.Start, a.Start, a.End)
				}
				if got := s["c"]; !got.Start.Equal(wk(0, 9, 0)) {
					t.Errorf("phase 1 c starts %v, want 09:00 when phase 0 ends", got.Start)
				}
			}},
		{"the bay buffer between jobs, none within a job",
			day(func(in *workshop.DispatchInput) { in.BayBuffer = 15 * time.Minute },
				techs(workshop.DispatchTech{ID: "ana"}, workshop.DispatchTech{ID: "ben"}), bays(workshop.DispatchBay{ID: "b1"}),
				jobs(arrived("j1", monday, dstep("a1", 60), dstep("a2", 60)), arrived("j2", monday.Add(time.Minute), dstep("b1", 60)))),
			func(t *testing.T, d workshop.Dispatch, s map[string]workshop.PlannedStep) {
				if !s["a2"].Start.Equal(s["a1"].End) && !s["b1"].Start.Equal(s["a1"].End.Add(15*time.Minute)) {
					t.Errorf("plan %+v: want a step of the same job right after, or the other job 15 minutes after", d.Steps)
				}
			}},
		{"a booking is planned from the opening of its promise's date",
			day(techs(workshop.DispatchTech{ID: "ana"}), jobs(workshop.DispatchJob{ID: "j1", Priority: "normal", CreatedAt: monday,
				PromiseTime: ref(wk(2, 16, 0)), Steps: []workshop.DispatchStep{dstep("s1", 60)}})),
			func(t *testing.T, d workshop.Dispatch, s map[string]workshop.PlannedStep) {
				if got := s["s1"]; !got.Start.Equal(wk(2, 8, 0)) {
					t.Errorf("booked step starts %v, want Wednesday 08:00", got.Start)
				}
			}},
		{"a booking with a drop-off time starts no earlier; one whose drop-off has passed from the plan's start",
			day(func(in *workshop.DispatchInput) { in.Now = wk(0, 10, 0) }, techs(workshop.DispatchTech{ID: "ana"}, workshop.DispatchTech{ID: "ben"}),
				jobs(workshop.DispatchJob{ID: "j1", Priority: "normal", CreatedAt: monday, PromiseTime: ref(wk(0, 16, 0)),
					ExpectedArrival: ref(wk(0, 13, 0)), Steps: []workshop.DispatchStep{dstep("later", 60)}},
					workshop.DispatchJob{ID: "j2", Priority: "normal", CreatedAt: monday, PromiseTime: ref(wk(2, 16, 0)),
						ExpectedArrival: ref(wk(0, 9, 0)), Steps: []workshop.DispatchStep{dstep("overdue", 60)}})),
			func(t *testing.T, d workshop.Dispatch, s map[string]workshop.PlannedStep) {
				if got := s["later"]; !got.Start.Equal(wk(0, 13, 0)) {
					t.Errorf("later starts %v, want 13:00, its drop-off", got.Start)
				}
				if got := s["overdue"]; !got.Start.Equal(wk(0, 10, 0)) {
					t.Errorf("overdue starts %v, want 10:00, the plan's start (it may come any minute)", got.Start)
				}
			}},
		{"a booking without promise or drop-off is planned from the plan's start",
			day(func(in *workshop.DispatchInput) { in.Now = wk(5, 10, 0) }, techs(workshop.DispatchTech{ID: "ana"}),
				jobs(workshop.DispatchJob{ID: "j1", Priority: "normal", CreatedAt: monday, Steps: []workshop.DispatchStep{dstep("s1", 60)}})),
			func(t *testing.T, d workshop.Dispatch, s map[string]workshop.PlannedStep) {
				if got := s["s1"]; !got.Start.Equal(wk(5, 10, 0)) || !d.Start.Equal(wk(5, 10, 0)) {
					t.Errorf("starts %v in a plan from %v, want both Saturday 10:00", got.Start, d.Start)
				}
			}},
		{"a step assigned to an unavailable technician or a bay in maintenance is unplaced, its job at risk",
			day(techs(workshop.DispatchTech{ID: "ana", Unavailable: true}, workshop.DispatchTech{ID: "ben"}),
				bays(workshop.DispatchBay{ID: "b1", Maintenance: true}, workshop.DispatchBay{ID: "b2"}),
				jobs(arrived("j1", monday, dstep("ana's", 30, func(s *workshop.DispatchStep) { s.TechIDs = []string{"ana"} }),
					dstep("next", 30, func(s *workshop.DispatchStep) { s.Phase = 1 })),
					arrived("j2", monday, dstep("in b1", 30, func(s *workshop.DispatchStep) { s.BayID = "b1" })),
					arrived("j3", monday, dstep("scheduled", 30, scheduledAt(wk(0, 9, 0), "ana", "b2"))))),
			func(t *testing.T, d workshop.Dispatch, s map[string]workshop.PlannedStep) {
				for id, want := range map[string]string{"ana's": "assigned_unavailable", "next": "after_unplaced_step",
					"in b1": "assigned_unavailable", "scheduled": "assigned_unavailable"} {
					if got := unplacedReason(d, id); got != want {
						t.Errorf("%s unplaced %q, want %q", id, got, want)
					}
				}
				for _, j := range d.Jobs {
					if !j.AtRisk || j.ProjectedCompletion != nil {
						t.Errorf("job %s: %+v, want at risk without a projection", j.JobID, j)
					}
				}
			}},
		{"an arrival later than the opening holds the job back",
			day(func(in *workshop.DispatchInput) { in.Now = wk(0, 10, 0) }, techs(workshop.DispatchTech{ID: "ana"}),
				jobs(arrived("j1", wk(0, 10, 2), dstep("s1", 30)))),
			func(t *testing.T, d workshop.Dispatch, s map[string]workshop.PlannedStep) {
				if got := s["s1"]; got.Start.Before(wk(0, 10, 2)) {
					t.Errorf("starts %v, before the arrival 10:02", got.Start)
				}
			}},
		{"more than 14 days of work is beyond the horizon",
			day(techs(workshop.DispatchTech{ID: "ana"}), jobs(arrived("j1", monday, dstep("huge", 10080)))),
			func(t *testing.T, d workshop.Dispatch, s map[string]workshop.PlannedStep) {
				if got := unplacedReason(d, "huge"); got != "beyond_horizon" {
					t.Errorf("unplaced %q, want beyond_horizon", got)
				}
			}},
		{"the urgent job goes first when one technician must choose",
			day(techs(workshop.DispatchTech{ID: "ana"}), jobs(
				workshop.DispatchJob{ID: "low", Priority: "low", ArrivalTime: ref(monday), CreatedAt: monday, PromiseTime: ref(wk(0, 9, 0)),
					Steps: []workshop.DispatchStep{dstep("l", 60)}},
				workshop.DispatchJob{ID: "urgent", Priority: "urgent", ArrivalTime: ref(monday.Add(time.Minute)), CreatedAt: monday,
					PromiseTime: ref(wk(0, 9, 0)), Steps: []workshop.DispatchStep{dstep("u", 60)}})),
			func(t *testing.T, d workshop.Dispatch, s map[string]workshop.PlannedStep) {
				if !s["u"].Start.Before(s["l"].Start) || d.Totals.WeightedLateMinutes != 60 {
					t.Errorf("urgent %v, low %v, weighted late %d; want urgent first and 60 (the low job an hour late)",
						s["u"].Start, s["l"].Start, d.Totals.WeightedLateMinutes)
				}
			}},
		{"a scheduled step starts exactly at its notBefore, ahead of earlier work",
			day(techs(workshop.DispatchTech{ID: "ana"}), bays(workshop.DispatchBay{ID: "b1"}),
				jobs(arrived("j1", monday, dstep("first", 120)),
					arrived("j2", monday.Add(time.Minute), dstep("moved", 30, scheduledAt(wk(0, 9, 0), "ana", "b1"))))),
			func(t *testing.T, d workshop.Dispatch, s map[string]workshop.PlannedStep) {
				if got := s["moved"]; !got.Start.Equal(wk(0, 9, 0)) || !got.Pinned || got.NotBefore == nil || !got.NotBefore.Equal(wk(0, 9, 0)) {
					t.Errorf("moved %+v, want pinned at 09:00 with its notBefore", got)
				}
				if got := s["first"]; !got.Start.Equal(wk(0, 9, 30)) {
					t.Errorf("first starts %v, want 09:30, after the scheduled step (08:00-09:00 is too short for it)", got.Start)
				}
			}},
		{"scheduled steps go by notBefore: the later one waits when they collide",
			day(techs(workshop.DispatchTech{ID: "ana"}), bays(workshop.DispatchBay{ID: "b1"}),
				jobs(arrived("j1", monday, dstep("late", 60, scheduledAt(wk(0, 10, 30), "ana", "b1"))),
					arrived("j2", monday, dstep("early", 60, scheduledAt(wk(0, 10, 0), "ana", "b1"))))),
			func(t *testing.T, d workshop.Dispatch, s map[string]workshop.PlannedStep) {
				if !s["early"].Start.Equal(wk(0, 10, 0)) || !s["late"].Start.Equal(wk(0, 11, 0)) {
					t.Errorf("early %v, late %v; want 10:00 and 11:00", s["early"].Start, s["late"].Start)
				}
			}},
		{"a scheduled step waiting for a step the planner places is placed after it, keeping its notBefore",
			day(techs(workshop.DispatchTech{ID: "ana"}, workshop.DispatchTech{ID: "ben"}), bays(workshop.DispatchBay{ID: "b1"}, workshop.DispatchBay{ID: "b2"}),
				jobs(arrived("j1", monday, dstep("diagnose", 120), dstep("repair", 60, scheduledAt(wk(0, 9, 0), "ben", "b2"))))),
			func(t *testing.T, d workshop.Dispatch, s map[string]workshop.PlannedStep) {
				if got := s["repair"]; !got.Start.Equal(s["diagnose"].End) || !slices.Equal(got.TechIDs, []string{"ben"}) || got.BayID != "b2" {
					t.Errorf("repair %+v, want ben in b2 when diagnose ends %v", got, s["diagnose"].End)
				}
			}},
		{"a notBefore alone holds a step back and replaces a booking's promise day",
			day(techs(workshop.DispatchTech{ID: "ana"}), jobs(workshop.DispatchJob{ID: "j1", Priority: "normal", CreatedAt: monday,
				PromiseTime: ref(wk(2, 16, 0)), Steps: []workshop.DispatchStep{dstep("s1", 60, func(s *workshop.DispatchStep) { s.NotBefore = ref(wk(1, 14, 0)) })}})),
			func(t *testing.T, d workshop.Dispatch, s map[string]workshop.PlannedStep) {
				if got := s["s1"]; !got.Start.Equal(wk(1, 14, 0)) || got.Pinned {
					t.Errorf("s1 %+v, want Tuesday 14:00, not pinned", got)
				}
			}},
		{"a notBefore in the lunch break starts at its end; one in the past at the plan's start",
			day(func(in *workshop.DispatchInput) { in.Now = wk(0, 11, 0) }, techs(workshop.DispatchTech{ID: "ana"}, workshop.DispatchTech{ID: "ben"}),
				jobs(arrived("j1", monday, dstep("lunch", 30, scheduledAt(wk(0, 12, 10), "ana", ""))),
					arrived("j2", monday, dstep("past", 30, scheduledAt(wk(0, 8, 0), "ben", ""))))),
			func(t *testing.T, d workshop.Dispatch, s map[string]workshop.PlannedStep) {
				if !s["lunch"].Start.Equal(wk(0, 12, 30)) || !s["past"].Start.Equal(wk(0, 11, 0)) {
					t.Errorf("lunch %v, past %v; want 12:30 and 11:00", s["lunch"].Start, s["past"].Start)
				}
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d, byID := plan(t, tc.in)
			tc.check(t, d, byID)
		})
	}
}

// TestPlanDispatchAcrossDST: a location open around the clock plans across
// the night Berlin's clocks go forward; every step keeps its working time.
func TestPlanDispatchAcrossDST(t *testing.T) {
	t.Parallel()
	var hours []workshop.OpeningHours
	for _, d := range []string{"mon", "tue", "wed", "thu", "fri", "sat", "sun"} {
		hours = append(hours, workshop.OpeningHours{Day: d, Open: "00:00", Close: "23:59"})
	}
	cal := workshop.NewCalendar(berlin, workshop.Settings{OperatingHours: hours})
	sat := time.Date(2026, 3, 28, 23, 0, 0, 0, berlin)
	in := workshop.DispatchInput{Calendar: cal, Now: sat,
		Techs: []workshop.DispatchTech{{ID: "ana"}}, Jobs: []workshop.DispatchJob{arrived("j1", sat, dstep("night", 240))}}
	_, s := plan(t, in)
	// 23:00 Saturday + 4 h of work, one minute closed at 23:59 and no
	// 02:00-03:00: 04:01 on Sunday, three real hours and a minute later.
	if got := s["night"]; !got.End.Equal(time.Date(2026, 3, 29, 4, 1, 0, 0, berlin)) {
		t.Errorf("ends %v, want 04:01 on Sunday", got.End)
	}
}

// TestQuoteAvailability: a quote goes around the plan without moving it,
// one step after another, and says why when a service cannot be placed.
func TestQuoteAvailability(t *testing.T) {
	t.Parallel()
	in := day(func(in *workshop.DispatchInput) {
		in.Techs = []workshop.DispatchTech{{ID: "ana", Skills: []string{"oil"}}}
		in.Jobs = []workshop.DispatchJob{arrived("j1", monday, dstep("s1", 120))}
	})
	d, _ := plan(t, in)
	q := workshop.QuoteAvailability(in, d, monday, []workshop.QuoteStep{{ServiceCode: "OIL", Duration: time.Hour, RequiredSkills: []string{"oil"}},
		{ServiceCode: "WASH", Duration: 30 * time.Minute}})
	if len(q.Steps) != 2 || !q.Steps[0].Start.Equal(wk(0, 10, 0)) || !q.Steps[1].Start.Equal(wk(0, 11, 0)) || !q.EarliestCompletion.Equal(wk(0, 11, 30)) {
		t.Errorf("quote %+v, want OIL 10:00-11:00 after the planned job, WASH 11:00-11:30", q)
	}
	if again, _ := plan(t, in); again.Steps[0].Start != d.Steps[0].Start {
		t.Errorf("the quote moved planned work")
	}
	q = workshop.QuoteAvailability(in, d, monday, []workshop.QuoteStep{{ServiceCode: "EV", Duration: time.Hour, RequiredSkills: []string{"ev"}}})
	if q.EarliestCompletion != nil || q.Unplaced != "no_qualified_technician" {
		t.Errorf("quote for a skill nobody has: %+v, want no completion, no_qualified_technician", q)
	}
}
