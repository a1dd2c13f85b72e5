package workshop_test

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
	_ "time/tzdata" // Europe/Berlin without depending on the host's zoneinfo

	"github.com/workshop-platform/workshop/internal/workshop"
)

var berlin = func() *time.Location {
	z, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		panic(err)
	}
	return z
}()

// at is a Berlin wall-clock time.
func at(y int, m time.Month, d, hh, mm int) time.Time {
	return time.Date(y, m, d, hh, mm, 0, 0, berlin)
}

func ptr(t time.Time) *time.Time { return &t }

// shopSettings: Mon-Fri 08:00-17:30 with a 12:00-12:30 break, Sat
// 09:00-13:00, Sun closed. Written out rather than DefaultSettings so the
// tests don't move when the defaults do.
func shopSettings() workshop.Settings {
	var s workshop.Settings
	for _, d := range []string{"mon", "tue", "wed", "thu", "fri"} {
		s.OperatingHours = append(s.OperatingHours, workshop.OpeningHours{Day: d, Open: "08:00", Close: "17:30"})
		s.Breaks = append(s.Breaks, workshop.Break{Day: d, Start: "12:00", End: "12:30"})
	}
	s.OperatingHours = append(s.OperatingHours, workshop.OpeningHours{Day: "sat", Open: "09:00", Close: "13:00"})
	return s
}

var shop = workshop.Calendar{Zone: berlin, Settings: shopSettings()}

// allDay is open 00:00-24:00 every day, so its working time is real time.
var allDay = func() workshop.Calendar {
	var s workshop.Settings
	for _, d := range []string{"mon", "tue", "wed", "thu", "fri", "sat", "sun"} {
		s.OperatingHours = append(s.OperatingHours, workshop.OpeningHours{Day: d, Open: "00:00", Close: "24:00"})
	}
	return workshop.Calendar{Zone: berlin, Settings: s}
}()

// Dates used below: 2026-03-16 is a Monday; 2026-03-29 (spring forward,
// 02:00 CET -> 03:00 CEST) and 2026-10-25 (fall back, 03:00 CEST -> 02:00
// CET) are Sundays.

func TestCalendarOpen(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		at   time.Time
		want bool
	}{
		{"Monday morning", at(2026, 3, 16, 10, 0), true},
		{"opening instant", at(2026, 3, 16, 8, 0), true},
		{"before opening", at(2026, 3, 16, 7, 59), false},
		{"break start", at(2026, 3, 16, 12, 0), false},
		{"in the break", at(2026, 3, 16, 12, 15), false},
		{"break end", at(2026, 3, 16, 12, 30), true},
		{"last minute", at(2026, 3, 16, 17, 29), true},
		{"closing instant", at(2026, 3, 16, 17, 30), false},
		{"night", at(2026, 3, 16, 23, 0), false},
		{"Saturday morning", at(2026, 3, 21, 10, 0), true},
		{"Saturday afternoon", at(2026, 3, 21, 13, 0), false},
		{"Sunday", at(2026, 3, 22, 10, 0), false},
		{"given in UTC: 07:30Z is 08:30 CET", time.Date(2026, 3, 16, 7, 30, 0, 0, time.UTC), true},
		{"given in UTC: 06:30Z is 08:30 CEST", time.Date(2026, 3, 30, 6, 30, 0, 0, time.UTC), true},
		{"given in UTC: 06:30Z is 07:30 CET", time.Date(2026, 10, 26, 6, 30, 0, 0, time.UTC), false},
	} {
		if got := shop.Open(tc.at); got != tc.want {
			t.Errorf("%s: Open(%v) = %v, want %v", tc.name, tc.at, got, tc.want)
		}
	}
}

func TestCalendarNextOpen(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		from     time.Time
		want     time.Time
		wantZone bool // the result is in the calendar's zone
	}{
		{"open: unchanged", at(2026, 3, 16, 10, 0), at(2026, 3, 16, 10, 0), true},
		{"early morning", at(2026, 3, 16, 6, 0), at(2026, 3, 16, 8, 0), true},
		{"in the break", at(2026, 3, 16, 12, 10), at(2026, 3, 16, 12, 30), true},
		{"at closing", at(2026, 3, 16, 17, 30), at(2026, 3, 17, 8, 0), true},
		{"Friday evening", at(2026, 3, 20, 18, 0), at(2026, 3, 21, 9, 0), true},
		{"Saturday after closing", at(2026, 3, 21, 13, 0), at(2026, 3, 23, 8, 0), true},
		{"Sunday", at(2026, 3, 22, 10, 0), at(2026, 3, 23, 8, 0), true},
		{"spring-forward Sunday: Monday 08:00 CEST", at(2026, 3, 29, 1, 0), time.Date(2026, 3, 30, 6, 0, 0, 0, time.UTC), true},
		{"fall-back Sunday: Monday 08:00 CET", at(2026, 10, 25, 2, 30), time.Date(2026, 10, 26, 7, 0, 0, 0, time.UTC), true},
		{"from UTC", time.Date(2026, 3, 20, 17, 0, 0, 0, time.UTC), at(2026, 3, 21, 9, 0), true},
	} {
		got := shop.NextOpen(tc.from)
		if !got.Equal(tc.want) {
			t.Errorf("%s: NextOpen(%v) = %v, want %v", tc.name, tc.from, got, tc.want)
		}
		if tc.wantZone && got.Location() != berlin {
			t.Errorf("%s: NextOpen(%v) is in %v, want %v", tc.name, tc.from, got.Location(), berlin)
		}
	}
}

