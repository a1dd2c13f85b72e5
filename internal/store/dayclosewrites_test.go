package store_test

import (
	"testing"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

func TestDayCloseBlocksJobAndStepWrites(t *testing.T) {
	t.Parallel()
	storetest.EachGrouping(t, func(t *testing.T, db storetest.Database) {
		ctx := t.Context()
		e := newJobEnv(t, db)
		other := e.location(t, "Hamburg", "Europe/Berlin")
		type site struct {
			loc                         workshop.Location
			patched, stepped, dlv, canc workshop.Job
			step                        workshop.Step
		}
		prepare := func(loc workshop.Location) *site {
			if _, err := e.st.SetCancelTags(ctx, loc.ID, []workshop.CancelTag{{Tag: "no_show", Label: "No show"}}); err != nil {
				t.Fatal(err)
			}
			s := &site{loc: loc, patched: e.createJob(t, loc.ID), stepped: e.createJob(t, loc.ID), dlv: e.createJob(t, loc.ID), canc: e.createJob(t, loc.ID)}
			s.step = e.createStep(t, s.stepped.ID, "Brakes")
			return s
		}
		closing, open := prepare(e.loc), prepare(other)
		if _, err := e.st.StartDayClose(ctx, store.DayCloseStart{LocationID: e.loc.ID, BusinessDate: "2026-11-20"}); err != nil {
			t.Fatal(err)
		}
		e.events(t)

		ops := []struct {
			name string
			do   func(s *site) error
		}{
			{"CreateJob", func(s *site) error {
				_, err := e.st.CreateJob(ctx, e.newJob(s.loc.ID), true)
				return err
			}},
			{"CreateJob with a number", func(s *site) error {
				_, err := e.st.CreateJob(ctx, e.newJob(s.loc.ID, withNumber("RO-OWN-1")), false)
				return err
			}},
			{"PatchJob", func(s *site) error {
				_, err := e.st.PatchJob(ctx, e.v, s.patched.ID, store.JobPatch{UpdatedAt: s.patched.UpdatedAt, VehiclePlate: refOf(refOf("B-1"))}, e.now())
				return err
			}},
			{"CreateStep", func(s *site) error {
				_, err := e.st.CreateStep(ctx, e.v, e.newStep(s.stepped.ID, "Oil"))
				return err
			}},
			{"PatchStep", func(s *site) error {
				_, err := e.st.PatchStep(ctx, e.v, s.stepped.ID, s.step.ID, store.StepPatch{UpdatedAt: s.step.UpdatedAt, Status: refOf(workshop.StepInProgress)}, e.now())
				return err
			}},
			{"DeliverJob", func(s *site) error {
				_, err := e.st.DeliverJob(ctx, e.v, s.dlv.ID, e.now())
				return err
			}},
			{"CancelJob", func(s *site) error {
				_, err := e.st.CancelJob(ctx, e.v, s.canc.ID, []string{"no_show"}, e.now())
				return err
			}},
		}
		for _, op := range ops {
			t.Run(op.name, func(t *testing.T) {
				wantCode(t, op.do(closing), workshop.CodeDayCloseInProgress)
				if err := op.do(open); err != nil {
					t.Errorf("%s in another location = %v, want nil", op.name, err)
				}
			})
		}
		for _, ev := range e.events(t) {
			if ev.LocationID == e.loc.ID {
				t.Errorf("event %s recorded in the closing location", ev.Name)
			}
		}
		for _, j := range []workshop.Job{closing.patched, closing.dlv, closing.canc} {
			if got := e.job(t, j.ID); !sameJob(got, j) {
				t.Errorf("job in the closing location = %+v, want unchanged %+v", got, j)
			}
		}
		if got := e.job(t, closing.stepped.ID); len(got.Steps) != 1 || got.Steps[0].Status != workshop.StepPending {
			t.Errorf("steps in the closing location = %+v, want the one pending step", got.Steps)
		}
		// Reads go on.
		if _, err := e.st.Jobs(ctx, store.JobFilter{Visibility: store.Visibility{OrgID: e.org.ID, LocationID: e.loc.ID}}, workshop.PageRequest{Limit: 10}); err != nil {
			t.Errorf("Jobs during the close = %v", err)
		}
		// After the close, writes resume.
		if _, err := e.st.FinishDayClose(ctx, store.DayCloseFinish{LocationID: e.loc.ID, Today: "2026-11-21"}); err != nil {
			t.Fatal(err)
		}
		for _, op := range ops {
			if err := op.do(closing); err != nil {
				t.Errorf("%s after the close = %v, want nil", op.name, err)
			}
		}
	})
}
