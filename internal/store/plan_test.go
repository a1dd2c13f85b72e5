package store_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

func (e *jobEnv) planVersion(t *testing.T, locationID string) int64 {
	t.Helper()
	v, err := e.st.PlanVersion(t.Context(), locationID)
	if err != nil {
		t.Fatalf("PlanVersion: %v", err)
	}
	return v
}

func (e *jobEnv) catalogItem(t *testing.T, locationID, code string, skills []string, active bool) workshop.CatalogItem {
	t.Helper()
	now := e.now()
	it := workshop.CatalogItem{ID: workshop.NewID(workshop.PrefixCatalogItem), OrgID: e.org.ID, LocationID: locationID, ServiceCode: code,
		Name: "Service " + code, EstimatedDuration: 45, RequiredSkills: skills, IsActive: active, CreatedAt: now, UpdatedAt: now}
	put, err := e.st.PutCatalogItem(t.Context(), it)
	if err != nil {
		t.Fatalf("PutCatalogItem(%s): %v", code, err)
	}
	return put.Item
}

// TestPlanVersionMovesWithEveryChangeAPlanReads: each kind of change to
// what a location's plan is computed from moves its plan version (the
// triggers of migration 00009), and a change in another location does not.
func TestPlanVersionMovesWithEveryChangeAPlanReads(t *testing.T) {
	t.Parallel()
	storetest.EachGrouping(t, func(t *testing.T, db storetest.Database) {
		e := newJobEnv(t, db)
		other := e.location(t, "Queens", "America/New_York")
		var job workshop.Job
		var step workshop.Step
		var tech workshop.Technician
		var bay workshop.Bay
		changes := []struct {
			name   string
			change func(t *testing.T)
		}{
			{"job created", func(t *testing.T) { job = e.createJob(t, e.loc.ID) }},
			{"step created", func(t *testing.T) { step = e.createStep(t, job.ID, "Oil") }},
			{"step started", func(t *testing.T) { step = e.setStepStatus(t, step, workshop.StepInProgress) }},
			{"technician created", func(t *testing.T) { tech = e.technician(t, e.loc.ID, 2) }},
			{"technician status", func(t *testing.T) {
				e.tick()
				var err error
				tech, err = e.st.PatchTechnicianStatus(t.Context(), e.v, tech.ID, tech.UpdatedAt, "unavailable", e.now())
				if err != nil {
					t.Fatal(err)
				}
			}},
			{"bay created", func(t *testing.T) { bay = e.bay(t, e.loc.ID) }},
			{"bay status", func(t *testing.T) {
				e.tick()
				var err error
				bay, err = e.st.PatchBayStatus(t.Context(), e.v, bay.ID, bay.UpdatedAt, "maintenance", e.now())
				if err != nil {
					t.Fatal(err)
				}
			}},
			{"catalog item", func(t *testing.T) { e.catalogItem(t, e.loc.ID, "OIL", []string{"oil"}, true) }},
			{"settings", func(t *testing.T) {
				if err := e.st.SetSettings(t.Context(), e.loc.ID, workshop.Settings{BayBufferMinutes: 5}); err != nil {
					t.Fatal(err)
				}
			}},
			{"technician deleted", func(t *testing.T) {
				if err := e.st.DeleteTechnician(t.Context(), tech.ID); err != nil {
					t.Fatal(err)
				}
			}},
		}
		for _, c := range changes {
			before, otherBefore := e.planVersion(t, e.loc.ID), e.planVersion(t, other.ID)
			c.change(t)
			if after := e.planVersion(t, e.loc.ID); after <= before {
				t.Errorf("%s: plan version %d -> %d, want it moved", c.name, before, after)
			}
			if after := e.planVersion(t, other.ID); after != otherBefore {
				t.Errorf("%s: the other location's plan version %d -> %d, want it unmoved", c.name, otherBefore, after)
			}
		}
	})
}

