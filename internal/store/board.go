package store

import (
	"context"
	"database/sql"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// Board is a location's live snapshot: job counts by status and bay
// occupancy.
type Board struct {
	LocationID  string
	GeneratedAt workshop.Micros
	Jobs        map[string]int // every job status, plus "total" and "late"
	Bays        []BoardBay
}

// BoardBay is one bay on the board, with the step in progress on it.
type BoardBay struct {
	ID, Name, Status string
	JobID, StepID    *string
}

// Board computes the board with indexed aggregate queries, never by loading
// the jobs: counts per status from (location_id, status), late jobs are the
// open ones past their promise time.
func (s *Store) Board(ctx context.Context, locationID string, now workshop.Micros) (Board, error) {
	c := s.read()
	b := Board{LocationID: locationID, GeneratedAt: now, Jobs: map[string]int{}}
	for _, st := range workshop.JobStatuses {
		b.Jobs[st] = 0
	}
	rows, err := c.query(ctx, `SELECT status, COUNT(*) FROM jobs WHERE location_id = ? GROUP BY status`, locationID)
	if err != nil {
		return b, err
	}
	counts, err := collect(rows, func(sc scanner) (struct {
		status string
		n      int
	}, error) {
		var x struct {
			status string
			n      int
		}
		return x, sc.Scan(&x.status, &x.n)
	})
	if err != nil {
		return b, err
	}
	for _, x := range counts {
		b.Jobs[x.status] = x.n
		b.Jobs["total"] += x.n
	}
	var late int
	if err := c.queryRow(ctx, `SELECT COUNT(*) FROM jobs WHERE location_id = ? AND status IN (?, ?, ?, ?) AND promise_time_us < ?`,
		locationID, workshop.JobBooked, workshop.JobArrived, workshop.JobInProgress, workshop.JobWaiting, int64(now)).Scan(&late); err != nil {
		return b, err
	}
	b.Jobs["late"] = late
	rows, err = c.query(ctx, `SELECT b.id, b.name, b.status,
			(SELECT s.job_id FROM steps s WHERE s.bay_id = b.id AND s.status = 'in_progress' ORDER BY s.started_at, s.id LIMIT 1),
			(SELECT s.id FROM steps s WHERE s.bay_id = b.id AND s.status = 'in_progress' ORDER BY s.started_at, s.id LIMIT 1)
		FROM bays b WHERE b.location_id = ? AND b.deleted_at IS NULL ORDER BY b.created_at, b.id`, locationID)
	if err != nil {
		return b, err
	}
	b.Bays, err = collect(rows, func(sc scanner) (BoardBay, error) {
		var x BoardBay
		var job, step sql.NullString
		err := sc.Scan(&x.ID, &x.Name, &x.Status, &job, &step)
		x.JobID, x.StepID = strPtr(job), strPtr(step)
		return x, err
	})
	return b, err
}
