package store_test

import (
	"testing"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// TestClosedJobStepHoldsNothing: a step left in progress when its job is
// delivered or cancelled holds neither its technician's WIP nor its bay
// (contract section 4): the technician (WIP limit 1) starts a step of
// another job in the same bay, and the bay shows free.
func TestClosedJobStepHoldsNothing(t *testing.T) {
	t.Parallel()
	storetest.EachGrouping(t, func(t *testing.T, db storetest.Database) {
		for _, close := range []struct {
			name string
			do   func(e *jobEnv, jobID string) error
		}{
			{"delivered", func(e *jobEnv, jobID string) error {
				_, err := e.st.DeliverJob(t.Context(), e.v, jobID, e.now())
				return err
			}},
			{"cancelled", func(e *jobEnv, jobID string) error {
				_, err := e.st.CancelJob(t.Context(), e.v, jobID, nil, e.now())
				return err
			}},
		} {
			t.Run(close.name, func(t *testing.T) {
				e := newJobEnv(t, db)
				tech, bay := e.technician(t, e.loc.ID, 1), e.bay(t, e.loc.ID)
				assign := store.StepPatch{TechIDs: &[]string{tech.ID}, BayID: refOf(&bay.ID)}
				closed := e.createJob(t, e.loc.ID, withArrival(t0))
				held := e.patchStep(t, e.createStep(t, closed.ID, "Brakes"), assign)
				e.setStepStatus(t, held, workshop.StepInProgress)
				next := e.createJob(t, e.loc.ID, withArrival(t0))
				waiting := e.patchStep(t, e.createStep(t, next.ID, "Oil"), assign)

				// While the first job is open, its step holds both.
				_, err := e.st.PatchStep(t.Context(), e.v, next.ID, waiting.ID,
					store.StepPatch{UpdatedAt: waiting.UpdatedAt, Status: refOf(workshop.StepInProgress)}, e.now())
				wantFieldCode(t, err, "techIds", "wip_limit_exceeded")

				e.tick()
				if err := close.do(e, closed.ID); err != nil {
					t.Fatalf("%s: %v", close.name, err)
				}
				b, err := e.st.Bay(t.Context(), e.v, bay.ID)
				if err != nil {
					t.Fatal(err)
				}
				if b.Occupied {
					t.Errorf("bay after the job was %s: occupied, want free", close.name)
				}
				e.tick()
				if got := e.setStepStatus(t, waiting, workshop.StepInProgress); got.Status != workshop.StepInProgress {
					t.Errorf("next job's step = %s, want in_progress", got.Status)
				}
			})
		}
	})
}
