package store_test

import (
	"strings"
	"testing"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// TestStoreEnforcesFieldRules: the store's write path applies the field
// rules of jobs and steps (workshop.CheckJob, CompleteStep, ChangeStep),
// grouped and one by one, so no front door can write what the API's
// document refuses, and nothing is written when it refuses.
func TestStoreEnforcesFieldRules(t *testing.T) {
	t.Parallel()
	storetest.EachGrouping(t, func(t *testing.T, db storetest.Database) {
		e := newJobEnv(t, db)
		job := e.createJob(t, e.loc.ID)

		st := e.newStep(job.ID, "Engine")
		st.EstimatedDuration = workshop.MaxDuration + 1
		_, err := e.st.CreateStep(t.Context(), e.v, st)
		wantInvalid(t, err, "estimatedDuration")

		long := strings.Repeat("x", workshop.MaxJobTextLength+1)
		_, err = e.st.CreateJob(t.Context(), e.newJob(e.loc.ID, func(j *workshop.Job) { j.VehiclePlate = &long }), false)
		wantInvalid(t, err, "vehiclePlate")

		ok := e.createStep(t, job.ID, "Brakes")
		label := strings.Repeat("x", workshop.MaxStepLabelLength+1)
		_, err = e.st.PatchStep(t.Context(), e.v, job.ID, ok.ID, store.StepPatch{UpdatedAt: ok.UpdatedAt, Label: &label}, e.now())
		wantInvalid(t, err, "label")

		got, err := e.st.Job(t.Context(), e.v, job.ID)
		if err != nil || len(got.Steps) != 1 || got.Steps[0].Label != "Brakes" {
			t.Errorf("after the refusals: %v, %+v; want the job with its one step as it was", err, got.Steps)
		}
	})
}
