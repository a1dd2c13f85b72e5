package store

import (
	"context"
	"database/sql"
	"strings"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// AssignedStep is a step assigned to a technician, with what names its job.
type AssignedStep struct {
	Step                      workshop.Step
	JobNumber                 string
	VehiclePlate              *string
	VehicleMake, VehicleModel *string
}

// assignedStepColumns are stepColumns of the steps table aliased s.
var assignedStepColumns = "s." + strings.Join(strings.Fields(strings.ReplaceAll(stepColumns, ",", " ")), ", s.")

// assignedStepsLimit bounds a technician's list: a technician has a few
// steps at a time, and a list that grew without bound would be a bug.
const assignedStepsLimit = 200

// TechnicianSteps lists the steps assigned to a technician that are not
// completed, of jobs neither delivered nor cancelled: in progress first,
// then pending, each by job and phase.
func (s *Store) TechnicianSteps(ctx context.Context, techID string) ([]AssignedStep, error) {
	rows, err := s.read().query(ctx, `SELECT `+assignedStepColumns+`, j.job_number, j.vehicle_plate, j.vehicle_make, j.vehicle_model
		FROM step_technicians a JOIN steps s ON s.id = a.step_id JOIN jobs j ON j.id = s.job_id
		WHERE a.tech_id = ? AND s.status <> ? AND j.status NOT IN (?, ?)
		ORDER BY CASE s.status WHEN ? THEN 0 ELSE 1 END, j.created_at, j.id, s.phase, s.created_at, s.id
		LIMIT ?`, techID, workshop.StepCompleted, workshop.JobDelivered, workshop.JobCancelled, workshop.StepInProgress,
		assignedStepsLimit)
	if err != nil {
		return nil, err
	}
	return collect(rows, func(sc scanner) (AssignedStep, error) {
		var as AssignedStep
		var plate, make_, model sql.NullString
		st, err := scanStep(withColumns{sc, []any{&as.JobNumber, &plate, &make_, &model}})
		as.Step, as.VehiclePlate, as.VehicleMake, as.VehicleModel = st, strPtr(plate), strPtr(make_), strPtr(model)
		return as, err
	})
}
