package store_test

import (
	"reflect"
	"slices"
	"testing"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

func TestJobDetailReadsHistoryAndCalendar(t *testing.T) {
	t.Parallel()
	storetest.EachGrouping(t, func(t *testing.T, db storetest.Database) {
		e := newJobEnv(t, db)
		j := e.createJob(t, e.loc.ID)
		want := []store.StatusChange{{Status: j.Status, At: j.UpdatedAt}}
		observe := func() { // the job's status, when it changed, as the history must have it
			if now := e.job(t, j.ID); now.Status != want[len(want)-1].Status {
				want = append(want, store.StatusChange{Status: now.Status, At: now.UpdatedAt})
			}
		}
		st := e.createStep(t, j.ID, "Brakes")
		observe()
		e.tick()
		st = e.setStepStatus(t, st, workshop.StepInProgress)
		observe()
		e.tick()
		e.setStepStatus(t, st, workshop.StepCompleted)
		observe()
		if len(want) < 3 {
			t.Fatalf("the job went through %v; the test needs at least three statuses", want)
		}

		in, err := e.st.JobDetail(t.Context(), e.v, j.ID)
		if err != nil {
			t.Fatalf("JobDetail: %v", err)
		}
		if !slices.Equal(in.History, want) {
			t.Errorf("history %v, want %v", in.History, want)
		}
		if in.Timezone != e.loc.Timezone {
			t.Errorf("timezone %q, want %q", in.Timezone, e.loc.Timezone)
		}
		if !reflect.DeepEqual(in.Settings, workshop.DefaultSettings()) {
			t.Errorf("settings %+v, want the defaults %+v", in.Settings, workshop.DefaultSettings())
		}
		if len(in.Job.Steps) != 1 || in.Job.Steps[0].Status != workshop.StepCompleted {
			t.Errorf("steps %+v, want the completed Brakes", in.Job.Steps)
		}

		if _, err := e.st.JobDetail(t.Context(), store.Visibility{OrgID: "org_other"}, j.ID); workshop.ErrorCode(err) != workshop.CodeNotFound {
			t.Errorf("JobDetail by another organisation: %v, want not_found", err)
		}
	})
}
