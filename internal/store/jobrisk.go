package store

import (
	"context"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// The board's "Late" and "At risk" (issue 27): late jobs are open, not
// ready, and promised before now (Board's count, through the partial index
// jobs_open_promise); jobs at risk are open, not ready, promised from now
// on, and finished after their promise by the plan as the promise watch
// last saw it (a row of job_promises). A job is never both.

// openNotReady is the statuses of jobs that can be late (workshop.Late:
// not ready, delivered or cancelled), written out as the partial index
// jobs_open_promise writes them, so that SQLite sees that it applies.
const openNotReady = `status IN ('booked', 'arrived', 'in_progress', 'waiting')`

// lateOrRisky is the condition of both.
const lateOrRisky = `location_id = ? AND org_id = ? AND ` + openNotReady

// atRisk narrows lateOrRisky to the jobs at risk.
const atRisk = ` AND promise_time_us >= ? AND id IN (SELECT job_id FROM job_promises WHERE location_id = ?)`

// AtRiskCount counts a location's jobs at risk at now.
func (s *Store) AtRiskCount(ctx context.Context, v Visibility, locationID string, now workshop.Micros) (int, error) {
	var n int
	err := s.read().queryRow(ctx, `SELECT COUNT(*) FROM jobs WHERE `+lateOrRisky+atRisk,
		locationID, v.OrgID, int64(now), locationID).Scan(&n)
	return n, err
}

// LateJobs lists a location's late jobs at now, the earliest promise
// first, at most limit.
func (s *Store) LateJobs(ctx context.Context, v Visibility, locationID string, now workshop.Micros, limit int) ([]workshop.Job, error) {
	rows, err := s.read().query(ctx, `SELECT `+jobColumns+` FROM jobs WHERE `+lateOrRisky+
		` AND promise_time_us < ? ORDER BY promise_time_us, id LIMIT ?`, locationID, v.OrgID, int64(now), limit)
	if err != nil {
		return nil, err
	}
	return collect(rows, scanJob)
}

// AtRiskJobs lists a location's jobs at risk at now, the earliest promise
// first, at most limit.
func (s *Store) AtRiskJobs(ctx context.Context, v Visibility, locationID string, now workshop.Micros, limit int) ([]workshop.Job, error) {
	rows, err := s.read().query(ctx, `SELECT `+jobColumns+` FROM jobs WHERE `+lateOrRisky+atRisk+
		` ORDER BY promise_time_us, id LIMIT ?`, locationID, v.OrgID, int64(now), locationID, limit)
	if err != nil {
		return nil, err
	}
	return collect(rows, scanJob)
}
