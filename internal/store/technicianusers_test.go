package store_test

import (
	"slices"
	"testing"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// A technician's list holds its steps that are still to do, in progress
// first, and nothing of completed steps, other technicians or jobs that
// ended.
func TestTechnicianSteps(t *testing.T) {
	t.Parallel()
	storetest.EachGrouping(t, func(t *testing.T, db storetest.Database) {
		e := newJobEnv(t, db)
		jonas, aylin := e.technician(t, e.loc.ID, 3), e.technician(t, e.loc.ID, 3)
		assign := func(st workshop.Step, techs ...string) workshop.Step {
			return e.patchStep(t, st, store.StepPatch{TechIDs: &techs})
		}
		first := e.createJob(t, e.loc.ID, withPlate("B-WS 1"))
		second := e.createJob(t, e.loc.ID)
		ended := e.createJob(t, e.loc.ID)

		pending := assign(e.createStep(t, first.ID, "Brakes"), jonas.ID)
		done := e.setStepStatus(t, assign(e.createStep(t, first.ID, "Oil"), jonas.ID), workshop.StepInProgress)
		e.setStepStatus(t, done, workshop.StepCompleted)
		working := e.setStepStatus(t, assign(e.createStep(t, second.ID, "Tyres"), jonas.ID, aylin.ID), workshop.StepInProgress)
		assign(e.createStep(t, second.ID, "Wash"), aylin.ID)
		assign(e.createStep(t, ended.ID, "Check"), jonas.ID)
		if _, err := e.st.CancelJob(t.Context(), e.v, ended.ID, nil, e.now()); err != nil {
			t.Fatalf("CancelJob: %v", err)
		}

		got, err := e.st.TechnicianSteps(t.Context(), jonas.ID)
		if err != nil {
			t.Fatalf("TechnicianSteps: %v", err)
		}
		var ids []string
		for _, as := range got {
			ids = append(ids, as.Step.ID)
		}
		if want := []string{working.ID, pending.ID}; !slices.Equal(ids, want) {
			t.Fatalf("steps of Jonas = %v, want %v (in progress, then pending)", ids, want)
		}
		if got[1].JobNumber != first.JobNumber || got[1].VehiclePlate == nil || *got[1].VehiclePlate != "B-WS 1" {
			t.Errorf("job of %s = %q plate %v, want %q plate B-WS 1", pending.ID, got[1].JobNumber, got[1].VehiclePlate, first.JobNumber)
		}
	})
}
