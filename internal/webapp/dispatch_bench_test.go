package webapp

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// busyShop stores a location of the contract's planning size: jobs open
// jobs of steps steps each (catalog services needing skills, plates,
// promises), techs technicians and bays bays; and an advisor of it.
func busyShop(tb testing.TB, st *store.Store, jobs, steps, techs, bays int) (workshop.Location, *store.SignedIn) {
	tb.Helper()
	ctx := context.Background()
	now := workshop.MicrosOf(time.Now())
	org, err := st.CreateOrg(ctx, workshop.Org{ID: workshop.NewID(workshop.PrefixOrg), Name: "Busy", PlanTier: workshop.PlanPro,
		CreatedAt: now, UpdatedAt: now})
	if err != nil {
		tb.Fatal(err)
	}
	loc, err := st.CreateLocation(ctx, workshop.Location{ID: workshop.NewID(workshop.PrefixLocation), OrgID: org.ID, Name: "Busy",
		Timezone: "Europe/Berlin", CurrencyCode: "EUR", CreatedAt: now, UpdatedAt: now}, workshop.DefaultSettings())
	if err != nil {
		tb.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	skills := []string{"engine", "brakes", "tyres", "ev", "electrics", "body"}
	codes := make([]string, 8)
	for i := range codes {
		codes[i] = fmt.Sprintf("SVC%d", i)
		if _, err := st.PutCatalogItem(ctx, workshop.CatalogItem{ID: workshop.NewID(workshop.PrefixCatalogItem), OrgID: org.ID,
			LocationID: loc.ID, ServiceCode: codes[i], Name: "Service " + codes[i], EstimatedDuration: 30 + 15*rng.IntN(8),
			RequiredSkills: []string{skills[i%len(skills)]}, IsActive: true, CreatedAt: now, UpdatedAt: now}); err != nil {
			tb.Fatal(err)
		}
	}
	for i := range techs {
		if _, err := st.CreateTechnician(ctx, workshop.Technician{ID: workshop.NewID(workshop.PrefixTechnician), OrgID: org.ID,
			LocationID: loc.ID, Name: fmt.Sprintf("Technician %d", i), Skills: []string{skills[i%len(skills)], skills[(i+2)%len(skills)]},
			WIPLimit: 2, Status: "available", CreatedAt: now, UpdatedAt: now}); err != nil {
			tb.Fatal(err)
		}
	}
	for i := range bays {
		if _, err := st.CreateBay(ctx, workshop.Bay{ID: workshop.NewID(workshop.PrefixBay), OrgID: org.ID, LocationID: loc.ID,
			Name: fmt.Sprintf("Bay %d", i), Equipment: []string{}, Services: []string{}, Status: "available", CreatedAt: now, UpdatedAt: now}); err != nil {
			tb.Fatal(err)
		}
	}
	v := store.Visibility{OrgID: org.ID}
	for n := range jobs {
		promise := workshop.OffsetTime{Time: time.Now().Add(time.Duration(2+rng.IntN(30)) * time.Hour)}
		plate := fmt.Sprintf("B-WS %d", 1000+n)
		j, err := st.CreateJob(ctx, workshop.Job{ID: workshop.NewID(workshop.PrefixJob), OrgID: org.ID, LocationID: loc.ID,
			VehiclePlate: &plate, Priority: workshop.Priorities[rng.IntN(len(workshop.Priorities))], Source: "other",
			PromiseTime: &promise, ArrivalTime: &workshop.OffsetTime{Time: time.Now()}, CreatedAt: now, UpdatedAt: now,
			Steps: []workshop.Step{}}, false)
		if err != nil {
			tb.Fatal(err)
		}
		for k := range steps {
			code := codes[rng.IntN(len(codes))]
			if _, err := st.CreateStep(ctx, v, workshop.Step{ID: workshop.NewID(workshop.PrefixStep), JobID: j.Job.ID, Phase: k / 2,
				SchedulingMode: "sequential", TechIDs: []string{}, Status: workshop.StepPending, ServiceCode: &code,
				CreatedAt: now, UpdatedAt: now}); err != nil {
				tb.Fatal(err)
			}
		}
	}
	si := &store.SignedIn{Member: store.Member{Org: org, User: workshop.User{ID: "usr_bench", OrgID: org.ID,
		Email: "advisor@busy.example", Role: workshop.RoleAdvisor}}}
	return loc, si
}

// BenchmarkDispatchPage is the dispatch page's server time (the handler,
// from the request to the page written; the session read before it is
// not counted) for 80 open jobs of 4 steps, 20 technicians and 12 bays,
// with the plan kept: the figure issue 31 asks for (p99 < 50 ms). It
// reports the p50 and p99 of its iterations.
func BenchmarkDispatchPage(b *testing.B) {
	// kept: one minute, the plan computed once is kept (the contract's
	// "when the plan is cached"); replan: each page a minute later, so
	// each one plans again (issue 31: within the planner's own p99 plus
	// 50 ms).
	for _, mode := range []string{"kept", "replan"} {
		b.Run(mode, func(b *testing.B) {
			st := storetest.Open(b, storetest.SQLiteURL(b))
			loc, si := busyShop(b, st, 80, 4, 20, 12)
			now := time.Now()
			a, err := New(st, Config{Now: func() time.Time { return now }})
			if err != nil {
				b.Fatal(err)
			}
			get := func() {
				r := httptest.NewRequest("GET", dispatchPath(loc.ID), nil)
				r.SetPathValue("locationID", loc.ID)
				w := httptest.NewRecorder()
				if err := a.dispatchPage(w, r, si); err != nil || w.Code != http.StatusOK {
					b.Fatalf("dispatch page: %d %v", w.Code, err)
				}
			}
			get() // the plan is computed once, then kept
			var took []time.Duration
			b.ResetTimer()
			for b.Loop() {
				if mode == "replan" {
					now = now.Add(time.Minute)
				}
				start := time.Now()
				get()
				took = append(took, time.Since(start))
			}
			slices.Sort(took)
			b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(took[len(took)*99/100].Microseconds())/1000, "p99-ms")
		})
	}
}