// TestPlanDataReadsTheOpenWork: the plan reads the open jobs (not
// delivered, cancelled or ready, with a step not completed) with every
// step, service codes and the catalog's skills.
func TestPlanDataReadsTheOpenWork(t *testing.T) {
	t.Parallel()
	storetest.EachGrouping(t, func(t *testing.T, db storetest.Database) {
		e := newJobEnv(t, db)
		e.catalogItem(t, e.loc.ID, "BRAKES", []string{"brakes"}, true)
		tech := e.technician(t, e.loc.ID, 2)
		open := e.createJob(t, e.loc.ID)
		done := e.createStep(t, open.ID, "Inspect")
		done = e.setStepStatus(t, e.setStepStatus(t, done, workshop.StepInProgress), workshop.StepCompleted)
		e.tick()
		fromCatalog, err := e.st.CreateStep(t.Context(), e.v, func() workshop.Step {
			st := e.newStep(open.ID, "")
			st.EstimatedDuration, st.ServiceCode = 0, refOf("BRAKES")
			return st
		}())
		if err != nil {
			t.Fatalf("CreateStep(BRAKES): %v", err)
		}
		if fromCatalog.Label != "Service BRAKES" || fromCatalog.EstimatedDuration != 45 || *fromCatalog.ServiceCode != "BRAKES" {
			t.Errorf("step from the catalog = label %q, %d min, code %v; want the item's name and duration", fromCatalog.Label,
				fromCatalog.EstimatedDuration, fromCatalog.ServiceCode)
		}
		ready := e.createJob(t, e.loc.ID)
		r := e.createStep(t, ready.ID, "Wash")
		e.setStepStatus(t, e.setStepStatus(t, r, workshop.StepInProgress), workshop.StepCompleted)
		delivered := e.createJob(t, e.loc.ID)
		e.createStep(t, delivered.ID, "Tyres")
		if _, err := e.st.DeliverJob(t.Context(), e.v, delivered.ID, e.now()); err != nil {
			t.Fatal(err)
		}
		e.createJob(t, e.loc.ID) // no steps: nothing to plan

		d, err := e.st.PlanData(t.Context(), e.loc.ID)
		if err != nil {
			t.Fatalf("PlanData: %v", err)
		}
		if d.Version != e.planVersion(t, e.loc.ID) || d.Timezone != "Europe/Berlin" {
			t.Errorf("PlanData version %d zone %q, want %d Europe/Berlin", d.Version, d.Timezone, e.planVersion(t, e.loc.ID))
		}
		if len(d.Jobs) != 1 || d.Jobs[0].ID != open.ID {
			t.Fatalf("PlanData jobs = %d (%v), want only the open job %s", len(d.Jobs), jobIDs(d.Jobs), open.ID)
		}
		var ids []string
		for _, st := range d.Jobs[0].Steps {
			ids = append(ids, st.ID)
		}
		if want := []string{done.ID, fromCatalog.ID}; !slices.Equal(ids, want) {
			t.Errorf("open job's steps = %v, want %v (every step, in order)", ids, want)
		}
		if got := d.Skills["BRAKES"]; !slices.Equal(got, []string{"brakes"}) {
			t.Errorf("skills of BRAKES = %v, want [brakes]", got)
		}
		if len(d.Techs) != 1 || d.Techs[0].ID != tech.ID {
			t.Errorf("technicians = %+v, want %s", d.Techs, tech.ID)
		}
	})
}

// TestCreateStepServiceCode: a serviceCode names an active item of the
// job's location; without one, label and duration are required.
func TestCreateStepServiceCode(t *testing.T) {
	t.Parallel()
	storetest.EachGrouping(t, func(t *testing.T, db storetest.Database) {
		e := newJobEnv(t, db)
		other := e.location(t, "Queens", "America/New_York")
		e.catalogItem(t, e.loc.ID, "OLD", nil, false)
		e.catalogItem(t, other.ID, "ELSEWHERE", nil, true)
		job := e.createJob(t, e.loc.ID)
		for _, tc := range []struct {
			name, code, label string
			minutes           int
			field             string
		}{
			{"unknown code", "NOPE", "", 0, "serviceCode"},
			{"inactive item", "OLD", "x", 10, "serviceCode"},
			{"another location's item", "ELSEWHERE", "", 0, "serviceCode"},
			{"free text without label", "", "", 10, "label"},
			{"free text without duration", "", "Wash", 0, "estimatedDuration"},
		} {
			st := e.newStep(job.ID, tc.label)
			st.EstimatedDuration = tc.minutes
			if tc.code != "" {
				st.ServiceCode = refOf(tc.code)
			}
			_, err := e.st.CreateStep(t.Context(), e.v, st)
			wantInvalid(t, err, tc.field)
		}
		e.wantEvents(t, "refused steps", "job.created")
	})
}

