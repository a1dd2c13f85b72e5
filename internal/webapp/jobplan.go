package webapp

import (
	"net/http"
	"time"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// jobPlan is what the location's dispatch plan (contract section 8) says
// of the job: the plan the dispatch view and the job detail show too, so
// that the page never shows a second planned time for a step. A job not
// in the plan (finished, or every step completed) has nothing in it.
func (a *App) jobPlan(r *http.Request, d *desk, j workshop.Job) (workshop.JobInPlan, error) {
	none := workshop.JobInPlan{}
	if !workshop.InPlan(j) {
		return none, nil
	}
	plan, err := a.plans.Plan(r.Context(), d.loc.ID, a.now())
	if err != nil {
		return none, err
	}
	jp, _ := plan.Dispatch.JobInPlan(j.ID)
	return jp, nil
}

// timelineOf is the job's one timeline, from its detail: the promise, the
// plan's window and projection, and the actual start and end. Lateness is
// the plan's (wall-clock, as the board and dispatch say it).
func (d *desk) timelineOf(dt workshop.JobDetail, plan workshop.JobInPlan) jobTimeline {
	t := jobTimeline{Promise: d.whenOf(dt.Promise.PromiseTime), Actual: d.spanOf(dt.ActualStart, dt.ActualEnd),
		AtRisk: dt.Promise.AtRisk}
	if dt.PlannedStart != nil && dt.PlannedEnd != nil {
		t.Planned = d.span(*dt.PlannedStart, *dt.PlannedEnd)
	}
	p := dt.Promise
	switch {
	case !workshop.InPlan(dt.Job):
	case p.ProjectedCompletion == nil:
		t.Outlook = "a step cannot be placed in the plan"
	case plan.Outlook.LateMinutes > 0:
		t.Outlook = durationText(plan.Outlook.LateMinutes) + " late"
	case p.SlackMinutes != nil:
		t.Outlook = "on time, " + durationText(*p.SlackMinutes) + " working time to spare"
	default:
		t.Outlook = "ready by " + d.when(*p.ProjectedCompletion)
	}
	return t
}

// whenOf is when, "" for none.
func (d *desk) whenOf(t *time.Time) string {
	if t == nil {
		return ""
	}
	return d.when(*t)
}
