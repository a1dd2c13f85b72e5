package operator_test

import (
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/operator"
	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// TestDemoDayKeepsToWorkingHours seeds the demo at four hours of a week and
// checks that its day is one a workshop could have had: every arrival,
// step start and finish and clock-in lies in the location's working time
// before now, and every promise in working time after now. Seeded at night
// with wall-clock offsets, the demo promised cars for 22:26 in a workshop
// that closed at 17:30, and every one of them showed at risk.
func TestDemoDayKeepsToWorkingHours(t *testing.T) {
	t.Parallel()
	berlin, err := workshop.LoadZone("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	for _, now := range []time.Time{
		time.Date(2026, 11, 26, 10, 30, 0, 0, berlin), // Thursday morning, open
		time.Date(2026, 11, 26, 21, 26, 0, 0, berlin), // Thursday night
		time.Date(2026, 11, 23, 6, 0, 0, 0, berlin),   // Monday before opening
		time.Date(2026, 11, 29, 15, 0, 0, 0, berlin),  // Sunday
	} {
		t.Run(now.Format("Mon 15:04"), func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			st := storetest.Open(t, storetest.SQLiteURL(t))
			op := operator.New(st)
			op.Now = func() time.Time { return now }
			out, err := op.Demo(ctx)
			if err != nil {
				t.Fatalf("Demo: %v", err)
			}
			loc := out.LocationIDs[0] // Berlin
			settings, err := st.Settings(ctx, loc)
			if err != nil {
				t.Fatal(err)
			}
			cal := workshop.NewCalendar(berlin, settings)
			// inHours: t is working time or the end of a period (work that
			// fills a period ends at its close).
			inHours := func(t time.Time) bool { return cal.Open(t) || cal.Open(t.Add(-time.Nanosecond)) }
			past := func(what string, at time.Time) {
				t.Helper()
				if at.After(now) || !inHours(at) {
					t.Errorf("%s at %s: want working time before %s", what, at.In(berlin).Format("Mon 15:04"), now.Format("Mon 15:04"))
				}
			}
			v := store.Visibility{OrgID: out.OrgID, LocationID: loc}
			jobs, err := st.Jobs(ctx, store.JobFilter{Visibility: v}, workshop.PageRequest{Limit: 50})
			if err != nil || len(jobs.Data) != 8 {
				t.Fatalf("jobs: %d, %v; want the 8 of Berlin", len(jobs.Data), err)
			}
			for _, listed := range jobs.Data {
				j, err := st.Job(ctx, v, listed.ID)
				if err != nil {
					t.Fatal(err)
				}
				if j.ArrivalTime != nil {
					past(*j.VehiclePlate+" arrived", j.ArrivalTime.Time)
				}
				if p := j.PromiseTime; p != nil && (!p.After(now) || !inHours(p.Time)) {
					t.Errorf("%s promised for %s: want working time after %s", *j.VehiclePlate, p.In(berlin).Format("Mon 15:04"), now.Format("Mon 15:04"))
				}
				for _, s := range j.Steps {
					if s.StartedAt != nil {
						past(s.Label+" started", s.StartedAt.Time())
					}
					if s.CompletedAt != nil {
						past(s.Label+" completed", s.CompletedAt.Time())
					}
				}
			}
			att, err := st.AttendanceRecords(ctx, store.AttendanceFilter{Visibility: v}, workshop.PageRequest{Limit: 50})
			if err != nil || len(att.Data) == 0 {
				t.Fatalf("attendance: %d records, %v", len(att.Data), err)
			}
			for _, a := range att.Data {
				past("a clock-in", a.ClockIn.Time)
			}
		})
	}
}
