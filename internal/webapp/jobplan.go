package webapp

import (
	"net/http"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// jobPlan is what the location's dispatch plan (contract section 8) says
// of one job: the one plan the dispatch view shows too, so that the job's
// page never shows a second planned time for a step.
type jobPlan struct {
	steps    map[string]workshop.PlannedStep
	unplaced map[string]string // step id: reason
	outlook  *workshop.JobOutlook
}

// jobPlan reads the plan's word on the job; a finished job has none.
func (a *App) jobPlan(r *http.Request, d *desk, j workshop.Job) (*jobPlan, error) {
	p := &jobPlan{steps: map[string]workshop.PlannedStep{}, unplaced: map[string]string{}}
	if j.Terminal() {
		return p, nil
	}
	plan, err := a.plans.Plan(r.Context(), d.loc.ID, "", a.now())
	if err != nil {
		return nil, err
	}
	for _, ps := range plan.Dispatch.Steps {
		if ps.JobID == j.ID {
			p.steps[ps.StepID] = ps
		}
	}
	for _, u := range plan.Dispatch.Unplaced {
		if u.JobID == j.ID {
			p.unplaced[u.StepID] = u.Reason
		}
	}
	for _, o := range plan.Dispatch.Jobs {
		if o.JobID == j.ID {
			p.outlook = &o
		}
	}
	return p, nil
}

// timelineOf is the job's one timeline: the promise, the plan's start and
// projected completion, and the actual start and end.
func (d *desk) timelineOf(j workshop.Job, p *jobPlan) jobTimeline {
	var t jobTimeline
	if j.PromiseTime != nil {
		t.Promise = d.when(j.PromiseTime.Time)
	}
	var start, end *workshop.Micros
	finished := len(j.Steps) > 0
	for _, st := range j.Steps {
		if st.StartedAt != nil && (start == nil || *st.StartedAt < *start) {
			start = st.StartedAt
		}
		if st.CompletedAt == nil {
			finished = false
		} else if end == nil || *st.CompletedAt > *end {
			end = st.CompletedAt
		}
	}
	if start != nil {
		t.Actual = d.when(start.Time()) + " – now"
		if finished && end != nil {
			t.Actual = d.span(start.Time(), end.Time())
		}
	}
	var first *workshop.PlannedStep
	for _, ps := range p.steps {
		if first == nil || ps.Start.Before(first.Start) {
			first = &ps
		}
	}
	if o := p.outlook; o != nil {
		t.AtRisk = o.AtRisk
		switch {
		case o.ProjectedCompletion == nil:
			t.Outlook = "a step cannot be placed in the plan"
		case first != nil:
			t.Planned = d.span(first.Start, *o.ProjectedCompletion)
		default:
			t.Planned = "ready by " + d.when(*o.ProjectedCompletion)
		}
		switch {
		case o.ProjectedCompletion == nil:
		case o.LateMinutes > 0:
			t.Outlook = durationText(o.LateMinutes) + " late"
		case j.PromiseTime != nil:
			t.Outlook = "on time"
		}
	}
	return t
}
