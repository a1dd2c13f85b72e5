package workshop_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// TestPlanDay: a day of the plan is today to 13 days after it in the
// location's zone; anything else is refused on date.
func TestPlanDay(t *testing.T) {
	t.Parallel()
	now := wk(0, 23, 30) // Monday 23:30 in Berlin, Monday 22:30 UTC
	for _, tc := range []struct {
		date string
		ok   bool
	}{{"2026-11-23", true}, {"2026-12-06", true}, {"2026-11-22", false}, {"2026-12-07", false}, {"9999-12-31", false},
		{"0001-01-01", false}, {"2026-13-01", false}} {
		day, err := workshop.PlanDay(tc.date, now, berlin)
		if tc.ok != (err == nil) {
			t.Errorf("%s: error %v, want ok %v", tc.date, err, tc.ok)
			continue
		}
		if err != nil {
			var we *workshop.Error
			if !errors.As(err, &we) || we.Field != "date" || we.Code != workshop.CodeValidationFailed {
				t.Errorf("%s: refused with %v, want validation_failed on date", tc.date, err)
			}
			continue
		}
		if day.Format(time.DateOnly) != tc.date || day.Hour() != 0 || day.Location() != berlin {
			t.Errorf("%s: day %v, want local midnight of that date", tc.date, day)
		}
	}
}

// TestStepsOnSliceOnePlan: every date of the plan is a slice of it: a step
// is listed on each local day its planned time overlaps (a closed Sunday it
// spans included) and on no other.
func TestStepsOnSliceOnePlan(t *testing.T) {
	t.Parallel()
	in := day(func(in *workshop.DispatchInput) {
		in.Now = wk(4, 16, 0) // Friday 16:00: work spills into Saturday, then over Sunday into Monday
		in.Techs = []workshop.DispatchTech{{ID: "ana"}}
		in.Jobs = []workshop.DispatchJob{arrived("j1", wk(4, 15, 0), dstep("spill", 120), dstep("long", 360))}
	})
	d, s := plan(t, in)
	on := func(date time.Time) []string {
		var ids []string
		for _, ps := range d.StepsOn(date) {
			ids = append(ids, ps.StepID)
		}
		return ids
	}
	for _, tc := range []struct {
		date time.Time
		want []string
	}{{wk(4, 0, 0), []string{"spill"}}, {wk(5, 0, 0), []string{"spill", "long"}}, {wk(6, 0, 0), []string{"long"}},
		{wk(7, 0, 0), []string{"long"}}, {wk(8, 0, 0), nil}} {
		if got := on(tc.date); !slices.Equal(got, tc.want) {
			t.Errorf("%s: steps %v, want %v (plan %v)", tc.date.Format(time.DateOnly), got, tc.want, s)
		}
	}
}

// TestPlanDispatchStopsWhenNobodyWaits: a plan whose context has ended
// answers its error instead of a plan.
func TestPlanDispatchStopsWhenNobodyWaits(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	in := day(func(in *workshop.DispatchInput) {
		in.Techs = []workshop.DispatchTech{{ID: "ana"}}
		in.Jobs = []workshop.DispatchJob{arrived("j1", monday, dstep("s1", 60))}
	})
	if _, err := workshop.PlanDispatchContext(ctx, in); err != context.Canceled {
		t.Errorf("error %v, want context.Canceled", err)
	}
	if d, err := workshop.PlanDispatchContext(context.Background(), in); err != nil || len(d.Steps) != 1 {
		t.Errorf("plan %+v, error %v; want the step placed", d, err)
	}
}
