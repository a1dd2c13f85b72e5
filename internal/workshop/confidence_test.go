package workshop_test

import (
	"math"
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/workshop"
)

func TestNormalQuantileAndSpread(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ p, z float64 }{{0.5, 0}, {0.8, 0.8416}, {0.9, 1.2816}, {0.99, 2.3263}} {
		if got := workshop.NormalQuantile(c.p); math.Abs(got-c.z) > 5e-5 {
			t.Errorf("NormalQuantile(%v) = %v, want %v", c.p, got, c.z)
		}
	}
	for _, c := range []struct {
		name string
		st   workshop.DurationStats
		want time.Duration
	}{
		{"no percentiles", workshop.DurationStats{Samples: 3}, 0},
		{"p80 - p50 of 50 minutes: 59.41 minutes", workshop.DurationStats{Samples: 9, P50: ref(60), P80: ref(110)}, 3564638783269},
	} {
		if got := workshop.DurationSpread(c.st); got != c.want {
			t.Errorf("%s: spread %v, want %v", c.name, got, c.want)
		}
	}
	// z = 1.2816, sqrt(30² + 40²) = 50: 64.08, rounded up to 65 minutes.
	if got := workshop.ConfidenceMargin(0.9, []time.Duration{30 * time.Minute, 40 * time.Minute, 0}); got != 65*time.Minute {
		t.Errorf("margin %v, want 65m", got)
	}
	if got := workshop.ConfidenceMargin(0.9, nil); got != 0 {
		t.Errorf("margin of nothing %v, want 0", got)
	}
}

// TestQuoteConfidenceMargin: a confident quote adds, to its last step's
// end in working time, the margin of its own steps' spreads and of those
// planned before them on their technicians and bays, and no other.
func TestQuoteConfidenceMargin(t *testing.T) {
	t.Parallel()
	in := day(func(in *workshop.DispatchInput) {
		in.Techs = []workshop.DispatchTech{{ID: "ana", Skills: []string{"oil"}}, {ID: "ben"}}
		in.Jobs = []workshop.DispatchJob{
			arrived("j1", monday, dstep("ahead", 120, needs("OIL", "oil"), func(s *workshop.DispatchStep) { s.Spread = 30 * time.Minute })),
			arrived("j2", monday, dstep("elsewhere", 60, func(s *workshop.DispatchStep) { s.TechIDs, s.Spread = []string{"ben"}, time.Hour })),
		}
	})
	d, _ := plan(t, in)
	steps := []workshop.QuoteStep{{ServiceCode: "OIL", Duration: time.Hour, RequiredSkills: []string{"oil"}, Spread: 40 * time.Minute}}
	q := workshop.QuoteAvailability(in, d, monday, steps, 0.9)
	// OIL after "ahead" on ana, 10:00-11:00; margin z x 50 = 65 minutes
	// (ben's step is on no resource of the quote's).
	if len(q.Steps) != 1 || !q.Steps[0].End.Equal(wk(0, 11, 0)) || q.Margin != 65*time.Minute || !q.EarliestCompletion.Equal(wk(0, 12, 35)) {
		t.Errorf("quote %+v, margin %v; want OIL to 11:00 and done at 12:35 (65 minutes of working time, the lunch break spanned)", q, q.Margin)
	}
	if plain := workshop.QuoteAvailability(in, d, monday, steps, 0); plain.Margin != 0 || !plain.EarliestCompletion.Equal(wk(0, 11, 0)) {
		t.Errorf("without confidence: %+v, want no margin", plain)
	}
}
