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

// JobDetailInput is what the job detail is computed from besides the
// location's plan: the job with its steps, its status history, its
// location's zone and settings.
type JobDetailInput struct {
	Job      workshop.Job
	History  []StatusChange
	Timezone string
	Settings workshop.Settings
}

// JobDetail reads what the detail of a job the caller sees needs; it works
// for delivered and cancelled jobs too (vehicle history).
func (s *Store) JobDetail(ctx context.Context, v Visibility, id string) (JobDetailInput, error) {
	var in JobDetailInput
	var hours, breaks, planning string
	var buffer int
	var confidence float64
	var history sql.NullString
	j, err := s.jobWithSteps(ctx, v, detailQuery, id, &in.Timezone, &hours, &breaks, &buffer, &planning, &confidence, &history)
	if err != nil {
		return in, err
	}
	in.Job = j
	if in.Settings, err = s.settings.parse(hours, breaks, buffer); err != nil {
		return in, err
	}
	in.Settings.PlanningDurations, in.Settings.PromiseConfidence = planning, confidence
	in.History, err = statusHistory(history.String)
	return in, err
}

// detailQuery reads a job with its location's zone and settings, its
// status history and its steps version: one query where there were three,
// for a read made often. The history is "status micros" entries joined by
// commas (statuses are single words), in no particular order: an ORDER BY
// in the aggregate costs SQLite a sorter, more than the rest of the query.
const detailQuery = `SELECT ` + jobColumns + `, timezone, operating_hours, breaks, bay_buffer_minutes, planning_durations,
		promise_confidence, (SELECT string_agg(h.status || ' ' || h.changed_at, ',') FROM job_status_history h WHERE h.job_id = jobs.id),
		` + stepsVersion + `
	FROM jobs JOIN (SELECT l.id AS loc, l.timezone, w.operating_hours, w.breaks, w.bay_buffer_minutes, w.planning_durations,
		w.promise_confidence FROM locations l JOIN workshop_settings w ON w.location_id = l.id) calendar ON calendar.loc = jobs.location_id
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