func TestCalendarAddWork(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		cal  workshop.Calendar
		from time.Time
		d    time.Duration
		want time.Time
	}{
		{"inside hours", shop, at(2026, 3, 16, 9, 0), 2 * time.Hour, at(2026, 3, 16, 11, 0)},
		{"fills the morning: ends at the break, not after it", shop, at(2026, 3, 16, 10, 0), 2 * time.Hour, at(2026, 3, 16, 12, 0)},
		{"across the break", shop, at(2026, 3, 16, 11, 0), 2 * time.Hour, at(2026, 3, 16, 13, 30)},
		{"from inside the break", shop, at(2026, 3, 16, 12, 10), time.Hour, at(2026, 3, 16, 13, 30)},
		{"across a night", shop, at(2026, 3, 16, 16, 30), 2 * time.Hour, at(2026, 3, 17, 9, 0)},
		{"fills the day: ends at closing", shop, at(2026, 3, 16, 16, 30), time.Hour, at(2026, 3, 16, 17, 30)},
		{"from before opening", shop, at(2026, 3, 16, 5, 0), time.Hour, at(2026, 3, 16, 9, 0)},
		{"Friday 17:00 + 2h lands on Saturday", shop, at(2026, 3, 20, 17, 0), 2 * time.Hour, at(2026, 3, 21, 10, 30)},
		{"Saturday 12:30 + 2h lands on Monday", shop, at(2026, 3, 21, 12, 30), 2 * time.Hour, at(2026, 3, 23, 9, 30)},
		{"from Sunday", shop, at(2026, 3, 22, 10, 0), time.Hour, at(2026, 3, 23, 9, 0)},
		{"a working week: Mon 08:00 + 45h is Fri 17:30", shop, at(2026, 3, 16, 8, 0), 45 * time.Hour, at(2026, 3, 20, 17, 30)},
		{"a working week and Saturday", shop, at(2026, 3, 16, 8, 0), 49 * time.Hour, at(2026, 3, 21, 13, 0)},
		{"two weeks", shop, at(2026, 3, 16, 8, 0), 98*time.Hour + time.Hour, at(2026, 3, 30, 9, 0)},
		{"spring-forward weekend: Monday 09:00 CEST", shop, at(2026, 3, 28, 12, 0), 2 * time.Hour, time.Date(2026, 3, 30, 7, 0, 0, 0, time.UTC)},
		{"spring-forward weekend, Friday to Monday", shop, at(2026, 3, 27, 17, 0), 6 * time.Hour, at(2026, 3, 30, 9, 30)},
		{"fall-back weekend: Monday 09:00 CET", shop, at(2026, 10, 24, 12, 0), 2 * time.Hour, time.Date(2026, 10, 26, 8, 0, 0, 0, time.UTC)},
		{"fall-back weekend, Friday to Monday", shop, at(2026, 10, 23, 17, 0), 6 * time.Hour, at(2026, 10, 26, 9, 30)},
		{"zero duration: unchanged", shop, at(2026, 3, 22, 10, 0), 0, at(2026, 3, 22, 10, 0)},
		{"negative duration: unchanged", shop, at(2026, 3, 16, 10, 0), -time.Hour, at(2026, 3, 16, 10, 0)},
		{"24h calendar over spring forward: real time", allDay, at(2026, 3, 28, 12, 0), 24 * time.Hour, at(2026, 3, 29, 13, 0)},
		{"24h calendar over fall back: real time", allDay, at(2026, 10, 24, 12, 0), 24 * time.Hour, at(2026, 10, 25, 11, 0)},
	} {
		if got := tc.cal.AddWork(tc.from, tc.d); !got.Equal(tc.want) {
			t.Errorf("%s: AddWork(%v, %v) = %v, want %v", tc.name, tc.from, tc.d, got, tc.want)
		}
	}
}

func TestCalendarWorkBetween(t *testing.T) {
	t.Parallel()
	// Open 01:00-04:00 on Sundays only: the night of a DST change.
	var night workshop.Settings
	night.OperatingHours = []workshop.OpeningHours{{Day: "sun", Open: "01:00", Close: "04:00"}}
	nightCal := workshop.Calendar{Zone: berlin, Settings: night}
	for _, tc := range []struct {
		name string
		cal  workshop.Calendar
		a, b time.Time
		want time.Duration
	}{
		{"inside hours", shop, at(2026, 3, 16, 9, 0), at(2026, 3, 16, 11, 0), 2 * time.Hour},
		{"across the break", shop, at(2026, 3, 16, 11, 0), at(2026, 3, 16, 13, 30), 2 * time.Hour},
		{"across a night", shop, at(2026, 3, 16, 16, 30), at(2026, 3, 17, 9, 0), 2 * time.Hour},
		{"closed time only", shop, at(2026, 3, 16, 18, 0), at(2026, 3, 17, 7, 0), 0},
		{"Friday 17:00 to Monday 09:00", shop, at(2026, 3, 20, 17, 0), at(2026, 3, 23, 9, 0), 5*time.Hour + 30*time.Minute},
		{"same over spring forward", shop, at(2026, 3, 27, 17, 0), at(2026, 3, 30, 9, 0), 5*time.Hour + 30*time.Minute},
		{"same over fall back", shop, at(2026, 10, 23, 17, 0), at(2026, 10, 26, 9, 0), 5*time.Hour + 30*time.Minute},
		{"a calendar week", shop, at(2026, 3, 16, 0, 0), at(2026, 3, 23, 0, 0), 49 * time.Hour},
		{"b before a", shop, at(2026, 3, 16, 11, 0), at(2026, 3, 16, 9, 0), 0},
		{"a == b", shop, at(2026, 3, 16, 11, 0), at(2026, 3, 16, 11, 0), 0},
		{"24h calendar: spring-forward Sunday has 23h", allDay, at(2026, 3, 29, 0, 0), at(2026, 3, 30, 0, 0), 23 * time.Hour},
		{"24h calendar: fall-back Sunday has 25h", allDay, at(2026, 10, 25, 0, 0), at(2026, 10, 26, 0, 0), 25 * time.Hour},
		{"01:00-04:00 on spring forward is 2h", nightCal, at(2026, 3, 28, 0, 0), at(2026, 3, 30, 0, 0), 2 * time.Hour},
		{"01:00-04:00 on fall back is 4h", nightCal, at(2026, 10, 24, 0, 0), at(2026, 10, 26, 0, 0), 4 * time.Hour},
		{"01:00-04:00 on an ordinary Sunday is 3h", nightCal, at(2026, 3, 21, 0, 0), at(2026, 3, 23, 0, 0), 3 * time.Hour},
	} {
		if got := tc.cal.WorkBetween(tc.a, tc.b); got != tc.want {
			t.Errorf("%s: WorkBetween(%v, %v) = %v, want %v", tc.name, tc.a, tc.b, got, tc.want)
		}
	}
}