// TestAssignSteps: applying a plan writes technicians and bay into pending
// unassigned steps only, each with step.updated, refuses a plan whose
// version moved, and is blocked by a day close.
func TestAssignSteps(t *testing.T) {
	t.Parallel()
	storetest.EachGrouping(t, func(t *testing.T, db storetest.Database) {
		e := newJobEnv(t, db)
		tech, bay := e.technician(t, e.loc.ID, 2), e.bay(t, e.loc.ID)
		job := e.createJob(t, e.loc.ID)
		free := e.createStep(t, job.ID, "Free")
		started := e.setStepStatus(t, e.createStep(t, job.ID, "Started"), workshop.StepInProgress)
		assigned := e.patchStep(t, e.createStep(t, job.ID, "Assigned"), store.StepPatch{TechIDs: &[]string{tech.ID}})
		e.events(t)
		as := []store.StepAssignment{
			{StepID: free.ID, TechIDs: []string{tech.ID}, BayID: bay.ID},
			{StepID: started.ID, TechIDs: []string{tech.ID}, BayID: bay.ID},
			{StepID: assigned.ID, BayID: bay.ID},
			{StepID: "stp_missing", TechIDs: []string{tech.ID}},
		}
		if _, err := e.st.AssignSteps(t.Context(), e.v, e.loc.ID, e.planVersion(t, e.loc.ID)-1, as, e.now()); err != store.ErrPlanMoved {
			t.Errorf("AssignSteps with an old version = %v, want ErrPlanMoved", err)
		}
		e.tick()
		got, err := e.st.AssignSteps(t.Context(), e.v, e.loc.ID, e.planVersion(t, e.loc.ID), as, e.now())
		if err != nil {
			t.Fatalf("AssignSteps: %v", err)
		}
		if len(got) != 1 || got[0].ID != free.ID || !slices.Equal(got[0].TechIDs, []string{tech.ID}) || got[0].BayID == nil ||
			*got[0].BayID != bay.ID || got[0].UpdatedAt <= free.UpdatedAt {
			t.Fatalf("AssignSteps wrote %+v, want only %s with %s in %s and a later updatedAt", got, free.ID, tech.ID, bay.ID)
		}
		e.wantEvents(t, "assigned", "step.updated")
		if j := e.job(t, job.ID); !slices.Equal(j.Steps[0].TechIDs, []string{tech.ID}) {
			t.Errorf("job read after the assignment: step techs %v, want [%s] (the step cache must see it)", j.Steps[0].TechIDs, tech.ID)
		}
		if _, err := e.st.StartDayClose(t.Context(), store.DayCloseStart{LocationID: e.loc.ID, BusinessDate: "2026-11-20"}); err != nil {
			t.Fatal(err)
		}
		_, err = e.st.AssignSteps(t.Context(), e.v, e.loc.ID, e.planVersion(t, e.loc.ID), as, e.now())
		wantCode(t, err, workshop.CodeDayCloseInProgress)
	})
}

