package planning

import (
	"context"
	"time"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// JobDetail is the detail of a job the caller of visibility v sees, as of
// now, from its location's plan of today (the one GET /v1/scheduler/plan
// and the dispatch page show): the API's GET /v1/scheduler/jobs/{id}/detail
// and the application's job page both present it.
func (s *Service) JobDetail(ctx context.Context, v store.Visibility, id string, now time.Time) (workshop.JobDetail, error) {
	in, err := s.store.JobDetail(ctx, v, id)
	if err != nil {
		return workshop.JobDetail{}, err
	}
	zone, err := workshop.LoadZone(in.Timezone)
	if err != nil {
		return workshop.JobDetail{}, err
	}
	din := workshop.DetailInput{Job: in.Job, History: in.History, Calendar: workshop.NewCalendar(zone, in.Settings), Now: now}
	if workshop.InPlan(in.Job) {
		plan, err := s.Plan(ctx, in.Job.LocationID, now)
		if err != nil {
			return workshop.JobDetail{}, err
		}
		if jp, ok := plan.Dispatch.JobInPlan(in.Job.ID); ok {
			din.Plan = &jp
		}
	}
	return workshop.DetailOf(din), nil
}