// A calendar without usable working time treats all time as working time.
func TestCalendarWithoutHours(t *testing.T) {
	t.Parallel()
	garbled := workshop.Settings{OperatingHours: []workshop.OpeningHours{
		{Day: "mon", Open: "25:00", Close: "26:00"},
		{Day: "funday", Open: "08:00", Close: "17:00"},
		{Day: "tue", Open: "17:00", Close: "08:00"},
		{Day: "wed", Open: "8h", Close: "17:00"},
	}}
	allBreak := workshop.Settings{
		OperatingHours: []workshop.OpeningHours{{Day: "mon", Open: "08:00", Close: "17:00"}},
		Breaks:         []workshop.Break{{Day: "mon", Start: "07:00", End: "18:00"}},
	}
	sunday := at(2026, 3, 22, 3, 0)
	for _, tc := range []struct {
		name string
		cal  workshop.Calendar
	}{
		{"no settings", workshop.Calendar{Zone: berlin}},
		{"no zone either", workshop.Calendar{}},
		{"hours that do not parse", workshop.Calendar{Zone: berlin, Settings: garbled}},
		{"breaks cover the hours", workshop.Calendar{Zone: berlin, Settings: allBreak}},
	} {
		if !tc.cal.Open(sunday) {
			t.Errorf("%s: Open(%v) = false, want true", tc.name, sunday)
		}
		if got := tc.cal.NextOpen(sunday); !got.Equal(sunday) {
			t.Errorf("%s: NextOpen(%v) = %v, want it unchanged", tc.name, sunday, got)
		}
		if got, want := tc.cal.AddWork(sunday, 30*time.Hour), sunday.Add(30*time.Hour); !got.Equal(want) {
			t.Errorf("%s: AddWork(%v, 30h) = %v, want %v", tc.name, sunday, got, want)
		}
		if got := tc.cal.WorkBetween(sunday, sunday.Add(30*time.Hour)); got != 30*time.Hour {
			t.Errorf("%s: WorkBetween = %v, want 30h", tc.name, got)
		}
	}
}

// Lenient settings: spellings, several hours a day, 24:00.
func TestCalendarSettingsParsing(t *testing.T) {
	t.Parallel()
	s := workshop.Settings{
		OperatingHours: []workshop.OpeningHours{
			{Day: " MON ", Open: "8:00", Close: "10:00"},
			{Day: "mon", Open: "09:00", Close: "12:00"}, // overlaps the first: merged
			{Day: "mon", Open: "14:00", Close: "24:00"},
			{Day: "tue", Open: "10:00", Close: "11:00"},
		},
		Breaks: []workshop.Break{{Day: "mon", Start: "09:30", End: "09:45"}, {Day: "bad", Start: "10:00", End: "11:00"}},
	}
	cal := workshop.Calendar{Zone: berlin, Settings: s}
	for _, tc := range []struct {
		name string
		a, b time.Time
		want time.Duration
	}{
		{"Monday", at(2026, 3, 16, 0, 0), at(2026, 3, 17, 0, 0), 4*time.Hour - 15*time.Minute + 10*time.Hour},
		{"Monday to Tuesday 10:30", at(2026, 3, 16, 23, 0), at(2026, 3, 17, 10, 30), 90 * time.Minute},
	} {
		if got := cal.WorkBetween(tc.a, tc.b); got != tc.want {
			t.Errorf("%s: WorkBetween = %v, want %v", tc.name, got, tc.want)
		}
	}
	if got, want := cal.AddWork(at(2026, 3, 16, 23, 0), 2*time.Hour), at(2026, 3, 17, 11, 0); !got.Equal(want) {
		t.Errorf("AddWork(Mon 23:00, 2h) = %v, want %v (1h Mon, 1h Tue)", got, want)
	}
	if got, want := cal.AddWork(at(2026, 3, 16, 23, 0), 150*time.Minute), at(2026, 3, 23, 8, 30); !got.Equal(want) {
		t.Errorf("AddWork(Mon 23:00, 2h30) = %v, want %v (1h Mon, 1h Tue, next Mon 08:00 +30m)", got, want)
	}
}

func TestSettingsBayBuffer(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		min  int
		want time.Duration
	}{{10, 10 * time.Minute}, {0, 0}, {-5, 0}} {
		if got := (workshop.Settings{BayBufferMinutes: tc.min}).BayBuffer(); got != tc.want {
			t.Errorf("BayBuffer(%d) = %v, want %v", tc.min, got, tc.want)
		}
	}
}

func TestPlanStepOf(t *testing.T) {
	t.Parallel()
	bay := "bay_1"
	started := workshop.MicrosOf(at(2026, 3, 16, 9, 0))
	got := workshop.PlanStepOf(workshop.Step{
		ID: "stp_1", Phase: 2, SchedulingMode: "parallel", EstimatedDuration: 90,
		TechIDs: []string{"tec_1"}, BayID: &bay, Status: workshop.StepInProgress, StartedAt: &started,
	})
	if got.ID != "stp_1" || got.Phase != 2 || got.Mode != "parallel" || got.Duration != 90*time.Minute ||
		!slices.Equal(got.TechIDs, []string{"tec_1"}) || got.BayID != "bay_1" || got.Status != workshop.StepInProgress ||
		got.StartedAt == nil || !got.StartedAt.Equal(at(2026, 3, 16, 9, 0)) || got.CompletedAt != nil {
		t.Errorf("PlanStepOf = %+v", got)
	}
	if got := workshop.PlanStepOf(workshop.Step{ID: "stp_2"}); got.BayID != "" || got.StartedAt != nil {
		t.Errorf("PlanStepOf without bay or start = %+v, want BayID \"\" and no StartedAt", got)
	}
}

