package planning

import (
	"context"
	"time"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// Quoted is an availability quote with what it was made under.
type Quoted struct {
	workshop.Quote
	Zone *time.Location
	// Confidence is the location's promiseConfidence; the margin follows
	// it when the plan uses learned durations, and is 0 otherwise.
	Confidence float64
}

// Quote is when a new job with steps (one sequential step each, their
// durations the catalog's estimates) could be done if it arrived at from,
// as of now (contract sections 8 and 9): the API's availability read, the
// MCP tool that answers as it does and the application's new-job form all
// ask here. With the location's durations at their estimates it is placed
// around the location's plan as that plans work. With learned durations
// (p50 or p80) it is placed around the plan made with every duration at
// its median, the new steps at theirs, and gets the margin of the
// location's promise confidence for the spread of the work it waits for
// and of its own.
func (s *Service) Quote(ctx context.Context, locationID string, now, from time.Time, steps []workshop.QuoteStep) (Quoted, error) {
	plan, err := s.Plan(ctx, locationID, now)
	if err != nil {
		return Quoted{}, err
	}
	out := Quoted{Zone: plan.Zone, Confidence: plan.Settings.PromiseConfidence}
	confidence := 0.0
	if plan.PlanningDurations != workshop.PlanWithEstimate {
		confidence = out.Confidence
		if plan.PlanningDurations != workshop.PlanWithP50 {
			if plan, err = s.plan(ctx, planKey{location: locationID, minute: startMinute(now), variant: workshop.PlanWithP50}, now); err != nil {
				return Quoted{}, err
			}
		}
	}
	for i, st := range steps { // as the plan plans work: with the durations it uses
		minutes := int(st.Duration / time.Minute)
		steps[i].Duration = time.Duration(plan.PlanningMinutes(st.ServiceCode, minutes, minutes)) * time.Minute
		steps[i].Spread = workshop.DurationSpread(plan.Durations[st.ServiceCode])
	}
	out.Quote = workshop.QuoteAvailability(plan.FreshInput(), plan.Dispatch, from, steps, confidence)
	return out, nil
}
