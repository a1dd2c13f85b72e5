package store

import (
	"context"
	"strings"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// JobDetailInput is everything the job detail is computed from: the job
// with its steps, its status history, its location's zone and settings,
// and the other work in progress of the technicians on its steps.
type JobDetailInput struct {
	Job      workshop.Job
	History  []StatusChange
	Timezone string
	Settings workshop.Settings
	TechWork map[string][]OtherWork
}

// OtherWork is a step of another job in progress with a technician.
type OtherWork struct {
	StartedAt workshop.Micros
	Minutes   int
}

// JobDetail reads what the detail of a job the caller sees needs; it works
// for delivered and cancelled jobs too (vehicle history).
func (s *Store) JobDetail(ctx context.Context, v Visibility, id string) (JobDetailInput, error) {
	var in JobDetailInput
	var hours, breaks string
	var buffer int
	j, err := s.jobWithSteps(ctx, v, detailQuery, id, &in.Timezone, &hours, &breaks, &buffer)
	if err != nil {
		return in, err
	}
	in.Job = j
	if in.Settings, err = s.settings.parse(hours, breaks, buffer); err != nil {
		return in, err
	}
	if in.History, err = s.JobStatusHistory(ctx, j.ID); err != nil {
		return in, err
	}
	in.TechWork, err = s.otherWork(ctx, j)
	return in, err
}

// detailQuery reads a job with its location's zone and settings (one query
// where there were two: a detail is read often) and its steps version.
const detailQuery = `SELECT ` + jobColumns + `, timezone, operating_hours, breaks, bay_buffer_minutes, ` + stepsVersion + `
	FROM jobs JOIN (SELECT l.id AS loc, l.timezone, w.operating_hours, w.breaks, w.bay_buffer_minutes
		FROM locations l JOIN workshop_settings w ON w.location_id = l.id) calendar ON calendar.loc = jobs.location_id
	WHERE jobs.id = ?`

// otherWork lists, for each technician on the job's steps, their steps of
// other jobs in progress.
func (s *Store) otherWork(ctx context.Context, j workshop.Job) (map[string][]OtherWork, error) {
	var techs []any
	for _, st := range j.Steps {
		for _, t := range st.TechIDs {
			techs = append(techs, t)
		}
	}
	out := map[string][]OtherWork{}
	if len(techs) == 0 {
		return out, nil
	}
	rows, err := s.read().query(ctx, `SELECT a.tech_id, s.started_at, s.estimated_duration FROM step_technicians a
		JOIN steps s ON s.id = a.step_id
		WHERE s.status = 'in_progress' AND s.job_id <> ? AND a.tech_id IN (`+strings.TrimSuffix(strings.Repeat("?, ", len(techs)), ", ")+`)`,
		append([]any{j.ID}, techs...)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var tech string
		var w OtherWork
		if err := rows.Scan(&tech, &w.StartedAt, &w.Minutes); err != nil {
			return nil, err
		}
		out[tech] = append(out[tech], w)
	}
	return out, rows.Err()
}