// step is a pending step for the tables below.
func step(id string, phase int, mode string, d time.Duration, techs ...string) workshop.PlanStep {
	return workshop.PlanStep{ID: id, Phase: phase, Mode: mode, Duration: d, TechIDs: techs, Status: workshop.StepPending}
}

func inBay(s workshop.PlanStep, bay string) workshop.PlanStep { s.BayID = bay; return s }

func started(s workshop.PlanStep, at time.Time) workshop.PlanStep {
	s.Status, s.StartedAt = workshop.StepInProgress, &at
	return s
}

func completed(s workshop.PlanStep, from, to time.Time) workshop.PlanStep {
	s.Status, s.StartedAt, s.CompletedAt = workshop.StepCompleted, &from, &to
	return s
}

type win struct{ start, end, projected time.Time }

func TestPlanJob(t *testing.T) {
	t.Parallel()
	const seq, par = "sequential", "parallel"
	h := time.Hour
	mon := func(hh, mm int) time.Time { return at(2026, 3, 16, hh, mm) }
	for _, tc := range []struct {
		name     string
		start    time.Time
		now      time.Time // zero: start
		steps    []workshop.PlanStep
		busy     map[string][]workshop.Interval
		buffer   time.Duration
		want     []win // projected zero: the planned end
		wantJob  [2]time.Time
		wantProj time.Time // zero: the job's planned end
	}{
		{
			name:    "sequential steps run one after another",
			start:   mon(8, 0),
			steps:   []workshop.PlanStep{step("a", 1, seq, h), step("b", 1, seq, 2*h)},
			want:    []win{{start: mon(8, 0), end: mon(9, 0)}, {start: mon(9, 0), end: mon(11, 0)}},
			wantJob: [2]time.Time{mon(8, 0), mon(11, 0)},
		},
		{
			name:    "parallel steps run side by side",
			start:   mon(8, 0),
			steps:   []workshop.PlanStep{step("a", 1, par, h), step("b", 1, par, 2*h)},
			want:    []win{{start: mon(8, 0), end: mon(9, 0)}, {start: mon(8, 0), end: mon(10, 0)}},
			wantJob: [2]time.Time{mon(8, 0), mon(10, 0)},
		},
		{
			name:  "a sequential chain beside a parallel step",
			start: mon(8, 0),
			steps: []workshop.PlanStep{step("a", 1, seq, h), step("p", 1, par, 3*h), step("b", 1, seq, h)},
			want: []win{
				{start: mon(8, 0), end: mon(9, 0)}, {start: mon(8, 0), end: mon(11, 0)}, {start: mon(9, 0), end: mon(10, 0)},
			},
			wantJob: [2]time.Time{mon(8, 0), mon(11, 0)},
		},
		{
			name:  "two phases, given out of order: phase 2 waits for the end of phase 1",
			start: mon(7, 0), // before opening: laid out from 08:00
			steps: []workshop.PlanStep{step("c", 2, seq, h), step("a", 1, par, h), step("b", 1, par, 2*h)},
			want: []win{
				{start: mon(10, 0), end: mon(11, 0)}, {start: mon(8, 0), end: mon(9, 0)}, {start: mon(8, 0), end: mon(10, 0)},
			},
			wantJob: [2]time.Time{mon(8, 0), mon(11, 0)},
		},
		{
			name:  "a technician's other work pushes a step (unsorted busy list, closed-time busy ignored)",
			start: mon(8, 0),
			steps: []workshop.PlanStep{step("a", 1, seq, 2*h, "t1"), step("b", 1, par, h, "t2")},
			busy: map[string][]workshop.Interval{
				"t1": {{mon(11, 0), mon(11, 30)}, {mon(8, 30), mon(10, 0)}, {mon(18, 0), mon(20, 0)}},
				"t3": {{mon(0, 0), mon(23, 0)}}, // not on this job
			},
			// 08:00 hits 08:30-10:00; 10:00-12:00 hits 11:00-11:30; 11:30 +
			// 30m, break, 12:30 + 1h30.
			want:    []win{{start: mon(11, 30), end: mon(14, 0)}, {start: mon(8, 0), end: mon(9, 0)}},
			wantJob: [2]time.Time{mon(8, 0), mon(14, 0)},
		},
		{
			name:  "a busy interval that ends in closed time pushes to the next opening",
			start: mon(16, 0),
			steps: []workshop.PlanStep{step("a", 1, seq, h, "t1")},
			busy:  map[string][]workshop.Interval{"t1": {{mon(16, 30), mon(19, 0)}}},
			want:  []win{{start: at(2026, 3, 17, 8, 0), end: at(2026, 3, 17, 9, 0)}},
			wantJob: [2]time.Time{
				at(2026, 3, 17, 8, 0), at(2026, 3, 17, 9, 0),
			},
		},
		{
			// b waits for t1; c, for t2 alone, takes the hour before b.
			name:  "one technician on two parallel steps does them one after the other",
			start: mon(8, 0),
			steps: []workshop.PlanStep{step("a", 1, par, h, "t1"), step("b", 1, par, 2*h, "t1", "t2"), step("c", 1, par, h, "t2")},
			want: []win{
				{start: mon(8, 0), end: mon(9, 0)}, {start: mon(9, 0), end: mon(11, 0)}, {start: mon(8, 0), end: mon(9, 0)},
			},
			wantJob: [2]time.Time{mon(8, 0), mon(11, 0)},
		},
		{
			name:    "one technician, two parallel steps, the second longer: given order kept",
			start:   mon(8, 0),
			steps:   []workshop.PlanStep{step("a", 1, par, 2*h, "t1"), step("b", 1, par, h, "t1")},
			want:    []win{{start: mon(8, 0), end: mon(10, 0)}, {start: mon(10, 0), end: mon(11, 0)}},
			wantJob: [2]time.Time{mon(8, 0), mon(11, 0)},
		},
		{
			name:  "bay buffer between two steps in one bay",
			start: mon(8, 0),
			steps: []workshop.PlanStep{
				inBay(step("a", 1, par, h), "bay1"), inBay(step("b", 1, par, h), "bay1"),
				inBay(step("c", 1, par, h), "bay2"), inBay(step("d", 2, seq, h), "bay1"),
			},
			buffer: 10 * time.Minute,
			want: []win{
				{start: mon(8, 0), end: mon(9, 0)}, {start: mon(9, 10), end: mon(10, 10)},
				{start: mon(8, 0), end: mon(9, 0)}, {start: mon(10, 20), end: mon(11, 20)},
			},
			wantJob: [2]time.Time{mon(8, 0), mon(11, 20)},
		},
		{
			name:   "the bay buffer counts working time: across the night",
			start:  mon(16, 20),
			steps:  []workshop.PlanStep{inBay(step("a", 1, seq, h), "bay1"), inBay(step("b", 2, seq, h), "bay1")},
			buffer: 15 * time.Minute,
			want: []win{
				{start: mon(16, 20), end: mon(17, 20)}, {start: at(2026, 3, 17, 8, 5), end: at(2026, 3, 17, 9, 5)},
			},
			wantJob: [2]time.Time{mon(16, 20), at(2026, 3, 17, 9, 5)},
		},
		{
			name:  "a job that spans a night and a weekend",
			start: at(2026, 3, 19, 16, 0), // Thursday
			steps: []workshop.PlanStep{
				step("diag", 1, seq, 2*h), step("repair", 1, seq, 7*h), step("paint", 2, seq, 5*h), step("wash", 3, seq, h),
			},
			want: []win{
				{start: at(2026, 3, 19, 16, 0), end: at(2026, 3, 20, 8, 30)},  // 1h30 Thu, 30m Fri
				{start: at(2026, 3, 20, 8, 30), end: at(2026, 3, 20, 16, 0)},  // 3h30, break, 3h30
				{start: at(2026, 3, 20, 16, 0), end: at(2026, 3, 21, 12, 30)}, // 1h30 Fri, 3h30 Sat
				{start: at(2026, 3, 21, 12, 30), end: at(2026, 3, 23, 8, 30)}, // 30m Sat, 30m Mon
			},
			wantJob: [2]time.Time{at(2026, 3, 19, 16, 0), at(2026, 3, 23, 8, 30)},
		},
		{
			name:    "arrival on a Sunday: laid out from Monday 08:00",
			start:   at(2026, 3, 22, 11, 0),
			steps:   []workshop.PlanStep{step("a", 1, seq, h)},
			want:    []win{{start: at(2026, 3, 23, 8, 0), end: at(2026, 3, 23, 9, 0)}},
			wantJob: [2]time.Time{at(2026, 3, 23, 8, 0), at(2026, 3, 23, 9, 0)},
		},
		{
			name:  "in progress: actual start in the past, remaining time",
			start: mon(8, 0),
			now:   mon(10, 0),
			steps: []workshop.PlanStep{started(step("a", 1, seq, 3*h), mon(8, 30)), step("b", 1, seq, h)},
			want: []win{
				{start: mon(8, 0), end: mon(11, 0), projected: mon(11, 30)},
				{start: mon(11, 0), end: mon(12, 0), projected: mon(13, 0)}, // 11:30-12:00, 12:30-13:00
			},
			wantJob:  [2]time.Time{mon(8, 0), mon(12, 0)},
			wantProj: mon(13, 0),
		},
		{
			name:  "in progress and overrunning: ends now at the earliest",
			start: mon(8, 0),
			now:   mon(10, 0),
			steps: []workshop.PlanStep{started(step("a", 1, seq, h), mon(8, 0)), step("b", 2, seq, h)},
			want: []win{
				{start: mon(8, 0), end: mon(9, 0), projected: mon(10, 0)},
				{start: mon(9, 0), end: mon(10, 0), projected: mon(11, 0)},
			},
			wantJob:  [2]time.Time{mon(8, 0), mon(10, 0)},
			wantProj: mon(11, 0),
		},
		{
			name:  "in progress over a weekend; the pending step's technician waits for it",
			start: at(2026, 3, 20, 17, 0),
			now:   at(2026, 3, 23, 8, 15),
			steps: []workshop.PlanStep{
				started(step("a", 1, seq, 6*h, "t1"), at(2026, 3, 20, 17, 0)), // 30m Fri, 4h Sat, 1h30 Mon
				step("b", 1, par, h, "t1"),
			},
			want: []win{
				{start: at(2026, 3, 20, 17, 0), end: at(2026, 3, 23, 9, 30), projected: at(2026, 3, 23, 9, 30)},
				{start: at(2026, 3, 23, 9, 30), end: at(2026, 3, 23, 10, 30), projected: at(2026, 3, 23, 10, 30)},
			},
			wantJob:  [2]time.Time{at(2026, 3, 20, 17, 0), at(2026, 3, 23, 10, 30)},
			wantProj: at(2026, 3, 23, 10, 30),
		},
		{
			name:  "pending work at night: projected from the next opening",
			start: mon(8, 0),
			now:   mon(20, 0),
			steps: []workshop.PlanStep{completed(step("a", 1, seq, h), mon(8, 0), mon(9, 0)), step("b", 1, seq, h, "t1")},
			busy:  map[string][]workshop.Interval{"t1": {{at(2026, 3, 17, 8, 0), at(2026, 3, 17, 8, 45)}}},
			want: []win{
				{start: mon(8, 0), end: mon(9, 0), projected: mon(9, 0)},
				{start: mon(9, 0), end: mon(10, 0), projected: at(2026, 3, 17, 9, 45)},
			},
			wantJob:  [2]time.Time{mon(8, 0), mon(10, 0)},
			wantProj: at(2026, 3, 17, 9, 45),
		},
		{
			name:  "completed job: the projection is the last actual end, even before now",
			start: mon(8, 0),
			now:   at(2026, 3, 17, 15, 0),
			steps: []workshop.PlanStep{
				completed(step("a", 1, seq, h), mon(8, 5), mon(9, 10)),
				completed(step("b", 2, par, 2*h), mon(9, 15), mon(11, 0)),
			},
			want: []win{
				{start: mon(8, 0), end: mon(9, 0), projected: mon(9, 10)},
				{start: mon(9, 0), end: mon(11, 0), projected: mon(11, 0)},
			},
			wantJob:  [2]time.Time{mon(8, 0), mon(11, 0)},
			wantProj: mon(11, 0),
		},
	} {
		now := tc.now
		if now.IsZero() {
			now = tc.start
		}
		got := workshop.PlanJob(workshop.PlanInput{
			Calendar: shop, Start: tc.start, Now: now, Steps: tc.steps, TechBusy: tc.busy, BayBuffer: tc.buffer,
		})
		if len(got.Steps) != len(tc.want) {
			t.Fatalf("%s: %d step windows, want %d", tc.name, len(got.Steps), len(tc.want))
		}
		for i, w := range tc.want {
			g := got.Steps[i]
			if w.projected.IsZero() {
				w.projected = w.end
			}
			if g.ID != tc.steps[i].ID || !g.PlannedStart.Equal(w.start) || !g.PlannedEnd.Equal(w.end) || !g.ProjectedEnd.Equal(w.projected) {
				t.Errorf("%s: step %d = %s planned %v - %v projected %v, want %s planned %v - %v projected %v", tc.name, i,
					g.ID, g.PlannedStart, g.PlannedEnd, g.ProjectedEnd, tc.steps[i].ID, w.start, w.end, w.projected)
			}
		}
		wantProj := tc.wantProj
		if wantProj.IsZero() {
			wantProj = tc.wantJob[1]
		}
		if !got.PlannedStart.Equal(tc.wantJob[0]) || !got.PlannedEnd.Equal(tc.wantJob[1]) || !got.ProjectedCompletion.Equal(wantProj) {
			t.Errorf("%s: job planned %v - %v projected %v, want %v - %v projected %v", tc.name,
				got.PlannedStart, got.PlannedEnd, got.ProjectedCompletion, tc.wantJob[0], tc.wantJob[1], wantProj)
		}
	}
}

