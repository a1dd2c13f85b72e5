package workshop_test

import (
	"slices"
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/workshop"
)

func TestDurationStatsOf(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		samples  []int
		p50, p80 int // 0: null
	}{
		{name: "none", samples: nil},
		{name: "four are too few", samples: []int{60, 70, 80, 90}},
		{name: "five: ranks 3 and 4", samples: []int{90, 60, 80, 70, 100}, p50: 80, p80: 90},
		{name: "six: ranks 3 and 5", samples: []int{10, 20, 30, 40, 50, 60}, p50: 30, p80: 50},
		{name: "ten: ranks 5 and 8", samples: []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, p50: 5, p80: 8},
		{name: "eleven: ranks 6 and 9", samples: []int{11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1}, p50: 6, p80: 9},
		{name: "all equal", samples: []int{75, 75, 75, 75, 75}, p50: 75, p80: 75},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			in := slices.Clone(tc.samples)
			got := workshop.DurationStatsOf(in)
			if got.Samples != len(tc.samples) {
				t.Errorf("samples = %d, want %d", got.Samples, len(tc.samples))
			}
			if g, w := orZero(got.P50), tc.p50; g != w || (got.P50 == nil) != (w == 0) {
				t.Errorf("p50 = %v, want %d (0: null)", got.P50, w)
			}
			if g, w := orZero(got.P80), tc.p80; g != w || (got.P80 == nil) != (w == 0) {
				t.Errorf("p80 = %v, want %d (0: null)", got.P80, w)
			}
			if !slices.Equal(in, tc.samples) {
				t.Errorf("samples changed to %v, want %v", in, tc.samples)
			}
		})
	}
}

func orZero(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

func TestStepWorkMinutes(t *testing.T) {
	t.Parallel()
	sec := func(tm time.Time, s int) time.Time { return tm.Add(time.Duration(s) * time.Second) }
	for _, tc := range []struct {
		name       string
		start, end time.Time
		want       int
	}{
		{"inside one period", at(2026, 3, 16, 9, 0), at(2026, 3, 16, 10, 15), 75},
		{"across the lunch break", at(2026, 3, 16, 11, 30), at(2026, 3, 16, 13, 0), 60},
		{"across the night", at(2026, 3, 16, 17, 0), at(2026, 3, 17, 8, 30), 60},
		{"a started minute counts whole", at(2026, 3, 16, 9, 0), sec(at(2026, 3, 16, 9, 10), 1), 11},
		{"partly outside hours counts the working part", at(2026, 3, 16, 7, 0), at(2026, 3, 16, 9, 0), 60},
		{"entirely on a Sunday: wall clock", at(2026, 3, 22, 10, 0), at(2026, 3, 22, 11, 40), 100},
		{"entirely in the lunch break: wall clock", at(2026, 3, 16, 12, 5), sec(at(2026, 3, 16, 12, 20), 30), 16},
		{"entirely over the night: wall clock", at(2026, 3, 16, 18, 0), at(2026, 3, 17, 7, 0), 780},
		{"end equals start", at(2026, 3, 16, 9, 0), at(2026, 3, 16, 9, 0), 0},
		{"end before start", at(2026, 3, 16, 9, 0), at(2026, 3, 16, 8, 0), 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := workshop.StepWorkMinutes(shop, tc.start, tc.end); got != tc.want {
				t.Errorf("StepWorkMinutes(%v, %v) = %d, want %d", tc.start, tc.end, got, tc.want)
			}
		})
	}
}

func TestInDurationHistory(t *testing.T) {
	t.Parallel()
	now := at(2026, 6, 1, 12, 0)
	for _, tc := range []struct {
		end  time.Time
		want bool
	}{
		{now.Add(-time.Minute), true},
		{now.Add(-workshop.DurationHistory + time.Microsecond), true},
		{now.Add(-workshop.DurationHistory), false},
		{now.Add(-100 * 24 * time.Hour), false},
	} {
		if got := workshop.InDurationHistory(tc.end, now); got != tc.want {
			t.Errorf("InDurationHistory(%v, %v) = %v, want %v", tc.end, now, got, tc.want)
		}
	}
}

func TestPlanningMinutes(t *testing.T) {
	t.Parallel()
	learned := workshop.DurationStatsOf([]int{50, 60, 75, 80, 95}) // p50 75, p80 80
	few := workshop.DurationStatsOf([]int{200, 200, 200, 200})
	for _, tc := range []struct {
		name       string
		mode       string
		step, item int
		stats      workshop.DurationStats
		want       int
	}{
		{"estimate mode keeps the estimate", workshop.PlanWithEstimate, 60, 60, learned, 60},
		{"unknown mode keeps the estimate", "", 60, 60, learned, 60},
		{"p50", workshop.PlanWithP50, 60, 60, learned, 75},
		{"p80", workshop.PlanWithP80, 60, 60, learned, 80},
		{"a person's own estimate wins", workshop.PlanWithP80, 45, 60, learned, 45},
		{"too few samples", workshop.PlanWithP80, 60, 60, few, 60},
	} {
		if got := workshop.PlanningMinutes(tc.mode, tc.step, tc.item, tc.stats); got != tc.want {
			t.Errorf("%s: PlanningMinutes(%q, %d, %d, %+v) = %d, want %d", tc.name, tc.mode, tc.step, tc.item, tc.stats, got, tc.want)
		}
	}
}
