package store_test

import (
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

func TestStepsDriveTheJobStatus(t *testing.T) {
	t.Parallel()
	storetest.EachGrouping(t, func(t *testing.T, db storetest.Database) {
		ctx := t.Context()
		e := newJobEnv(t, db)
		j := e.createJob(t, e.loc.ID, withArrival(t0.Add(-time.Hour)))
		wantStatus := func(step, want string) {
			t.Helper()
			if got := e.job(t, j.ID); got.Status != want {
				t.Errorf("%s: job status = %s, want %s", step, got.Status, want)
			}
		}
		e.events(t)

		e.tick()
		s1 := e.createStep(t, j.ID, "Brakes")
		e.wantEvents(t, "first step", workshop.EventStepCreated)
		wantStatus("first step", workshop.JobArrived)

		_, err := e.st.PatchStep(ctx, e.v, j.ID, s1.ID, store.StepPatch{UpdatedAt: s1.UpdatedAt - 1, Status: refOf(workshop.StepInProgress)}, e.now())
		wantCode(t, err, workshop.CodeStaleUpdatedAt)
		var we *workshop.Error
		if errors.As(err, &we) && (we.CurrentUpdatedAt == nil || *we.CurrentUpdatedAt != s1.UpdatedAt) {
			t.Errorf("stale PatchStep: CurrentUpdatedAt = %v, want %s", we.CurrentUpdatedAt, s1.UpdatedAt)
		}
		e.wantEvents(t, "stale step patch")

		// pending -> in_progress: step.updated, and job.updated (arrived -> in_progress).
		before := s1
		s1 = e.setStepStatus(t, s1, workshop.StepInProgress)
		if s1.Status != workshop.StepInProgress || s1.StartedAt == nil || s1.UpdatedAt <= before.UpdatedAt {
			t.Errorf("started step = %+v, want in_progress, startedAt set, later updatedAt", s1)
		}
		e.wantEvents(t, "start", workshop.EventStepUpdated, workshop.EventJobUpdated)
		wantStatus("start", workshop.JobInProgress)

		// The same status again is no change.
		same := e.setStepStatus(t, s1, workshop.StepInProgress)
		if same.UpdatedAt != s1.UpdatedAt {
			t.Errorf("no-op PatchStep: updatedAt = %s, want %s kept", same.UpdatedAt, s1.UpdatedAt)
		}
		e.wantEvents(t, "no-op step patch")

		// A second step while the first is in progress: the job stays in progress.
		e.tick()
		s2 := e.createStep(t, j.ID, "Oil")
		e.wantEvents(t, "second step", workshop.EventStepCreated)
		wantStatus("second step", workshop.JobInProgress)

		// pending -> completed is not a transition.
		_, err = e.st.PatchStep(ctx, e.v, j.ID, s2.ID, store.StepPatch{UpdatedAt: s2.UpdatedAt, Status: refOf(workshop.StepCompleted)}, e.now())
		wantCode(t, err, workshop.CodeInvalidTransition)

		s2 = e.setStepStatus(t, s2, workshop.StepInProgress)
		e.wantEvents(t, "second start", workshop.EventStepUpdated)

		// Completing one step of two in progress: step.completed only.
		s1 = e.setStepStatus(t, s1, workshop.StepCompleted)
		if s1.CompletedAt == nil {
			t.Error("completed step: completedAt = nil, want set")
		}
		e.wantEvents(t, "first complete", workshop.EventStepCompleted)
		wantStatus("first complete", workshop.JobInProgress)

		// Completing the last: step.completed and job.updated (ready).
		s2 = e.setStepStatus(t, s2, workshop.StepCompleted)
		if evs := e.wantEvents(t, "last complete", workshop.EventStepCompleted, workshop.EventJobUpdated); len(evs) == 2 {
			if data := eventData(t, evs[1]); data["status"] != workshop.JobReady {
				t.Errorf("job.updated status = %v, want ready", data["status"])
			}
		}
		wantStatus("last complete", workshop.JobReady)

		// A completed step never goes back.
		for _, to := range []string{workshop.StepPending, workshop.StepInProgress} {
			_, err = e.st.PatchStep(ctx, e.v, j.ID, s2.ID, store.StepPatch{UpdatedAt: s2.UpdatedAt, Status: &to}, e.now())
			wantCode(t, err, workshop.CodeInvalidTransition)
		}
		// in_progress -> pending neither (checked on a fresh step below).
		e.wantEvents(t, "refused transitions")

		// A step added to a ready job makes it waiting.
		e.tick()
		s3 := e.createStep(t, j.ID, "Wash")
		if evs := e.wantEvents(t, "step on a ready job", workshop.EventStepCreated, workshop.EventJobUpdated); len(evs) == 2 {
			if data := eventData(t, evs[1]); data["status"] != workshop.JobWaiting {
				t.Errorf("job.updated status = %v, want waiting", data["status"])
			}
		}
		wantStatus("step on a ready job", workshop.JobWaiting)
		s3 = e.setStepStatus(t, s3, workshop.StepInProgress)
		e.wantEvents(t, "third start", workshop.EventStepUpdated, workshop.EventJobUpdated)
		_, err = e.st.PatchStep(ctx, e.v, j.ID, s3.ID, store.StepPatch{UpdatedAt: s3.UpdatedAt, Status: refOf(workshop.StepPending)}, e.now())
		wantCode(t, err, workshop.CodeInvalidTransition)

		// Other changes: step.updated only.
		s3 = e.patchStep(t, s3, store.StepPatch{Label: refOf("Wash and dry"), EstimatedDuration: refOf(45)})
		e.wantEvents(t, "label change", workshop.EventStepUpdated)

		// The job's steps, in (phase, createdAt) order.
		got := e.job(t, j.ID)
		var ids []string
		for _, st := range got.Steps {
			ids = append(ids, st.ID+":"+st.Status)
		}
		want := []string{s1.ID + ":completed", s2.ID + ":completed", s3.ID + ":in_progress"}
		if !slices.Equal(ids, want) {
			t.Errorf("job steps = %v, want %v", ids, want)
		}
		if got.Steps[2].Label != "Wash and dry" || got.Steps[2].EstimatedDuration != 45 {
			t.Errorf("patched step = %+v, want label Wash and dry, 45 minutes", got.Steps[2])
		}

		// Unknown steps and jobs.
		_, err = e.st.PatchStep(ctx, e.v, j.ID, "stp_missing", store.StepPatch{UpdatedAt: s3.UpdatedAt}, e.now())
		wantCode(t, err, workshop.CodeNotFound)
		other := e.createJob(t, e.loc.ID)
		_, err = e.st.PatchStep(ctx, e.v, other.ID, s3.ID, store.StepPatch{UpdatedAt: s3.UpdatedAt}, e.now())
		wantCode(t, err, workshop.CodeNotFound)
		_, err = e.st.CreateStep(ctx, e.v, e.newStep("job_missing", "x"))
		wantCode(t, err, workshop.CodeNotFound)
	})
}

func TestStepAssignments(t *testing.T) {
	t.Parallel()
	storetest.EachGrouping(t, func(t *testing.T, db storetest.Database) {
		ctx := t.Context()
		e := newJobEnv(t, db)
		other := e.location(t, "Hamburg", "Europe/Berlin")
		tech := e.technician(t, e.loc.ID, 1)
		foreignTech := e.technician(t, other.ID, 2)
		gone := e.technician(t, e.loc.ID, 2)
		if err := e.st.DeleteTechnician(ctx, gone.ID); err != nil {
			t.Fatal(err)
		}
		bay, foreignBay, maintained := e.bay(t, e.loc.ID), e.bay(t, other.ID), e.bay(t, e.loc.ID)
		e.exec(t, "UPDATE bays SET status = 'maintenance' WHERE id = ?", maintained.ID)

		j := e.createJob(t, e.loc.ID, withArrival(t0))
		s1, s2 := e.createStep(t, j.ID, "Brakes"), e.createStep(t, j.ID, "Oil")
		e.events(t)

		for _, tc := range []struct {
			name, field, code string
			patch             store.StepPatch
		}{
			{"technician of another location", "techIds", "not_in_location", store.StepPatch{TechIDs: &[]string{tech.ID, foreignTech.ID}}},
			{"unknown technician", "techIds", "not_in_location", store.StepPatch{TechIDs: &[]string{"tec_missing"}}},
			{"deleted technician", "techIds", "not_in_location", store.StepPatch{TechIDs: &[]string{gone.ID}}},
			{"bay of another location", "bayId", "invalid", store.StepPatch{BayID: refOf(&foreignBay.ID)}},
			{"unknown bay", "bayId", "invalid", store.StepPatch{BayID: refOf(refOf("bay_missing"))}},
			{"bay in maintenance", "bayId", "bay_in_maintenance", store.StepPatch{BayID: refOf(&maintained.ID)}},
		} {
			tc.patch.UpdatedAt = s1.UpdatedAt
			_, err := e.st.PatchStep(ctx, e.v, j.ID, s1.ID, tc.patch, e.now())
			t.Run(tc.name, func(t *testing.T) { wantFieldCode(t, err, tc.field, tc.code) })
		}
		e.wantEvents(t, "refused assignments")
		if got := e.job(t, j.ID).Steps[0]; got.UpdatedAt != s1.UpdatedAt || len(got.TechIDs) != 0 || got.BayID != nil {
			t.Errorf("step after refused assignments = %+v, want unchanged", got)
		}

		// Assigning the technician (twice in the list: once) and the bay.
		s1 = e.patchStep(t, s1, store.StepPatch{TechIDs: &[]string{tech.ID, tech.ID}, BayID: refOf(&bay.ID)})
		if !slices.Equal(s1.TechIDs, []string{tech.ID}) || s1.BayID == nil || *s1.BayID != bay.ID {
			t.Errorf("assigned step = techs %v bay %v, want [%s] %s", s1.TechIDs, s1.BayID, tech.ID, bay.ID)
		}
		if evs := e.wantEvents(t, "assignment", workshop.EventStepUpdated); len(evs) == 1 {
			data := eventData(t, evs[0])
			if techs, _ := data["tech_ids"].([]any); len(techs) != 1 || techs[0] != tech.ID || data["bay_id"] != bay.ID {
				t.Errorf("step.updated tech_ids %v bay_id %v, want [%s] %s", data["tech_ids"], data["bay_id"], tech.ID, bay.ID)
			}
		}
		// A bay put in maintenance after it was assigned stays assigned
		// through other changes.
		s2 = e.patchStep(t, s2, store.StepPatch{TechIDs: &[]string{tech.ID}})

		// WIP limit 1: the technician's second step cannot start.
		s1 = e.setStepStatus(t, s1, workshop.StepInProgress)
		_, err := e.st.PatchStep(ctx, e.v, j.ID, s2.ID, store.StepPatch{UpdatedAt: s2.UpdatedAt, Status: refOf(workshop.StepInProgress)}, e.now())
		wantFieldCode(t, err, "techIds", "wip_limit_exceeded")
		// Nor can the technician be added to another step in progress.
		s3 := e.createStep(t, j.ID, "Wash")
		s3 = e.setStepStatus(t, s3, workshop.StepInProgress)
		_, err = e.st.PatchStep(ctx, e.v, j.ID, s3.ID, store.StepPatch{UpdatedAt: s3.UpdatedAt, TechIDs: &[]string{tech.ID}}, e.now())
		wantFieldCode(t, err, "techIds", "wip_limit_exceeded")
		if got := e.job(t, j.ID).Steps[1]; got.ID != s2.ID || got.Status != workshop.StepPending {
			t.Errorf("second step = %s %s, want %s still pending", got.ID, got.Status, s2.ID)
		}
		// Changing the step that holds the slot is fine.
		s1 = e.patchStep(t, s1, store.StepPatch{Label: refOf("Brakes, front")})
		// Once the first is completed, the second can start.
		e.setStepStatus(t, s1, workshop.StepCompleted)
		if s2 = e.setStepStatus(t, s2, workshop.StepInProgress); s2.Status != workshop.StepInProgress {
			t.Errorf("second step = %s, want in_progress", s2.Status)
		}
		// Unassigning the bay.
		if s1 = e.job(t, j.ID).Steps[0]; s1.BayID == nil {
			t.Fatal("first step lost its bay")
		}
		var noBay *string
		if got := e.patchStep(t, s1, store.StepPatch{BayID: &noBay}); got.BayID != nil {
			t.Errorf("unassigned bay = %v, want nil", *got.BayID)
		}
	})
}

// Two steps of different jobs started at once for a technician with a
// work-in-progress limit of 1: at most one start succeeds, on every
// database (the technician's row is locked before counting).
func TestWIPLimitUnderConcurrentStarts(t *testing.T) {
	t.Parallel()
	storetest.EachGrouping(t, func(t *testing.T, db storetest.Database) {
		e := newJobEnv(t, db)
		for round := range 10 {
			tech := e.technician(t, e.loc.ID, 1)
			var steps []workshop.Step
			for range 2 {
				j := e.createJob(t, e.loc.ID)
				st := e.createStep(t, j.ID, "Work")
				steps = append(steps, e.patchStep(t, st, store.StepPatch{UpdatedAt: st.UpdatedAt, TechIDs: &[]string{tech.ID}}))
			}
			var wg sync.WaitGroup
			errs := make([]error, len(steps))
			for i, st := range steps {
				wg.Go(func() {
					_, errs[i] = e.st.PatchStep(t.Context(), store.Visibility{OrgID: e.org.ID}, st.JobID, st.ID,
						store.StepPatch{UpdatedAt: st.UpdatedAt, Status: refOf(workshop.StepInProgress)}, e.now())
				})
			}
			wg.Wait()
			started := 0
			for _, err := range errs {
				if err == nil {
					started++
				} else if workshop.ErrorCode(err) != workshop.CodeValidationFailed {
					t.Fatalf("round %d: start: %v", round, err)
				}
			}
			if started != 1 {
				t.Fatalf("round %d: %d steps started for a technician with a limit of 1, want 1", round, started)
			}
		}
	})
}