// The actual times of the job and its steps.
func TestPlanJobActuals(t *testing.T) {
	t.Parallel()
	mon := func(hh, mm int) time.Time { return at(2026, 3, 16, hh, mm) }
	a := completed(step("a", 1, "sequential", time.Hour), mon(8, 5), mon(9, 10))
	b := started(step("b", 1, "sequential", time.Hour), mon(9, 20))
	c := step("c", 2, "sequential", time.Hour)
	for _, tc := range []struct {
		name           string
		steps          []workshop.PlanStep
		wantStart      *time.Time
		wantEnd        *time.Time
		wantStepActual [][2]*time.Time
	}{
		{"nothing started", []workshop.PlanStep{c}, nil, nil, [][2]*time.Time{{nil, nil}}},
		{"under way", []workshop.PlanStep{b, a, c}, ptr(mon(8, 5)), nil,
			[][2]*time.Time{{ptr(mon(9, 20)), nil}, {ptr(mon(8, 5)), ptr(mon(9, 10))}, {nil, nil}}},
		{"all completed", []workshop.PlanStep{a, completed(c, mon(9, 15), mon(10, 40))}, ptr(mon(8, 5)), ptr(mon(10, 40)),
			[][2]*time.Time{{ptr(mon(8, 5)), ptr(mon(9, 10))}, {ptr(mon(9, 15)), ptr(mon(10, 40))}}},
	} {
		got := workshop.PlanJob(workshop.PlanInput{Calendar: shop, Start: mon(8, 0), Now: mon(11, 0), Steps: tc.steps})
		if !eqPtr(got.ActualStart, tc.wantStart) || !eqPtr(got.ActualEnd, tc.wantEnd) {
			t.Errorf("%s: job actual %v - %v, want %v - %v", tc.name, got.ActualStart, got.ActualEnd, tc.wantStart, tc.wantEnd)
		}
		for i, w := range tc.wantStepActual {
			if g := got.Steps[i]; !eqPtr(g.ActualStart, w[0]) || !eqPtr(g.ActualEnd, w[1]) {
				t.Errorf("%s: step %s actual %v - %v, want %v - %v", tc.name, g.ID, g.ActualStart, g.ActualEnd, w[0], w[1])
			}
		}
	}
	// The plan does not alias its input.
	steps := []workshop.PlanStep{a}
	got := workshop.PlanJob(workshop.PlanInput{Calendar: shop, Start: mon(8, 0), Now: mon(11, 0), Steps: steps})
	*got.Steps[0].ActualStart = time.Time{}
	if !steps[0].StartedAt.Equal(mon(8, 5)) {
		t.Errorf("changing the plan's ActualStart changed the input's StartedAt to %v", steps[0].StartedAt)
	}
}

