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

// StepPlace keeps a step of a technician's list where it was before a
// change: the step (ID, "" for none) is listed, completed or not, among
// the steps of the status it had (Was), so that the list a technician
// just tapped does not move under their finger.
type StepPlace struct {
	ID, Was string
}

// TechnicianSteps lists the steps assigned to a technician that are not
// completed, of jobs neither delivered nor cancelled: in progress first,
// then pending, each by job and phase; the step of keep in the place it
// had.
func (s *Store) TechnicianSteps(ctx context.Context, techID string, keep StepPlace) ([]AssignedStep, error) {
	keptRank := 1 // among the pending steps, or
	if keep.Was == workshop.StepInProgress {
		keptRank = 0 // among those in progress
	}
	rows, err := s.read().query(ctx, `SELECT `+assignedStepColumns+`, j.job_number, j.vehicle_plate, j.vehicle_make, j.vehicle_model
		FROM step_technicians a JOIN steps s ON s.id = a.step_id JOIN jobs j ON j.id = s.job_id
		WHERE a.tech_id = ? AND (s.status <> ? OR s.id = ?) AND j.status NOT IN (?, ?)
		ORDER BY CASE WHEN s.id = ? THEN ? WHEN s.status = ? THEN 0 ELSE 1 END, j.created_at, j.id, s.phase, s.created_at, s.id
		LIMIT ?`, techID, workshop.StepCompleted, keep.ID, workshop.JobDelivered, workshop.JobCancelled,
		keep.ID, keptRank, workshop.StepInProgress, assignedStepsLimit)
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
