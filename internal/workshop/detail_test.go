package workshop_test

import (
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// TestDetailOf: the job detail takes its planned times and promise from
// the location's plan, never a layout of its own; completed steps and
// closed jobs show what the detail documents.
func TestDetailOf(t *testing.T) {
	t.Parallel()
	cal := workshop.NewCalendar(berlin, workshop.DefaultSettings())
	micros := func(t time.Time) *workshop.Micros { m := workshop.MicrosOf(t); return &m }
	step := func(id, status string, minutes int, started, done *workshop.Micros) workshop.Step {
		return workshop.Step{ID: id, Label: "Step " + id, Status: status, EstimatedDuration: minutes, StartedAt: started, CompletedAt: done}
	}
	promise := workshop.OffsetTime{Time: wk(0, 15, 0)}
	job := workshop.Job{ID: "j1", Status: workshop.JobInProgress, PromiseTime: &promise, Steps: []workshop.Step{
		step("done", workshop.StepCompleted, 60, micros(wk(0, 8, 0)), micros(wk(0, 9, 30))),
		step("run", workshop.StepInProgress, 30, micros(wk(0, 9, 30)), nil),
		step("next", workshop.StepPending, 60, nil, nil),
	}}
	placed := &workshop.JobInPlan{
		Outlook: workshop.JobOutlook{JobID: "j1", ProjectedCompletion: ref(wk(0, 11, 30)), AtRisk: false},
		Steps: map[string]workshop.PlannedStep{
			"run":  {StepID: "run", Start: wk(0, 9, 30), End: wk(0, 10, 30)},
			"next": {StepID: "next", Start: wk(0, 10, 30), End: wk(0, 11, 30)},
		}}
	t.Run("in the plan", func(t *testing.T) {
		t.Parallel()
		d := workshop.DetailOf(workshop.DetailInput{Job: job, Calendar: cal, Plan: placed})
		if s := d.Steps[0]; !s.PlannedStart.Equal(wk(0, 8, 0)) || !s.PlannedEnd.Equal(wk(0, 9, 0)) || !s.ProjectedEnd.Equal(wk(0, 9, 30)) {
			t.Errorf("completed step %+v, want planned 08:00-09:00 (its estimate from its start), projected its end 09:30", s)
		}
		if s := d.Steps[2]; !s.PlannedStart.Equal(wk(0, 10, 30)) || !s.PlannedEnd.Equal(wk(0, 11, 30)) || !s.ProjectedEnd.Equal(wk(0, 11, 30)) {
			t.Errorf("pending step %+v, want the plan's 10:30-11:30", s)
		}
		if !d.PlannedStart.Equal(wk(0, 8, 0)) || !d.PlannedEnd.Equal(wk(0, 11, 30)) || d.ActualEnd != nil {
			t.Errorf("job planned %v-%v actual end %v, want 08:00-11:30 and no end", d.PlannedStart, d.PlannedEnd, d.ActualEnd)
		}
		if p := d.Promise; !p.ProjectedCompletion.Equal(wk(0, 11, 30)) || p.AtRisk || p.SlackMinutes == nil || *p.SlackMinutes != 180 {
			t.Errorf("promise %+v, want the plan's 11:30, on track, slack 180 (the lunch break is not working time)", p)
		}
		if len(d.Delays) != 2 || d.Delays[0].StepID != "done" || d.Delays[0].Minutes != 30 || d.Delays[0].Ongoing ||
			d.Delays[1].StepID != "run" || d.Delays[1].Minutes != 30 || !d.Delays[1].Ongoing {
			t.Errorf("delays %+v, want done 30 min over, run 30 min over and ongoing", d.Delays)
		}
	})
	t.Run("a step unplaced", func(t *testing.T) {
		t.Parallel()
		unplaced := &workshop.JobInPlan{Outlook: workshop.JobOutlook{JobID: "j1", AtRisk: true}, Steps: map[string]workshop.PlannedStep{"run": placed.Steps["run"]},
			Unplaced: map[string]workshop.UnplacedStep{"next": {StepID: "next", Reason: workshop.UnplacedAfter, BlockedBy: "x"}}}
		d := workshop.DetailOf(workshop.DetailInput{Job: job, Calendar: cal, Plan: unplaced})
		if s := d.Steps[2]; s.PlannedStart != nil || s.PlannedEnd != nil || s.ProjectedEnd != nil || s.Unplaced == nil || s.Unplaced.BlockedBy != "x" {
			t.Errorf("unplaced step %+v, want no times and the plan's reason", s)
		}
		if p := d.Promise; p.ProjectedCompletion != nil || !p.AtRisk || p.SlackMinutes != nil || d.PlannedEnd != nil {
			t.Errorf("promise %+v, planned end %v; want no projection, at risk, no slack, no planned end", p, d.PlannedEnd)
		}
	})
	t.Run("closed", func(t *testing.T) {
		t.Parallel()
		done := job
		done.Status, done.Steps = workshop.JobDelivered, []workshop.Step{job.Steps[0],
			step("run", workshop.StepCompleted, 30, micros(wk(0, 9, 30)), micros(wk(0, 16, 0)))}
		d := workshop.DetailOf(workshop.DetailInput{Job: done, Calendar: cal})
		if p := d.Promise; !p.ProjectedCompletion.Equal(wk(0, 16, 0)) || !p.AtRisk || *p.SlackMinutes != -60 || !d.ActualEnd.Equal(wk(0, 16, 0)) {
			t.Errorf("finished late: %+v, actual end %v; want 16:00, at risk (late), slack -60", p, d.ActualEnd)
		}
		cancelled := job
		cancelled.Status = workshop.JobCancelled
		d = workshop.DetailOf(workshop.DetailInput{Job: cancelled, Calendar: cal})
		if s := d.Steps[2]; s.PlannedStart != nil || d.Promise.ProjectedCompletion != nil || d.Promise.AtRisk || d.PlannedEnd != nil {
			t.Errorf("cancelled with work left: step %+v, promise %+v; want no plan and no projection", s, d.Promise)
		}
	})
}