func eqPtr(a, b *time.Time) bool { return (a == nil) == (b == nil) && (a == nil || a.Equal(*b)) }

func TestPlanJobNoSteps(t *testing.T) {
	t.Parallel()
	start := at(2026, 3, 21, 15, 0) // Saturday, closed
	for _, tc := range []struct {
		name     string
		now      time.Time
		wantProj time.Time
	}{
		{"now after start", at(2026, 3, 21, 16, 0), at(2026, 3, 21, 16, 0)},
		{"now before start", at(2026, 3, 21, 14, 0), start},
	} {
		got := workshop.PlanJob(workshop.PlanInput{Calendar: shop, Start: start, Now: tc.now})
		if len(got.Steps) != 0 || !got.PlannedStart.Equal(start) || !got.PlannedEnd.Equal(start) ||
			got.ActualStart != nil || got.ActualEnd != nil || !got.ProjectedCompletion.Equal(tc.wantProj) {
			t.Errorf("%s: PlanJob without steps = %+v, want planned %v - %v, no actuals, projected %v",
				tc.name, got, start, start, tc.wantProj)
		}
	}
}

// Without hours the whole clock is working time; the plan still comes out.
func TestPlanJobWithoutHours(t *testing.T) {
	t.Parallel()
	start := at(2026, 3, 22, 23, 0)
	got := workshop.PlanJob(workshop.PlanInput{
		Calendar: workshop.Calendar{Zone: berlin}, Start: start, Now: start,
		Steps: []workshop.PlanStep{step("a", 1, "sequential", 2*time.Hour)},
	})
	if want := start.Add(2 * time.Hour); !got.PlannedEnd.Equal(want) || !got.ProjectedCompletion.Equal(want) {
		t.Errorf("PlanJob on a calendar without hours ends %v (projected %v), want %v", got.PlannedEnd, got.ProjectedCompletion, want)
	}
}

