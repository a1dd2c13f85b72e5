package store_test

import (
	"slices"
	"strconv"
	"sync"
	"testing"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// A group writes its patches together, with the steps, the jobs
// derived statuses and the events one patch at a time would give, and
// refuses the ones the rules refuse.
func TestPatchStepGroupWritesPlainPatchesTogether(t *testing.T) {
	t.Parallel()
	storetest.EachGrouping(t, func(t *testing.T, db storetest.Database) {
		ctx := t.Context()
		e := newJobEnv(t, db)
		closing := e.location(t, "Munich", "Europe/Berlin")
		foreignLoc := createLocation(t, e.st, createOrg(t, e.st, workshop.PlanPro).ID)
		tech := e.technician(t, e.loc.ID, 1)
		maintained := e.bay(t, e.loc.ID)
		e.exec(t, "UPDATE bays SET status = 'maintenance' WHERE id = ?", maintained.ID)

		started := e.createJob(t, e.loc.ID, withArrival(t0))
		a := e.createStep(t, started.ID, "Brakes")
		relabelled := e.createJob(t, e.loc.ID)
		b1, b2 := e.createStep(t, relabelled.ID, "Oil"), e.createStep(t, relabelled.ID, "Filter")
		finishing := e.createJob(t, e.loc.ID, withArrival(t0))
		c := e.setStepStatus(t, e.createStep(t, finishing.ID, "Wash"), workshop.StepInProgress)
		same := e.createJob(t, e.loc.ID)
		d := e.createStep(t, same.ID, "Tyres")
		stale := e.createStep(t, e.createJob(t, e.loc.ID).ID, "Stale")
		delivered := e.createJob(t, e.loc.ID, withArrival(t0))
		f := e.createStep(t, delivered.ID, "Done")
		if _, err := e.st.DeliverJob(ctx, e.v, delivered.ID, e.now()); err != nil {
			t.Fatal(err)
		}
		manned := e.createJob(t, e.loc.ID)
		g := e.patchStep(t, e.createStep(t, manned.ID, "Manned"), store.StepPatch{TechIDs: &[]string{tech.ID}})
		midClose := e.createJob(t, closing.ID)
		h := e.createStep(t, midClose.ID, "Closing")
		if _, err := e.st.StartDayClose(ctx, store.DayCloseStart{LocationID: closing.ID, BusinessDate: "2026-11-20"}); err != nil {
			t.Fatal(err)
		}
		foreignJob, err := e.st.CreateJob(ctx, workshop.Job{ID: workshop.NewID(workshop.PrefixJob), OrgID: foreignLoc.OrgID,
			LocationID: foreignLoc.ID, Priority: "normal", Source: "other", CreatedAt: e.now(), UpdatedAt: e.now()}, false)
		if err != nil {
			t.Fatal(err)
		}
		foreign, err := e.st.CreateStep(ctx, store.Visibility{OrgID: foreignLoc.OrgID}, e.newStep(foreignJob.Job.ID, "Foreign"))
		if err != nil {
			t.Fatal(err)
		}
		bayed := e.createStep(t, e.createJob(t, e.loc.ID).ID, "Bay")
		e.events(t)
		e.tick()

		patch := func(st workshop.Step, p store.StepPatch) store.GroupPatch {
			p.UpdatedAt = st.UpdatedAt
			return store.GroupPatch{V: e.v, JobID: st.JobID, StepID: st.ID, Patch: p, Now: e.now()}
		}
		inProgress, completed := refOf(workshop.StepInProgress), refOf(workshop.StepCompleted)
		stalePatch := patch(stale, store.StepPatch{Label: refOf("Late")})
		stalePatch.Patch.UpdatedAt--
		patches := []store.GroupPatch{
			patch(a, store.StepPatch{Status: inProgress}),          // 0: the job goes in_progress
			patch(b1, store.StepPatch{Label: refOf("Oil change")}), // 1: the job stays booked
			patch(c, store.StepPatch{Status: completed}),           // 2: step.completed, the job is ready
			patch(d, store.StepPatch{Label: refOf("Tyres")}),       // 3: changes nothing
			patch(b2, store.StepPatch{Label: refOf("Air filter")}), // 4: the second of its job
			stalePatch, // 5
			patch(f, store.StepPatch{Label: refOf("Again")}),            // 6: the job is delivered
			patch(g, store.StepPatch{Status: inProgress}),               // 7: a technician's limit to check
			patch(h, store.StepPatch{Label: refOf("Later")}),            // 8: mid-close
			patch(foreign, store.StepPatch{Label: refOf("Not ours")}),   // 9: another organisation's
			patch(bayed, store.StepPatch{BayID: refOf(&maintained.ID)}), // 10: a bay in maintenance
			patch(a, store.StepPatch{TechIDs: &[]string{}}),             // 11: techIds, and a's job again
			patch(bayed, store.StepPatch{Status: completed}),            // 12: the second of its job, refused
		}
		steps, together, errs := e.st.PatchStepsAsOneGroup(ctx, patches)

		// The group decides every patch but the second of a job, which it
		// defers to a group of its own: refusals are answered by the group.
		wantTogether := []bool{true, true, true, true, false, true, true, true, true, true, true, false, false}
		if !slices.Equal(together, wantTogether) {
			t.Errorf("answered by the group = %v, want %v", together, wantTogether)
		}
		for i, want := range []struct {
			step   workshop.Step
			status string
			label  string
		}{{a, workshop.StepInProgress, "Brakes"}, {b1, workshop.StepPending, "Oil change"}, {c, workshop.StepCompleted, "Wash"},
			{d, workshop.StepPending, "Tyres"}, {b2, workshop.StepPending, "Air filter"}, {g, workshop.StepInProgress, "Manned"},
		} {
			k := []int{0, 1, 2, 3, 4, 7}[i]
			got := steps[k]
			if errs[k] != nil || got.ID != want.step.ID || got.Status != want.status || got.Label != want.label {
				t.Errorf("patch %d = %s %s %q, %v; want %s %s %q", k, got.ID, got.Status, got.Label, errs[k], want.step.ID, want.status, want.label)
			}
			if changed := got.UpdatedAt != want.step.UpdatedAt; changed == (k == 3) {
				t.Errorf("patch %d: updatedAt %v -> %v, want it changed: %v", k, want.step.UpdatedAt, got.UpdatedAt, k != 3)
			}
			if stored := e.job(t, got.JobID).Steps; !slices.ContainsFunc(stored, func(s workshop.Step) bool {
				return s.ID == got.ID && s.UpdatedAt == got.UpdatedAt && s.Status == got.Status && s.Label == got.Label
			}) {
				t.Errorf("patch %d: stored steps %+v, want %+v among them", k, stored, got)
			}
		}
		if steps[2].CompletedAt == nil || steps[0].StartedAt == nil {
			t.Errorf("startedAt %v, completedAt %v; want both set", steps[0].StartedAt, steps[2].CompletedAt)
		}
		wantCode(t, errs[5], workshop.CodeStaleUpdatedAt)
		wantCode(t, errs[6], workshop.CodeInvalidTransition)
		wantCode(t, errs[8], workshop.CodeDayCloseInProgress)
		wantCode(t, errs[9], workshop.CodeNotFound)
		wantFieldCode(t, errs[10], "bayId", "bay_in_maintenance")
		wantCode(t, errs[11], workshop.CodeStaleUpdatedAt) // a moved on in the group
		wantCode(t, errs[12], workshop.CodeInvalidTransition)

		for _, want := range []struct {
			job    workshop.Job
			status string
		}{{started, workshop.JobInProgress}, {relabelled, workshop.JobBooked}, {finishing, workshop.JobReady},
			{same, workshop.JobBooked}, {manned, workshop.JobInProgress}} {
			if got := e.job(t, want.job.ID); got.Status != want.status {
				t.Errorf("job %s = %s, want %s", want.job.ID, got.Status, want.status)
			}
		}
		evs := e.wantEvents(t, "group",
			workshop.EventStepUpdated, workshop.EventJobUpdated, // a, its job
			workshop.EventStepUpdated,                             // b1
			workshop.EventStepCompleted, workshop.EventJobUpdated, // c, its job
			workshop.EventStepUpdated, workshop.EventJobUpdated, // g, its job
			workshop.EventStepUpdated) // b2, in a group of its own
		if len(evs) == 8 {
			for i, want := range []string{a.ID, started.ID, b1.ID, c.ID, finishing.ID, g.ID, manned.ID, b2.ID} {
				if data := eventData(t, evs[i]); data["id"] != want {
					t.Errorf("event %d (%s) is of %v, want %s", i, evs[i].Name, data["id"], want)
				}
			}
			if data := eventData(t, evs[1]); data["status"] != workshop.JobInProgress || data["job_number"] != started.JobNumber {
				t.Errorf("job.updated = status %v number %v, want in_progress %s", data["status"], data["job_number"], started.JobNumber)
			}
		}
		in, err := e.st.JobDetail(ctx, e.v, finishing.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got := in.History[len(in.History)-1]; got.Status != workshop.JobReady || got.At != in.Job.UpdatedAt {
			t.Errorf("last status of %s = %+v, want ready at the job's updatedAt %v", finishing.ID, got, in.Job.UpdatedAt)
		}
	})
}

// Concurrent patches, several to one job at once and from two processes,
// leave every job with the status its steps give, its history and events
// in step with it.
func TestConcurrentStepPatchesKeepJobsDerived(t *testing.T) {
	t.Parallel()
	storetest.EachGrouping(t, func(t *testing.T, db storetest.Database) {
		e := newJobEnv(t, db)
		var jobs []workshop.Job
		var steps []workshop.Step
		for range 10 {
			j := e.createJob(t, e.loc.ID, withArrival(t0))
			jobs = append(jobs, j)
			for k := range 3 {
				steps = append(steps, e.createStep(t, j.ID, "Step "+strconv.Itoa(k)))
			}
		}
		e.events(t)
		processes := []*store.Store{e.st, storetest.Open(t, db.URL, store.WithClock(e.clk.Now))}
		var wg sync.WaitGroup
		for i, st := range steps {
			wg.Go(func() {
				for _, status := range []string{workshop.StepInProgress, workshop.StepCompleted} {
					var err error
					if st, err = processes[i%2].PatchStep(t.Context(), e.v, st.JobID, st.ID, store.StepPatch{UpdatedAt: st.UpdatedAt, Status: &status}, e.now()); err != nil {
						t.Errorf("PatchStep(%s, %s): %v", st.ID, status, err)
						return
					}
				}
			})
		}
		wg.Wait()

		updates := map[string][]string{} // job id -> the statuses its job.updated events carried
		stepEvents := 0
		for _, ev := range e.events(t) {
			data := eventData(t, ev)
			if ev.Name == workshop.EventJobUpdated {
				updates[data["id"].(string)] = append(updates[data["id"].(string)], data["status"].(string))
			} else {
				stepEvents++
			}
		}
		if stepEvents != 2*len(steps) {
			t.Errorf("%d step events, want %d", stepEvents, 2*len(steps))
		}
		for _, j := range jobs {
			in, err := e.st.JobDetail(t.Context(), e.v, j.ID)
			if err != nil {
				t.Fatal(err)
			}
			for _, st := range in.Job.Steps {
				if st.Status != workshop.StepCompleted {
					t.Errorf("job %s step %s = %s, want completed", j.ID, st.ID, st.Status)
				}
			}
			var history []string
			for _, h := range in.History[1:] { // after the arrival
				history = append(history, h.Status)
			}
			if in.Job.Status != workshop.JobReady || !slices.Equal(updates[j.ID], history) || history[len(history)-1] != workshop.JobReady {
				t.Errorf("job %s = %s, history after arrival %v, job.updated statuses %v; want ready, the same two lists ending in ready",
					j.ID, in.Job.Status, history, updates[j.ID])
			}
		}
	})
}

// A bay holds one vehicle: a step of another job cannot start in a bay
// where a step is in progress, alone or in the same group; a step of the
// same job can, and the bay is free again once the step is completed.
func TestBayHoldsOneVehicle(t *testing.T) {
	t.Parallel()
	storetest.EachGrouping(t, func(t *testing.T, db storetest.Database) {
		ctx := t.Context()
		e := newJobEnv(t, db)
		bay := e.bay(t, e.loc.ID)
		inBay := func(st workshop.Step) workshop.Step {
			return e.patchStep(t, st, store.StepPatch{BayID: refOf(&bay.ID)})
		}
		first, second, third := e.createJob(t, e.loc.ID), e.createJob(t, e.loc.ID), e.createJob(t, e.loc.ID)
		e.setStepStatus(t, inBay(e.createStep(t, first.ID, "Brakes")), workshop.StepInProgress)
		sameJob := inBay(e.createStep(t, first.ID, "Pads"))
		other, another := inBay(e.createStep(t, second.ID, "Oil")), inBay(e.createStep(t, third.ID, "Tyres"))

		start := refOf(workshop.StepInProgress)
		_, err := e.st.PatchStep(ctx, e.v, other.JobID, other.ID, store.StepPatch{UpdatedAt: other.UpdatedAt, Status: start}, e.now())
		wantFieldCode(t, err, "bayId", "bay_occupied")
		e.setStepStatus(t, sameJob, workshop.StepInProgress)

		// Completed, the bay is free, and of two starts in one group the
		// second finds it taken by the first.
		e.setStepStatus(t, e.job(t, first.ID).Steps[0], workshop.StepCompleted)
		e.setStepStatus(t, e.job(t, first.ID).Steps[1], workshop.StepCompleted)
		patch := func(st workshop.Step) store.GroupPatch {
			return store.GroupPatch{V: e.v, JobID: st.JobID, StepID: st.ID, Patch: store.StepPatch{UpdatedAt: st.UpdatedAt, Status: start}, Now: e.now()}
		}
		_, _, errs := e.st.PatchStepsAsOneGroup(ctx, []store.GroupPatch{patch(other), patch(another)})
		if errs[0] != nil {
			t.Errorf("first start in the free bay = %v, want it started", errs[0])
		}
		wantFieldCode(t, errs[1], "bayId", "bay_occupied")
	})
}
