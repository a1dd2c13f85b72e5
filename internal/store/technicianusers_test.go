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

		got, err := e.st.TechnicianSteps(t.Context(), jonas.ID, store.StepPlace{})
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

		// The step just changed keeps its place among the steps of the
		// status it had: Tyres completed among those in progress (by job),
		// Brakes started among the pending ones.
		e.setStepStatus(t, working, workshop.StepCompleted)
		third := e.createJob(t, e.loc.ID)
		later := e.setStepStatus(t, assign(e.createStep(t, third.ID, "Lights"), jonas.ID), workshop.StepInProgress)
		started := e.setStepStatus(t, pending, workshop.StepInProgress)
		for _, tc := range []struct {
			keep store.StepPlace
			want []string
		}{
			{store.StepPlace{}, []string{pending.ID, later.ID}},
			{store.StepPlace{ID: working.ID, Was: workshop.StepInProgress}, []string{pending.ID, working.ID, later.ID}},
			{store.StepPlace{ID: started.ID, Was: workshop.StepPending}, []string{later.ID, started.ID}},
			{store.StepPlace{ID: done.ID, Was: workshop.StepInProgress}, []string{pending.ID, done.ID, later.ID}},
		} {
			got, err := e.st.TechnicianSteps(t.Context(), jonas.ID, tc.keep)
			ids = nil
			for _, as := range got {
				ids = append(ids, as.Step.ID)
			}
			if err != nil || !slices.Equal(ids, tc.want) {
				t.Errorf("steps of Jonas keeping %+v = %v (%v), want %v", tc.keep, ids, err, tc.want)
			}
		}
		if got, err := e.st.TechnicianSteps(t.Context(), aylin.ID, store.StepPlace{ID: done.ID, Was: workshop.StepInProgress}); err != nil ||
			slices.ContainsFunc(got, func(as store.AssignedStep) bool { return as.Step.ID == done.ID }) {
			t.Errorf("Aylin's list keeping Jonas's step = %+v (%v), want it without that step", got, err)
		}
	})
}
