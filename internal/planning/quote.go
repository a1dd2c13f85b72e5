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
	plan, confidence, err := s.quotePlan(ctx, locationID, now, steps)
	if err != nil {
		return Quoted{}, err
	}
	out := Quoted{Zone: plan.Zone, Confidence: plan.Settings.PromiseConfidence}
	out.Quote = workshop.QuoteAvailability(plan.FreshInput(), plan.Dispatch, from, steps, confidence)
	return out, nil
}

// quotePlan is the plan quotes of steps are made around at now, with the
// confidence their margin follows (0: none), and steps' durations and
// spreads set as that plan plans work.
func (s *Service) quotePlan(ctx context.Context, locationID string, now time.Time, steps []workshop.QuoteStep) (*Plan, float64, error) {
	plan, err := s.Plan(ctx, locationID, now)
	if err != nil {
		return nil, 0, err
	}
	confidence := 0.0
	if plan.PlanningDurations != workshop.PlanWithEstimate {
		confidence = plan.Settings.PromiseConfidence
		if plan.PlanningDurations != workshop.PlanWithP50 {
			if plan, err = s.plan(ctx, planKey{location: locationID, minute: startMinute(now), variant: workshop.PlanWithP50}, now); err != nil {
				return nil, 0, err
			}
		}
	}
	for i, st := range steps { // as the plan plans work: with the durations it uses
		minutes := int(st.Duration / time.Minute)
		steps[i].Duration = time.Duration(plan.PlanningMinutes(st.ServiceCode, minutes, minutes)) * time.Minute
		steps[i].Spread = workshop.DurationSpread(plan.Durations[st.ServiceCode])
	}
	return plan, confidence, nil
}

// Offers are the days to offer a booking, in the location's zone.
type Offers struct {
	Days []workshop.DayOffer
	Zone *time.Location
}

// AvailabilityDays quotes steps for a drop-off at the opening of each of
// the next days working days from the local date from ("": today; before
// today refused on from), as Quote quotes one (contract section 8).
func (s *Service) AvailabilityDays(ctx context.Context, locationID string, now time.Time, from string, days int,
	steps []workshop.QuoteStep) (Offers, error) {
	plan, confidence, err := s.quotePlan(ctx, locationID, now, steps)
	if err != nil {
		return Offers{}, err
	}
	day, err := fromDay(from, now, plan.Zone, false)
	if err != nil {
		return Offers{}, err
	}
	return Offers{Days: workshop.OfferDays(plan.FreshInput(), plan.Dispatch, day, days, steps, confidence), Zone: plan.Zone}, nil
}

// Capacity is each technician's working and planned minutes on days local
// dates from from ("": today; from today to 13 days after it, else
// refused on from), from the location's plan (contract section 8).
func (s *Service) Capacity(ctx context.Context, locationID string, now time.Time, from string, days int) ([]workshop.CapacityDay, error) {
	plan, err := s.Plan(ctx, locationID, now)
	if err != nil {
		return nil, err
	}
	day, err := fromDay(from, now, plan.Zone, true)
	if err != nil {
		return nil, err
	}
	return workshop.Capacity(plan.FreshInput(), plan.Dispatch, day, days), nil
}

// fromDay is the local day a from parameter names ("": today).
func fromDay(from string, now time.Time, zone *time.Location, inPlan bool) (time.Time, error) {
	if from == "" {
		return workshop.Today(now, zone), nil
	}
	return workshop.PlanDayOf("from", from, now, zone, inPlan)
}