func TestPromiseOf(t *testing.T) {
	t.Parallel()
	mon := func(hh, mm int) time.Time { return at(2026, 3, 16, hh, mm) }
	for _, tc := range []struct {
		name               string
		promise, projected time.Time
		finished           bool
		wantSlack          int
		wantRisk           bool
	}{
		{"early", mon(16, 0), mon(11, 0), false, 270, false}, // 1h, break, 3h30
		{"early over a weekend", at(2026, 3, 23, 9, 0), at(2026, 3, 20, 17, 0), false, 330, false},
		{"at risk: 15 working minutes", mon(16, 0), mon(15, 45), false, 15, true},
		{"29m59s counts as 29", mon(16, 0), mon(15, 30).Add(time.Second), false, 29, true},
		{"30 minutes is enough", mon(16, 0), mon(15, 30), false, 30, false},
		{"at risk across the break: 10 working minutes", mon(12, 35), mon(11, 55), false, 10, true},
		{"finished with little slack: not at risk", mon(16, 0), mon(15, 45), true, 15, false},
		{"exactly on time, not finished", mon(16, 0), mon(16, 0), false, 0, true},
		{"exactly on time, finished", mon(16, 0), mon(16, 0), true, 0, false},
		{"late", mon(16, 0), at(2026, 3, 17, 9, 0), false, -150, true},
		{"late and finished", mon(16, 0), at(2026, 3, 17, 9, 0), true, -150, true},
		{"late by seconds: -1", mon(16, 0), mon(16, 0).Add(10 * time.Second), true, -1, true},
		{"late only in closed time", mon(17, 30), mon(19, 0), true, 0, true},
	} {
		got := workshop.PromiseOf(shop, tc.promise, tc.projected, tc.finished)
		if got.SlackMinutes != tc.wantSlack || got.AtRisk != tc.wantRisk || !got.ProjectedCompletion.Equal(tc.projected) {
			t.Errorf("%s: PromiseOf(%v, %v, %v) = %+v, want slack %d atRisk %v", tc.name, tc.promise, tc.projected,
				tc.finished, got, tc.wantSlack, tc.wantRisk)
		}
	}
}

// WorkBetween undoes AddWork, and AddWork lands in or at the end of working
// time, on random instants through 2026 (both DST changes included).
func TestCalendarRoundTrip(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	year := at(2026, 1, 1, 0, 0)
	for range 2000 {
		from := year.Add(time.Duration(r.Int64N(int64(365 * 24 * time.Hour))))
		d := time.Duration(r.Int64N(int64(80 * time.Hour)))
		for _, cal := range []workshop.Calendar{shop, allDay} {
			end := cal.AddWork(from, d)
			if got := cal.WorkBetween(from, end); got != d {
				t.Fatalf("WorkBetween(%v, AddWork(%v, %v) = %v) = %v, want %v", from, from, d, end, got, d)
			}
			if d > 0 && !cal.Open(end.Add(-time.Nanosecond)) {
				t.Fatalf("AddWork(%v, %v) = %v, which does not end working time", from, d, end)
			}
			if n := cal.NextOpen(from); n.Before(from) || !cal.Open(n) || cal.WorkBetween(from, n) != 0 {
				t.Fatalf("NextOpen(%v) = %v: not the next working instant", from, n)
			}
		}
	}
}

func TestPlanJobProperties(t *testing.T) {
	t.Parallel()
	for seed := range uint64(300) {
		checkPlan(t, seed)
	}
}

func FuzzPlanJob(f *testing.F) {
	for _, s := range []uint64{0, 1, 42, 1 << 40} {
		f.Add(s)
	}
	f.Fuzz(checkPlan)
}