// TestPromiseWatchTellsEachTurnOnce: the watch's lease lets one process at
// a time look at a location, and a turn recorded by one is not told again
// by another that planned the same.
func TestPromiseWatchTellsEachTurnOnce(t *testing.T) {
	t.Parallel()
	storetest.EachGrouping(t, func(t *testing.T, db storetest.Database) {
		e := newJobEnv(t, db)
		second := storetest.Open(t, db.URL) // another process
		job := e.createJob(t, e.loc.ID)
		e.createStep(t, job.ID, "Oil")
		e.events(t)
		now := e.clk.Now()
		claimed, err := e.st.ClaimDue(t.Context(), "one", now, now.Add(10*time.Second), 10)
		if err != nil || !slices.Contains(withoutChangeTimes(t, claimed), store.WatchClaim{LocationID: e.loc.ID, Changed: true}) {
			t.Fatalf("first claim = %v, %v; want the changed location taken", claimed, err)
		}
		if claimed, err := second.ClaimDue(t.Context(), "two", now, now.Add(10*time.Second), 10); err != nil || len(claimed) != 0 {
			t.Fatalf("second claim while held = %v, %v; want nothing", claimed, err)
		}
		late := 90
		promise := now.Add(-time.Hour)
		jobs := []workshop.JobOutlook{{JobID: job.ID, PromiseTime: &promise, ProjectedCompletion: &now, AtRisk: true, LateMinutes: late}}
		check := store.PromiseCheck{LocationID: e.loc.ID, Owner: "two", Version: 1, Minute: 1, Jobs: jobs, Now: now, Rest: time.Second}
		if _, err := second.RecordPromises(t.Context(), check); err != store.ErrLeaseLost {
			t.Errorf("record without the lease = %v, want ErrLeaseLost", err)
		}
		check.Owner = "one"
		turns, err := e.st.RecordPromises(t.Context(), check)
		if err != nil || len(turns) != 1 || turns[0].Event != workshop.EventJobAtRisk {
			t.Fatalf("first look = %+v, %v; want one job.at_risk", turns, err)
		}
		evs := e.wantEvents(t, "at risk", "job.at_risk")
		if d := eventData(t, evs[0]); d["late_minutes"] != float64(late) || d["job_number"] != job.JobNumber || d["projected_completion"] == nil {
			t.Errorf("job.at_risk data = %v, want the job's row with late_minutes %d and projected_completion", d, late)
		}
		// The other process, its lease come, plans the same: nothing to tell.
		later := now.Add(2 * time.Second)
		e.exec(t, `UPDATE locations SET name = name WHERE id = ?`, e.loc.ID) // a change: its trigger moves the plan version
		if claimed, err := second.ClaimDue(t.Context(), "two", later, later.Add(10*time.Second), 10); err != nil ||
			!slices.Contains(withoutChangeTimes(t, claimed), store.WatchClaim{LocationID: e.loc.ID, Changed: true}) {
			t.Fatalf("second claim after the rest = %v, %v; want it taken", claimed, err)
		}
		check.Owner, check.Now = "two", later
		if turns, err := second.RecordPromises(t.Context(), check); err != nil || len(turns) != 0 {
			t.Errorf("the same plan again = %+v, %v; want no turn", turns, err)
		}
		jobs[0].AtRisk, jobs[0].LateMinutes = false, 0
		if turns, err := second.RecordPromises(t.Context(), check); err != nil || len(turns) != 1 || turns[0].Event != workshop.EventJobOnTrack {
			t.Errorf("back on track = %+v, %v; want one job.on_track", turns, err)
		}
		e.wantEvents(t, "on track", "job.on_track")
	})
}

// TestPromiseWatchDueRules: a location is due after a change (first, and
// even when the change came during a look) or when the time its last look
// named has come; otherwise, and while a look rests, nothing is claimed.
func TestPromiseWatchDueRules(t *testing.T) {
	t.Parallel()
	storetest.EachGrouping(t, func(t *testing.T, db storetest.Database) {
		e := newJobEnv(t, db)
		ctx := t.Context()
		other := e.location(t, "Other", "Europe/Berlin")
		job := e.createJob(t, e.loc.ID)
		now := e.clk.Now()
		claim := func(at time.Time, limit int) []store.WatchClaim {
			t.Helper()
			got, err := e.st.ClaimDue(ctx, "one", at, at.Add(10*time.Second), limit)
			if err != nil {
				t.Fatalf("ClaimDue: %v", err)
			}
			return got
		}
		record := func(locationID string, at time.Time, version int64, next time.Time) {
			t.Helper()
			pc := store.PromiseCheck{LocationID: locationID, Owner: "one", Version: version, Minute: 1, Now: at, Rest: time.Second, Next: next}
			if _, err := e.st.RecordPromises(ctx, pc); err != nil {
				t.Fatalf("RecordPromises: %v", err)
			}
		}
		want := func(what string, got []store.WatchClaim, want ...store.WatchClaim) {
			t.Helper()
			got = withoutChangeTimes(t, got)
			if !slices.Equal(got, want) {
				t.Errorf("%s: claimed %v, want %v", what, got, want)
			}
		}
		changed := func(id string) store.WatchClaim { return store.WatchClaim{LocationID: id, Changed: true} }
		timed := func(id string) store.WatchClaim { return store.WatchClaim{LocationID: id} }

		got := claim(now, 10)
		slices.SortFunc(got, func(a, b store.WatchClaim) int { return strings.Compare(a.LocationID, b.LocationID) })
		wantBoth := []store.WatchClaim{changed(e.loc.ID), changed(other.ID)}
		slices.SortFunc(wantBoth, func(a, b store.WatchClaim) int { return strings.Compare(a.LocationID, b.LocationID) })
		want("new locations", got, wantBoth...)
		record(e.loc.ID, now, e.planVersion(t, e.loc.ID), now.Add(5*time.Minute))
		record(other.ID, now, e.planVersion(t, other.ID), now.Add(time.Minute))
		want("resting", claim(now.Add(2*time.Second), 10))

		// Time alone: each when its look said; a change goes first.
		at := now.Add(time.Minute)
		want("other's time come", claim(at, 10), timed(other.ID))
		record(other.ID, at, e.planVersion(t, other.ID), at.Add(time.Minute))
		e.createStep(t, job.ID, "Oil")
		at = now.Add(2 * time.Minute)
		want("a change before a time come, limit 1", claim(at, 1), changed(e.loc.ID))
		want("then the time come", claim(at, 1), timed(other.ID))
		record(other.ID, at, e.planVersion(t, other.ID), time.Time{})

		// A change during the look (the plan read the version before it)
		// leaves the location due after the rest.
		version := e.planVersion(t, e.loc.ID)
		e.createStep(t, job.ID, "Brakes")
		record(e.loc.ID, at, version, time.Time{})
		want("a change during the look, resting", claim(at.Add(500*time.Millisecond), 10))
		want("a change during the look", claim(at.Add(time.Second), 10), changed(e.loc.ID))
		record(e.loc.ID, at.Add(time.Second), e.planVersion(t, e.loc.ID), time.Time{})
		want("nothing can turn: never", claim(at.Add(24*time.Hour), 10))

		q, err := e.st.WatchQueueAt(ctx, at.Add(24*time.Hour))
		if err != nil || q.Due != 0 {
			t.Errorf("queue after every look = %+v, %v; want none due", q, err)
		}
	})
}

