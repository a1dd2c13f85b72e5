package store

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strconv"
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
	var history sql.NullString
	j, err := s.jobWithSteps(ctx, v, detailQuery, id, &in.Timezone, &hours, &breaks, &buffer, &history)
	if err != nil {
		return in, err
	}
	in.Job = j
	if in.Settings, err = s.settings.parse(hours, breaks, buffer); err != nil {
		return in, err
	}
	if in.History, err = statusHistory(history.String); err != nil {
		return in, err
	}
	in.TechWork, err = s.otherWork(ctx, j)
	return in, err
}

// detailQuery reads a job with its location's zone and settings, its
// status history and its steps version: one query where there were three,
// for a read made often. The history is "status micros" entries joined by
// commas (statuses are single words), in no particular order: an ORDER BY
// in the aggregate costs SQLite a sorter, more than the rest of the query.
const detailQuery = `SELECT ` + jobColumns + `, timezone, operating_hours, breaks, bay_buffer_minutes,
		(SELECT string_agg(h.status || ' ' || h.changed_at, ',') FROM job_status_history h WHERE h.job_id = jobs.id),
		` + stepsVersion + `
	FROM jobs JOIN (SELECT l.id AS loc, l.timezone, w.operating_hours, w.breaks, w.bay_buffer_minutes
		FROM locations l JOIN workshop_settings w ON w.location_id = l.id) calendar ON calendar.loc = jobs.location_id
	WHERE jobs.id = ?`

// statusHistory parses the history column of detailQuery, oldest first.
func statusHistory(text string) ([]StatusChange, error) {
	var out []StatusChange
	for entry := range strings.SplitSeq(text, ",") {
		if entry == "" {
			continue
		}
		status, at, _ := strings.Cut(entry, " ")
		n, err := strconv.ParseInt(at, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("status history entry %q: %w", entry, err)
		}
		out = append(out, StatusChange{Status: status, At: workshop.Micros(n)})
	}
	slices.SortStableFunc(out, func(a, b StatusChange) int { return cmp.Compare(a.At, b.At) })
	return out, nil
}

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
		WHERE `+stepHoldsWork+` AND s.job_id <> ? AND a.tech_id IN (`+placeholders(len(techs))+`)`,
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
