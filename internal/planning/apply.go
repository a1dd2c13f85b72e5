package planning

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// applyTries bounds how often Apply plans again when the location changed
// between its plan and its write.
const applyTries = 5

// Apply writes what the location's plan chose for the steps it assigned
// (only those of stepIDs, when not nil; pinned steps keep what they have)
// and returns the plan after it. The plan and the write agree: a write
// made meanwhile moves the plan version, and the plan is made again. The
// API's plan apply and the application's dispatch view both apply so.
func (s *Service) Apply(ctx context.Context, v store.Visibility, locationID string, stepIDs []string, now func() time.Time) (*Plan, error) {
	for range applyTries {
		at := now()
		plan, err := s.Plan(ctx, locationID, at)
		if err != nil {
			return nil, err
		}
		_, err = s.store.AssignSteps(ctx, v, locationID, plan.Version, assignmentsOf(plan, stepIDs), workshop.MicrosOf(at))
		if errors.Is(err, store.ErrPlanMoved) {
			continue
		}
		if err != nil {
			return nil, err
		}
		return s.Plan(ctx, locationID, at)
	}
	return nil, workshop.Errorf(workshop.CodeStaleUpdatedAt, "The location's jobs, technicians or bays kept changing while the plan was applied; read the plan and try again.")
}

// assignmentsOf is what the plan chose for the steps it assigned, only
// those of stepIDs when not nil.
func assignmentsOf(p *Plan, stepIDs []string) []store.StepAssignment {
	var as []store.StepAssignment
	for _, st := range p.Dispatch.Steps {
		if st.Pinned || (stepIDs != nil && !slices.Contains(stepIDs, st.StepID)) {
			continue
		}
		as = append(as, store.StepAssignment{StepID: st.StepID, TechIDs: st.TechIDs, BayID: st.BayID})
	}
	return as
}
