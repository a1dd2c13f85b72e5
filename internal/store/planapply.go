package store

import (
	"context"
	"errors"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// ErrPlanMoved is AssignSteps' answer when the location's plan version is
// no longer the one the assignments were planned at: something the plan
// reads changed, so the caller plans again.
var ErrPlanMoved = errors.New("the location's plan moved")

// StepAssignment is the plan's technicians and bay for one step.
type StepAssignment struct {
	StepID  string
	TechIDs []string
	BayID   string // "" for none
}

// AssignSteps writes a plan's assignments into the location's steps that
// are still pending and unassigned (workshop.AssignFromPlan), each with its
// step.updated event, in one write blocked during a day close like any
// step write (POST /v1/scheduler/plan/apply). The plan must be the one of
// the location's current plan version: the steps are locked first, then
// the version (the order every step write takes them in, through the
// version's triggers), so nothing the plan read can change between the
// check and the commit. It returns the steps written.
func (s *Store) AssignSteps(ctx context.Context, v Visibility, locationID string, version int64, as []StepAssignment,
	now workshop.Micros) ([]workshop.Step, error) {
	return write(ctx, s, func(c conn) ([]workshop.Step, error) {
		if _, err := openLocation(ctx, c, v, locationID); err != nil {
			return nil, err
		}
		ids := make([]any, 0, len(as))
		for _, a := range as {
			ids = append(ids, a.StepID)
		}
		steps, err := lockedByID(ctx, c, `SELECT `+stepColumns+` FROM steps`, ids, scanStep, func(st workshop.Step) string { return st.ID })
		if err != nil {
			return nil, err
		}
		var current int64
		if err := c.queryRow(ctx, `SELECT version FROM plan_versions WHERE location_id = ?`+s.forUpdate(), locationID).Scan(&current); err != nil {
			return nil, notFoundOr(err, "location")
		}
		if current != version {
			return nil, ErrPlanMoved
		}
		var changed []workshop.Step
		for _, a := range as {
			st, ok := steps[a.StepID]
			if !ok || st.LocationID != locationID {
				continue
			}
			if next, ok := workshop.AssignFromPlan(st, a.TechIDs, a.BayID, now); ok {
				changed = append(changed, next)
			}
		}
		if len(changed) == 0 {
			return changed, nil
		}
		return changed, persistAssignments(ctx, c, changed)
	})
}

// persistAssignments writes assigned steps with their technicians, events
// and their jobs' steps versions (which the step caches are checked
// against). An assignment changes no step's status, so no job's.
func persistAssignments(ctx context.Context, c conn, steps []workshop.Step) error {
	if err := writeSteps(ctx, c, steps); err != nil {
		return err
	}
	if err := assignTechnicians(ctx, c, steps); err != nil {
		return err
	}
	var jobs []any
	for _, st := range steps {
		if err := recordEvent(ctx, c, st.OrgID, st.LocationID, workshop.EventStepUpdated, st.UpdatedAt, stepRow(st)); err != nil {
			return err
		}
		if !containsAny(jobs, st.JobID) {
			jobs = append(jobs, st.JobID)
		}
	}
	_, err := refreshSteps(ctx, c, jobs)
	return err
}

func containsAny(list []any, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}
