package planning_test

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/planning"
	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// watchPlace is a location in UTC with the default hours (Monday to
// Friday 08:00-17:30) and a technician, for the watch's tests.
func watchPlace(t *testing.T, st *store.Store) workshop.Location {
	t.Helper()
	ctx := t.Context()
	now := workshop.MicrosOf(time.Now())
	loc := newLocation(t, st, "Watch", "UTC")
	if _, err := st.CreateTechnician(ctx, workshop.Technician{ID: workshop.NewID(workshop.PrefixTechnician), OrgID: loc.OrgID,
		LocationID: loc.ID, Name: "Tech", Skills: []string{}, WIPLimit: 2, Status: "available", CreatedAt: now, UpdatedAt: now}); err != nil {
		t.Fatal(err)
	}
	return loc
}

// watchJob adds an arrived job of one hour-long step promised at promise.
func watchJob(t *testing.T, st *store.Store, loc workshop.Location, promise time.Time) {
	t.Helper()
	now := workshop.MicrosOf(time.Now())
	j, err := st.CreateJob(t.Context(), workshop.Job{ID: workshop.NewID(workshop.PrefixJob), OrgID: loc.OrgID, LocationID: loc.ID,
		Priority: "normal", Source: "other", PromiseTime: &workshop.OffsetTime{Time: promise},
		ArrivalTime: &workshop.OffsetTime{Time: time.Now()}, CreatedAt: now, UpdatedAt: now, Steps: []workshop.Step{}}, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.CreateStep(t.Context(), store.Visibility{OrgID: loc.OrgID}, workshop.Step{ID: workshop.NewID(workshop.PrefixStep),
		JobID: j.Job.ID, Label: "Service", EstimatedDuration: 60, SchedulingMode: workshop.SchedulingModes[0], TechIDs: []string{},
		Status: workshop.StepPending, CreatedAt: now, UpdatedAt: now}); err != nil {
		t.Fatal(err)
	}
}

// fakeClock is a watch's clock, moved by the test.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}

// process is one server's watch over its own store.
type process struct {
	plans *planning.Service
	watch *planning.Watch
}

func newProcess(t *testing.T, url string, clk *fakeClock) process {
	st := storetest.Open(t, url)
	plans := planning.New(st)
	w := planning.NewWatch(plans, st, slog.New(slog.NewTextHandler(io.Discard, nil)))
	w.Now, w.Workers = clk.Now, 4
	return process{plans: plans, watch: w}
}

// planned is how many plans the processes were asked for so far.
func planned(ps ...process) int64 {
	var n int64
	for _, p := range ps {
		s := p.plans.CacheStats()
		n += s.Hits + s.Misses
	}
	return n
}

// atRiskTold counts the job.at_risk events in the outbox.
func atRiskTold(t *testing.T, st *store.Store) int {
	t.Helper()
	evs, err := st.EventsAfter(t.Context(), 0, 100000)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range evs {
		if e.Name == workshop.EventJobAtRisk {
			n++
		}
	}
	return n
}

// TestWatchLooksOnlyWhereSomethingCanChange: two processes, a fake clock.
// Every new location is looked at once between them; at rest nothing is
// planned; a change is looked at by one process, its turn told once; time
// alone brings every open location back within 15 minutes.
func TestWatchLooksOnlyWhereSomethingCanChange(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		// Next week's Wednesday, 10:00 UTC: open, after every arrival.
		start := time.Now().UTC().Truncate(24*time.Hour).AddDate(0, 0, 7).Add(10 * time.Hour)
		start = start.AddDate(0, 0, (int(time.Wednesday)-int(start.Weekday())+7)%7)
		seed := storetest.Open(t, db.URL)
		locs := make([]workshop.Location, 6)
		for i := range locs {
			locs[i] = watchPlace(t, seed)
			watchJob(t, seed, locs[i], start.Add(48*time.Hour))
		}
		clk := &fakeClock{now: start}
		a, b := newProcess(t, db.URL, clk), newProcess(t, db.URL, clk)
		both := func() {
			t.Helper()
			var wg sync.WaitGroup
			errs := make([]error, 2)
			for i, p := range []process{a, b} {
				wg.Go(func() { errs[i] = p.watch.Once(t.Context()) })
			}
			wg.Wait()
			for _, err := range errs {
				if err != nil {
					t.Fatalf("Once: %v", err)
				}
			}
		}
		both()
		if got := planned(a, b); got != int64(len(locs)) {
			t.Errorf("first look: %d plans between the processes, want %d (each new location once)", got, len(locs))
		}

		clk.Set(start.Add(5 * time.Second))
		before := planned(a, b)
		both()
		if got := planned(a, b) - before; got != 0 {
			t.Errorf("at rest: %d plans, want none", got)
		}

		watchJob(t, seed, locs[2], start.Add(-time.Hour)) // a job late from the start: a change that turns
		clk.Set(start.Add(6 * time.Second))
		before = planned(a, b)
		both()
		if got := planned(a, b) - before; got != 1 {
			t.Errorf("after a change to one location: %d plans, want 1", got)
		}
		if got := atRiskTold(t, seed); got != 1 {
			t.Errorf("job.at_risk told %d times, want once", got)
		}

		clk.Set(start.Add(workshop.PromiseRecheck + 10*time.Second))
		before = planned(a, b)
		both()
		both() // 6 locations, 8 workers: one round would do; a second must find nothing
		if got := planned(a, b) - before; got != int64(len(locs)) {
			t.Errorf("after 15 minutes of time alone: %d plans, want every location once (%d)", got, len(locs))
		}
		if got := atRiskTold(t, seed); got != 1 {
			t.Errorf("job.at_risk told %d times after the time-based looks, want still once", got)
		}
	})
}

// newLocation stores an organisation on the pro plan with one location of
// name in zone, with the default settings.
func newLocation(tb testing.TB, st *store.Store, name, zone string) workshop.Location {
	tb.Helper()
	ctx := context.Background()
	now := workshop.MicrosOf(time.Now())
	org, err := st.CreateOrg(ctx, workshop.Org{ID: workshop.NewID(workshop.PrefixOrg), Name: name, PlanTier: workshop.PlanPro,
		CreatedAt: now, UpdatedAt: now})
	if err != nil {
		tb.Fatal(err)
	}
	loc, err := st.CreateLocation(ctx, workshop.Location{ID: workshop.NewID(workshop.PrefixLocation), OrgID: org.ID, Name: name,
		Timezone: zone, CurrencyCode: "EUR", CreatedAt: now, UpdatedAt: now}, workshop.DefaultSettings())
	if err != nil {
		tb.Fatal(err)
	}
	return loc
}
