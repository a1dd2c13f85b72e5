package dispatchgen_test

import (
	"fmt"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/workshop"
	"github.com/workshop-platform/workshop/internal/workshop/dispatchgen"
)

// TestCalendarFiguresReport prints, over 40 generated workshops of 80 jobs
// of 4 steps, 20 technicians with hours and two absences and 12 bays with
// a maintenance window, the time of the plan, of the days to offer a
// booking of two services for 14 days around it, and of the capacity of 7
// days from it (WORKSHOP_PLAN_REPORT=1 go test -run
// TestCalendarFiguresReport -v ./internal/workshop/dispatchgen). It
// measures; it asserts nothing of time.
func TestCalendarFiguresReport(t *testing.T) {
	if os.Getenv("WORKSHOP_PLAN_REPORT") == "" {
		t.Skip("a report, not a test: set WORKSHOP_PLAN_REPORT=1 to print it")
	}
	const instances = 40
	var plans, offers, capacities []time.Duration
	steps := []workshop.QuoteStep{{ServiceCode: "SVC01", Duration: 45 * time.Minute}, {ServiceCode: "SVC02", Duration: 60 * time.Minute}}
	for seed := range uint64(instances) {
		in := dispatchgen.Generate(1000+seed, dispatchgen.Contract80x4Calendars)
		began := time.Now()
		d := workshop.PlanDispatch(in)
		plans = append(plans, time.Since(began))
		today := workshop.Today(in.Now, in.Calendar.Zone)

		began = time.Now()
		days := workshop.OfferDays(in, d, today, 14, steps, 0.9)
		offers = append(offers, time.Since(began))
		if len(days) != 14 {
			t.Errorf("seed %d: %d days offered, want 14", seed, len(days))
		}

		began = time.Now()
		workshop.Capacity(in, d, today, 7)
		capacities = append(capacities, time.Since(began))
	}
	for _, f := range []struct {
		name  string
		times []time.Duration
	}{{"plan 80x4 with calendars", plans}, {"days to offer, 14 days", offers}, {"capacity, 7 days", capacities}} {
		slices.Sort(f.times)
		ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
		fmt.Printf("%-26s p50 %7.1f ms  p99 %7.1f ms  max %7.1f ms\n", f.name, ms(f.times[len(f.times)/2]),
			ms(f.times[len(f.times)*99/100]), ms(f.times[len(f.times)-1]))
	}
}