// benchFigures times run over the loop and reports its p50 and p99.
func benchFigures(b *testing.B, run func()) {
	b.Helper()
	var took []time.Duration
	b.ResetTimer()
	for b.Loop() {
		start := time.Now()
		run()
		took = append(took, time.Since(start))
	}
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(took[len(took)*99/100].Microseconds())/1000, "p99-ms")
}

// BenchmarkDispatchWeek is the dispatch week's server time (issue 42: p99
// < 100 ms) for 80 open jobs of 4 steps, 20 technicians and 12 bays, the
// plan kept.
func BenchmarkDispatchWeek(b *testing.B) {
	st := storetest.Open(b, storetest.SQLiteURL(b))
	loc, si := busyShop(b, st, 80, 4, 20, 12)
	now := time.Now()
	a, err := New(st, Config{Now: func() time.Time { return now }})
	if err != nil {
		b.Fatal(err)
	}
	get := func() {
		r := httptest.NewRequest("GET", dispatchPath(loc.ID)+"/week", nil)
		r.SetPathValue("locationID", loc.ID)
		w := httptest.NewRecorder()
		if err := a.dispatchWeek(w, r, si); err != nil || w.Code != http.StatusOK {
			b.Fatalf("dispatch week: %d %v", w.Code, err)
		}
	}
	get()
	benchFigures(b, get)
}

// BenchmarkDispatchPreview is what a drag's preview costs the server
// (issue 42: shown within 300 ms of the drop point settling) at 80 x 4:
// the move's preview answer for a pending step moved to another
// technician an hour later.
func BenchmarkDispatchPreview(b *testing.B) {
	st := storetest.Open(b, storetest.SQLiteURL(b))
	loc, si := busyShop(b, st, 80, 4, 20, 12)
	now := time.Now()
	a, err := New(st, Config{Now: func() time.Time { return now }})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	plan, err := a.plans.Plan(ctx, loc.ID, now)
	if err != nil {
		b.Fatal(err)
	}
	data, err := st.PlanData(ctx, loc.ID)
	if err != nil {
		b.Fatal(err)
	}
	ps := plan.Dispatch.Steps[len(plan.Dispatch.Steps)/2]
	other := data.Techs[0].ID
	if slices.Contains(ps.TechIDs, other) {
		other = data.Techs[1].ID
	}
	zone, _ := time.LoadLocation(loc.Timezone)
	form := url.Values{"techIds": {other}, "bayId": {ps.BayID}, "action": {"move"},
		"start": {ps.Start.Add(time.Hour).In(zone).Format(startLayout)}}
	post := func() {
		r := httptest.NewRequest("POST", dispatchPath(loc.ID)+"/steps/"+ps.StepID+"/preview", strings.NewReader(form.Encode()))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		r.SetPathValue("locationID", loc.ID)
		r.SetPathValue("stepID", ps.StepID)
		w := httptest.NewRecorder()
		if err := a.movePreview(w, r, si); err != nil || w.Code != http.StatusOK {
			b.Fatalf("preview: %d %v %s", w.Code, err, w.Body)
		}
	}
	post()
	benchFigures(b, post)
}