// TestPromiseWatchLookWaitsForWritesInFlight: a write marks its location
// changed with the plan version (migration 00022), keeping a mark already
// set; a look that clears the mark must not lose a write still in flight:
// on PostgreSQL the look waits for that write and keeps the mark.
func TestPromiseWatchLookWaitsForWritesInFlight(t *testing.T) {
	t.Parallel()
	db := storetest.Database{Name: "postgres", URL: storetest.PostgresURL(t)}
	e := newJobEnv(t, db)
	job := e.createJob(t, e.loc.ID)
	e.createStep(t, job.ID, "Oil")
	now := e.clk.Now()
	look := func(at time.Time, version int64) error {
		claimed, err := e.st.ClaimDue(t.Context(), "one", at, at.Add(10*time.Second), 10)
		if err != nil || len(claimed) != 1 {
			return fmt.Errorf("claim at %s = %v, %v; want the location", at, claimed, err)
		}
		_, err = e.st.RecordPromises(t.Context(), store.PromiseCheck{LocationID: e.loc.ID, Owner: "one", Version: version,
			Minute: 1, Now: at, Rest: time.Second})
		return err
	}
	if err := look(now, e.planVersion(t, e.loc.ID)); err != nil {
		t.Fatal(err)
	}
	e.exec(t, `UPDATE locations SET name = name WHERE id = ?`, e.loc.ID) // sets the mark
	planned := e.planVersion(t, e.loc.ID)

	// A second write, in flight: its trigger finds the mark set.
	raw := storetest.RawDB(t, db.URL)
	tx, err := raw.BeginTx(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(t.Context(), `UPDATE locations SET name = name WHERE id = $1`, e.loc.ID); err != nil {
		t.Fatal(err)
	}
	looked := make(chan error, 1)
	go func() { looked <- look(now.Add(2*time.Second), planned) }()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		var n int
		err := raw.QueryRowContext(t.Context(), `SELECT COUNT(*) FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&n)
		if err == nil && n > 0 {
			break // the look waits for the write's lock
		}
		select {
		case err := <-looked:
			t.Fatalf("the look ended (%v) while a write was in flight; want it to wait for the write", err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("the look did not wait for the write in flight within 30 s")
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := <-looked; err != nil {
		t.Fatal(err)
	}
	later := now.Add(4 * time.Second)
	claimed, err := e.st.ClaimDue(t.Context(), "one", later, later.Add(10*time.Second), 10)
	if err != nil || !slices.Contains(withoutChangeTimes(t, claimed), store.WatchClaim{LocationID: e.loc.ID, Changed: true}) {
		t.Errorf("claim after the look = %v, %v; want the location still changed (the write in flight)", claimed, err)
	}
}

// withoutChangeTimes checks that each changed claim says when its change
// was made, and leaves that time out.
func withoutChangeTimes(t *testing.T, claims []store.WatchClaim) []store.WatchClaim {
	t.Helper()
	out := make([]store.WatchClaim, len(claims))
	for i, c := range claims {
		if c.Changed == c.ChangedAt.IsZero() {
			t.Errorf("claim %+v: want a change time exactly when changed", c)
		}
		c.ChangedAt = time.Time{}
		out[i] = c
	}
	return out
}
