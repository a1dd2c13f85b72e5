package store_test

import (
	"slices"
	"testing"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// TestJobReadsSeeStepWritesOfAnotherProcess: a process that has read (and
// cached) a job's steps sees every step write made since, also one made by
// another process on the same database.
func TestJobReadsSeeStepWritesOfAnotherProcess(t *testing.T) {
	t.Parallel()
	storetest.EachGrouping(t, func(t *testing.T, db storetest.Database) {
		ctx := t.Context()
		e := newJobEnv(t, db)
		other := storetest.Open(t, db.URL, store.WithClock(e.clk.Now))
		j := e.createJob(t, e.loc.ID)
		s1 := e.createStep(t, j.ID, "Brakes")

		labels := func(step string, want ...string) {
			t.Helper()
			for range 2 { // the second read is served from the cache
				var got []string
				for _, st := range e.job(t, j.ID).Steps {
					got = append(got, st.Label+"/"+st.Status)
				}
				if !slices.Equal(got, want) {
					t.Fatalf("%s: steps %v, want %v", step, got, want)
				}
			}
		}
		labels("first step", "Brakes/pending")

		e.tick()
		s2, err := other.CreateStep(ctx, e.v, e.newStep(j.ID, "Oil"))
		if err != nil {
			t.Fatalf("CreateStep in the other process: %v", err)
		}
		labels("step created by the other process", "Brakes/pending", "Oil/pending")

		e.tick()
		if _, err := other.PatchStep(ctx, e.v, j.ID, s1.ID, store.StepPatch{UpdatedAt: s1.UpdatedAt, Status: refOf(workshop.StepInProgress)}, e.now()); err != nil {
			t.Fatalf("PatchStep in the other process: %v", err)
		}
		labels("step started by the other process", "Brakes/in_progress", "Oil/pending")

		e.tick()
		e.patchStep(t, s2, store.StepPatch{Label: refOf("Oil and filter")})
		labels("step renamed here", "Brakes/in_progress", "Oil and filter/pending")

		// What a read returns is the caller's: changing it changes no later read.
		got := e.job(t, j.ID)
		got.Steps[0].Label, got.Steps[0].TechIDs = "changed", append(got.Steps[0].TechIDs, "tec_x")
		labels("after the caller changed its copy", "Brakes/in_progress", "Oil and filter/pending")
		if techs := e.job(t, j.ID).Steps[0].TechIDs; len(techs) != 0 {
			t.Errorf("after the caller changed its copy: techIds %v, want none", techs)
		}
	})
}
