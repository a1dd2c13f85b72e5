package workshop_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// When a technician or bay works: the location's working time (weekdays
// 08:00-17:30, lunch 12:00-12:30) within their hours, outside their time
// away.
func TestWorkPeriods(t *testing.T) {
	t.Parallel()
	cal := workshop.NewCalendar(berlin, workshop.DefaultSettings())
	mon := func(h, m int) time.Time { return wk(0, h, m) }
	iv := func(a, b time.Time) workshop.Interval { return workshop.Interval{Start: a, End: b} }
	from, to := wk(0, 0, 0), wk(1, 0, 0) // Monday
	for _, c := range []struct {
		name string
		work workshop.WorkTime
		want []workshop.Interval
	}{
		{"the location's time", workshop.WorkTime{}, []workshop.Interval{iv(mon(8, 0), mon(12, 0)), iv(mon(12, 30), mon(17, 30))}},
		{"mornings only, earlier than the opening", workshop.WorkTime{Hours: []workshop.WeeklyHours{{Day: "mon", Start: "06:00", End: "12:15"}}},
			[]workshop.Interval{iv(mon(8, 0), mon(12, 0))}},
		{"two stretches a day", workshop.WorkTime{Hours: []workshop.WeeklyHours{{Day: "mon", Start: "09:00", End: "10:00"}, {Day: "mon", Start: "15:00", End: "16:00"}}},
			[]workshop.Interval{iv(mon(9, 0), mon(10, 0)), iv(mon(15, 0), mon(16, 0))}},
		{"another day's hours", workshop.WorkTime{Hours: []workshop.WeeklyHours{{Day: "tue", Start: "08:00", End: "17:00"}}}, nil},
		{"no hours at all", workshop.WorkTime{Hours: []workshop.WeeklyHours{}}, nil},
		{"an absence in the morning", workshop.WorkTime{Away: []workshop.Interval{iv(mon(7, 0), mon(10, 0))}},
			[]workshop.Interval{iv(mon(10, 0), mon(12, 0)), iv(mon(12, 30), mon(17, 30))}},
		{"overlapping absences", workshop.WorkTime{Away: []workshop.Interval{iv(mon(13, 0), mon(15, 0)), iv(mon(9, 0), mon(11, 0)), iv(mon(10, 0), mon(14, 0))}},
			[]workshop.Interval{iv(mon(8, 0), mon(9, 0)), iv(mon(15, 0), mon(17, 30))}},
		{"away all week", workshop.WorkTime{Away: []workshop.Interval{iv(wk(-3, 0, 0), wk(4, 0, 0))}}, nil},
	} {
		if got := cal.WorkPeriods(c.work, from, to); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
	}
	if got, want := cal.WorkMinutes(workshop.WorkTime{Away: []workshop.Interval{iv(mon(7, 0), mon(10, 0))}}, from, to), 420; got != want {
		t.Errorf("work minutes with a morning away: got %d, want %d", got, want)
	}
	// A location without hours works around the clock: the technician's
	// hours are all.
	always := workshop.Calendar{Zone: berlin}
	want := []workshop.Interval{iv(mon(6, 0), mon(9, 0))}
	if got := always.WorkPeriods(workshop.WorkTime{Hours: []workshop.WeeklyHours{{Day: "mon", Start: "06:00", End: "09:00"}}}, from, to); !reflect.DeepEqual(got, want) {
		t.Errorf("without location hours: got %v, want %v", got, want)
	}
}

// The planner keeps technicians and bays to their own working time: a
// morning technician's long step spans the afternoons they are away; an
// absence and a maintenance window are never worked through; a step
// assigned to a technician away for the whole horizon is beyond it.
func TestPlanKeepsOwnWorkingTime(t *testing.T) {
	t.Parallel()
	mornings := workshop.WorkTime{Hours: []workshop.WeeklyHours{{Day: "mon", Start: "08:00", End: "12:00"}, {Day: "tue", Start: "08:00", End: "12:00"}}}
	in := day(func(in *workshop.DispatchInput) {
		in.Techs = []workshop.DispatchTech{{ID: "t_morning", Skills: []string{"engine"}, Work: mornings},
			{ID: "t_away", Skills: []string{"brakes"}, Work: workshop.WorkTime{Away: []workshop.Interval{{Start: wk(0, 0, 0), End: wk(0, 14, 0)}}}},
			{ID: "t_gone", Work: workshop.WorkTime{Away: []workshop.Interval{{Start: wk(-1, 0, 0), End: wk(30, 0, 0)}}}}}
		in.Bays = []workshop.DispatchBay{{ID: "b1", Work: workshop.WorkTime{Away: []workshop.Interval{{Start: wk(0, 8, 0), End: wk(0, 9, 0)}}}}}
		in.Jobs = []workshop.DispatchJob{
			arrived("j1", monday, dstep("engine", 300, needs("", "engine"))),
			arrived("j2", monday, dstep("brakes", 60, needs("", "brakes"))),
			arrived("j3", monday, dstep("gone", 30, func(s *workshop.DispatchStep) { s.TechIDs = []string{"t_gone"} })),
		}
	})
	d, steps := plan(t, in)
	// The bay is serviced 08:00-09:00; the morning technician works 4 hours
	// on Monday (09:00-12:00 in the bay) and the rest on Tuesday morning.
	if got := steps["engine"]; !got.Start.Equal(wk(0, 9, 0)) || !got.End.Equal(wk(1, 10, 0)) {
		t.Errorf("the morning technician's 5 hours: %v to %v, want Monday 09:00 to Tuesday 10:00", got.Start, got.End)
	}
	if got := steps["brakes"]; got.Start.Before(wk(0, 14, 0)) {
		t.Errorf("the brakes step starts %v, during its technician's absence (until 14:00)", got.Start)
	}
	if len(d.Unplaced) != 1 || d.Unplaced[0].StepID != "gone" || d.Unplaced[0].Reason != workshop.UnplacedBeyond {
		t.Errorf("unplaced %+v, want the step of the technician away for good beyond the horizon", d.Unplaced)
	}
}
