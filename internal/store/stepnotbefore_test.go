package store_test

import (
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// A step's notBefore (contract section 8) is kept with the offset it was
// sent with, on create and PATCH, in the step's row and its events; it may
// be set on a pending step only; null returns the step's time to the
// planner.
func TestStepNotBefore(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		e := newJobEnv(t, db)
		j := e.createJob(t, e.loc.ID)
		at := workshop.OffsetTime{Time: time.Date(2026, 11, 24, 9, 30, 0, 0, time.FixedZone("", 5*3600))}
		e.tick()
		newStep := e.newStep(j.ID, "Brakes")
		newStep.NotBefore = &at
		st, err := e.st.CreateStep(t.Context(), e.v, newStep)
		if err != nil {
			t.Fatalf("CreateStep: %v", err)
		}
		if got := e.job(t, j.ID).Steps[0].NotBefore; got == nil || got.String() != at.String() {
			t.Errorf("created notBefore read back %v, want %v with its offset", got, at)
		}
		e.events(t)

		later := workshop.OffsetTime{Time: at.Add(time.Hour)}
		st = e.patchStep(t, st, store.StepPatch{NotBefore: refOf(&later)})
		list := e.wantEvents(t, "scheduled", workshop.EventStepUpdated)
		if len(list) == 1 {
			if got := eventData(t, list[0])["not_before"]; got != later.String() {
				t.Errorf("step.updated not_before = %v, want %s", got, later)
			}
		}
		again := e.patchStep(t, st, store.StepPatch{NotBefore: refOf(&later)})
		if again.UpdatedAt != st.UpdatedAt {
			t.Errorf("the same notBefore again moved updatedAt %v to %v, want no change", st.UpdatedAt, again.UpdatedAt)
		}
		st = e.patchStep(t, st, store.StepPatch{NotBefore: refOf[*workshop.OffsetTime](nil)})
		if got := e.job(t, j.ID).Steps[0].NotBefore; got != nil {
			t.Errorf("notBefore after null = %v, want none", got)
		}

		started := refOf(workshop.StepInProgress)
		_, err = e.st.PatchStep(t.Context(), e.v, j.ID, st.ID, store.StepPatch{UpdatedAt: st.UpdatedAt, Status: started, NotBefore: refOf(&at)}, e.now())
		wantInvalid(t, err, "notBefore")
		st = e.setStepStatus(t, st, workshop.StepInProgress)
		_, err = e.st.PatchStep(t.Context(), e.v, j.ID, st.ID, store.StepPatch{UpdatedAt: st.UpdatedAt, NotBefore: refOf(&at)}, e.now())
		wantInvalid(t, err, "notBefore")
	})
}
