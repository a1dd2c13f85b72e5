package planning_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/planning"
	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// workshopOf seeds a location of the contract's planning size: jobs open
// jobs of steps steps each from a catalog of 8 services, techs technicians
// and bays bays with skills and services drawn from a fixed seed.
func workshopOf(tb testing.TB, st *store.Store, jobs, steps, techs, bays int) workshop.Location {
	tb.Helper()
	ctx := context.Background()
	now := workshop.MicrosOf(time.Now())
	loc := newLocation(tb, st, "Bench", "Europe/Berlin")
	rng := rand.New(rand.NewPCG(1, 2))
	skills := []string{"engine", "brakes", "tyres", "ev", "electrics", "body"}
	codes := make([]string, 8)
	for i := range codes {
		codes[i] = fmt.Sprintf("SVC%d", i)
		_, err := st.PutCatalogItem(ctx, workshop.CatalogItem{ID: workshop.NewID(workshop.PrefixCatalogItem), OrgID: loc.OrgID,
			LocationID: loc.ID, ServiceCode: codes[i], Name: codes[i], EstimatedDuration: 30 + 15*rng.IntN(8),
			RequiredSkills: []string{skills[i%len(skills)]}, IsActive: true, CreatedAt: now, UpdatedAt: now})
		if err != nil {
			tb.Fatal(err)
		}
	}
	for i := range techs {
		has := []string{skills[i%len(skills)], skills[(i+2)%len(skills)]}
		if _, err := st.CreateTechnician(ctx, workshop.Technician{ID: workshop.NewID(workshop.PrefixTechnician), OrgID: loc.OrgID,
			LocationID: loc.ID, Name: fmt.Sprintf("Tech %d", i), Skills: has, WIPLimit: 2, Status: "available", CreatedAt: now, UpdatedAt: now}); err != nil {
			tb.Fatal(err)
		}
	}
	for i := range bays {
		var services []string
		if i%3 != 0 {
			services = []string{codes[i%len(codes)], codes[(i+3)%len(codes)], codes[(i+5)%len(codes)]}
		}
		if _, err := st.CreateBay(ctx, workshop.Bay{ID: workshop.NewID(workshop.PrefixBay), OrgID: loc.OrgID, LocationID: loc.ID,
			Name: fmt.Sprintf("Bay %d", i), Equipment: []string{}, Services: services, Status: "available", CreatedAt: now, UpdatedAt: now}); err != nil {
			tb.Fatal(err)
		}
	}
	v := store.Visibility{OrgID: loc.OrgID}
	for range jobs {
		promise := workshop.OffsetTime{Time: time.Now().Add(time.Duration(2+rng.IntN(30)) * time.Hour)}
		j, err := st.CreateJob(ctx, workshop.Job{ID: workshop.NewID(workshop.PrefixJob), OrgID: loc.OrgID, LocationID: loc.ID,
			Priority: workshop.Priorities[rng.IntN(len(workshop.Priorities))], Source: "other", PromiseTime: &promise,
			ArrivalTime: &workshop.OffsetTime{Time: time.Now()}, CreatedAt: now, UpdatedAt: now, Steps: []workshop.Step{}}, false)
		if err != nil {
			tb.Fatal(err)
		}
		for k := range steps {
			code := codes[rng.IntN(len(codes))]
			if _, err := st.CreateStep(ctx, v, workshop.Step{ID: workshop.NewID(workshop.PrefixStep), JobID: j.Job.ID, Phase: k / 2,
				SchedulingMode: workshop.SchedulingModes[rng.IntN(2)], TechIDs: []string{}, Status: workshop.StepPending,
				ServiceCode: &code, CreatedAt: now, UpdatedAt: now}); err != nil {
				tb.Fatal(err)
			}
		}
	}
	return loc
}

// BenchmarkPlanCold is GET /v1/scheduler/plan's work when no plan is kept:
// the location's data read from SQLite and planned, for the contract's
// size (80 open jobs of 4 steps, 20 technicians, 12 bays; "it answers
// within 1 second"). Each iteration is a fresh service: nothing is kept.
func BenchmarkPlanCold(b *testing.B) {
	st := storetest.Open(b, storetest.SQLiteURL(b))
	loc := workshopOf(b, st, 80, 4, 20, 12)
	now := time.Now()
	b.ResetTimer()
	for b.Loop() {
		p, err := planning.New(st).Plan(b.Context(), loc.ID, now)
		if err != nil || len(p.Dispatch.Jobs) != 80 {
			b.Fatalf("plan: %v (%d jobs)", err, len(p.Dispatch.Jobs))
		}
	}
}

// BenchmarkPlanKept is the same read while the plan is kept: one read of
// the plan version.
func BenchmarkPlanKept(b *testing.B) {
	st := storetest.Open(b, storetest.SQLiteURL(b))
	loc := workshopOf(b, st, 80, 4, 20, 12)
	svc := planning.New(st)
	now := time.Now()
	b.ResetTimer()
	for b.Loop() {
		if _, err := svc.Plan(b.Context(), loc.ID, now); err != nil {
			b.Fatal(err)
		}
	}
}

// TestPlanIsKeptWhileTheVersionHolds: a second read of an unchanged
// location in the same minute is the same plan; any change to what it
// reads, on any process, makes the next read plan afresh.
func TestPlanIsKeptWhileTheVersionHolds(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		st := storetest.Open(t, db.URL)
		other := storetest.Open(t, db.URL) // another process
		loc := workshopOf(t, st, 3, 2, 2, 1)
		svc := planning.New(st)
		now := time.Now()
		first, err := svc.Plan(t.Context(), loc.ID, now)
		if err != nil {
			t.Fatal(err)
		}
		if again, _ := svc.Plan(t.Context(), loc.ID, now.Add(time.Millisecond)); again != first {
			t.Errorf("the same minute and version planned again")
		}
		if next, _ := svc.Plan(t.Context(), loc.ID, now.Add(2*time.Minute)); next == first {
			t.Errorf("a later minute was served the earlier minute's plan")
		}
		if err := other.SetSettings(t.Context(), loc.ID, workshop.DefaultSettings()); err != nil {
			t.Fatal(err)
		}
		changed, err := svc.Plan(t.Context(), loc.ID, now)
		if err != nil || changed == first || changed.Version <= first.Version {
			t.Errorf("after another process changed the settings: plan version %d (same plan %v), want a new plan past %d; %v",
				changed.Version, changed == first, first.Version, err)
		}
	})
}