// checkPlan plans a random job (from seed) and checks the invariants: every
// window is well formed and holds its duration of working time, phases do
// not overlap, a sequential step follows the one before it, a technician is
// never on two things at once, the bay buffer is kept, and the projection is
// never before now unless every step is completed.
func checkPlan(t *testing.T, seed uint64) {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	cals := []workshop.Calendar{shop, allDay, {Zone: berlin}, {Settings: shopSettings()}}
	cal := cals[r.IntN(len(cals))]
	pick := func(xs ...string) string { return xs[r.IntN(len(xs))] }
	start := at(2026, 1, 1, 0, 0).Add(time.Duration(r.Int64N(int64(365 * 24 * time.Hour))))
	now := start.Add(time.Duration(r.Int64N(int64(10 * 24 * time.Hour))))
	in := workshop.PlanInput{Calendar: cal, Start: start, Now: now, BayBuffer: time.Duration(r.IntN(4)*5) * time.Minute,
		TechBusy: map[string][]workshop.Interval{}}
	for _, id := range []string{"t1", "t2", "t3"} {
		for range r.IntN(4) {
			s := start.Add(time.Duration(r.Int64N(int64(5 * 24 * time.Hour))))
			in.TechBusy[id] = append(in.TechBusy[id], workshop.Interval{Start: s, End: s.Add(time.Duration(r.IntN(300)) * time.Minute)})
		}
	}
	for i := range r.IntN(7) {
		s := workshop.PlanStep{
			ID: string(rune('a' + i)), Phase: r.IntN(3) + 1, Mode: pick("sequential", "parallel"),
			Duration: time.Duration(r.IntN(600)) * time.Minute, BayID: pick("", "", "b1", "b2"), Status: workshop.StepPending,
		}
		for range r.IntN(3) {
			s.TechIDs = append(s.TechIDs, pick("t1", "t2", "t3"))
		}
		switch r.IntN(3) {
		case 1: // in progress, started before now
			st := now.Add(-time.Duration(r.Int64N(int64(3*24*time.Hour) + 1)))
			s.Status, s.StartedAt = workshop.StepInProgress, &st
		case 2: // completed before now
			en := now.Add(-time.Duration(r.Int64N(int64(2*24*time.Hour) + 1)))
			st := en.Add(-time.Duration(r.IntN(600)) * time.Minute)
			s.Status, s.StartedAt, s.CompletedAt = workshop.StepCompleted, &st, &en
		}
		in.Steps = append(in.Steps, s)
	}
	p := workshop.PlanJob(in)
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("seed %d: "+format+"\ninput %+v\nplan %+v", append(append([]any{seed}, args...), in, p)...)
	}
	if len(p.Steps) != len(in.Steps) {
		fail("%d windows for %d steps", len(p.Steps), len(in.Steps))
	}
	first := cal.NextOpen(start)
	allDone := true
	for i, w := range p.Steps {
		s := in.Steps[i]
		allDone = allDone && s.Status == workshop.StepCompleted
		if w.ID != s.ID || w.PlannedEnd.Before(w.PlannedStart) {
			fail("step %d: window %v - %v", i, w.PlannedStart, w.PlannedEnd)
		}
		if w.PlannedStart.Before(first) || w.PlannedStart.Before(p.PlannedStart) || w.PlannedEnd.After(p.PlannedEnd) {
			fail("step %s planned %v - %v outside the job's %v - %v (first opening %v)", s.ID, w.PlannedStart, w.PlannedEnd, p.PlannedStart, p.PlannedEnd, first)
		}
		if got := cal.WorkBetween(w.PlannedStart, w.PlannedEnd); got != s.Duration {
			fail("step %s: %v of working time planned, want %v", s.ID, got, s.Duration)
		}
		switch s.Status {
		case workshop.StepCompleted:
			if !w.ProjectedEnd.Equal(*s.CompletedAt) {
				fail("completed step %s projected %v, want its end %v", s.ID, w.ProjectedEnd, *s.CompletedAt)
			}
		case workshop.StepInProgress:
			if w.ProjectedEnd.Before(now) || w.ProjectedEnd.Before(cal.AddWork(*s.StartedAt, s.Duration)) {
				fail("in-progress step %s projected %v, before now %v or its start + duration", s.ID, w.ProjectedEnd, now)
			}
		default:
			if w.ProjectedEnd.Before(cal.NextOpen(now)) {
				fail("pending step %s projected %v, before the next opening after now", s.ID, w.ProjectedEnd)
			}
		}
		if w.ProjectedEnd.After(p.ProjectedCompletion) {
			fail("step %s projected %v after the job's %v", s.ID, w.ProjectedEnd, p.ProjectedCompletion)
		}
		for j := range i {
			o, v := in.Steps[j], p.Steps[j]
			a, b := workshop.Interval{Start: w.PlannedStart, End: w.PlannedEnd}, workshop.Interval{Start: v.PlannedStart, End: v.PlannedEnd}
			switch {
			case o.Phase < s.Phase && b.End.After(a.Start), s.Phase < o.Phase && a.End.After(b.Start):
				fail("phases overlap: %s (phase %d) %v and %s (phase %d) %v", s.ID, s.Phase, a, o.ID, o.Phase, b)
			case o.Phase == s.Phase && o.Mode != "parallel" && s.Mode != "parallel" && a.Start.Before(b.End):
				fail("sequential %s %v starts before %s %v ends", s.ID, a, o.ID, b)
			}
			if shareTech(s, o) && workOverlap(cal, a, b) {
				fail("%s %v and %s %v share a technician and overlap", s.ID, a, o.ID, b)
			}
			if s.BayID != "" && s.BayID == o.BayID && a.Start.Before(cal.AddWork(b.End, in.BayBuffer)) && b.Start.Before(cal.AddWork(a.End, in.BayBuffer)) {
				fail("%s %v and %s %v in bay %s without the %v buffer", s.ID, a, o.ID, b, s.BayID, in.BayBuffer)
			}
		}
		for _, id := range s.TechIDs {
			for _, b := range in.TechBusy[id] {
				if workOverlap(cal, workshop.Interval{Start: w.PlannedStart, End: w.PlannedEnd}, b) {
					fail("step %s planned %v - %v while %s is busy %v", s.ID, w.PlannedStart, w.PlannedEnd, id, b)
				}
			}
		}
	}
	if !allDone && p.ProjectedCompletion.Before(now) {
		fail("projected completion %v before now %v with work left", p.ProjectedCompletion, now)
	}
	if len(in.Steps) > 0 && allDone != (p.ActualEnd != nil) {
		fail("actual end %v with all steps completed = %v", p.ActualEnd, allDone)
	}
}

func shareTech(a, b workshop.PlanStep) bool {
	for _, id := range a.TechIDs {
		if slices.Contains(b.TechIDs, id) {
			return true
		}
	}
	return false
}

// workOverlap tells whether a and b share working time.
func workOverlap(cal workshop.Calendar, a, b workshop.Interval) bool {
	lo, hi := a.Start, a.End
	if b.Start.After(lo) {
		lo = b.Start
	}
	if b.End.Before(hi) {
		hi = b.End
	}
	return hi.After(lo) && cal.WorkBetween(lo, hi) > 0
}
