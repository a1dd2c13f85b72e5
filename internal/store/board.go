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

// Board reads the board: the job counts from the tallies the writes keep
// (migration 00010), so that its cost does not grow with a location's
// open or finished jobs, and the bays with the step in progress on each.
func (s *Store) Board(ctx context.Context, locationID string, now workshop.Micros) (Board, error) {
	c := s.read()
	b := Board{LocationID: locationID, GeneratedAt: now, Jobs: map[string]int{"total": 0}}
	for _, st := range workshop.JobStatuses {
		b.Jobs[st] = 0
	}
	// One statement, one snapshot: the counts and late agree. Late is
	// workshop.Late counted: the open jobs not ready promised on a day
	// before today (late_tally, kept by triggers), plus today's promises
	// before now: a range of the partial index jobs_open_promise, whose
	// statuses are written out so that SQLite sees it applies.
	const day = 86400000000
	today := int64(now) / day * day
	rows, err := c.query(ctx, `SELECT status, n FROM board_tally WHERE location_id = ?
		UNION ALL SELECT 'late', (SELECT COALESCE(SUM(n), 0) FROM late_tally WHERE location_id = ? AND day < ?)
			+ (SELECT COUNT(*) FROM jobs WHERE location_id = ? AND `+openNotReady+`
				AND promise_time_us >= ? AND promise_time_us < ?)`,
		locationID, locationID, today/day, locationID, today, int64(now))
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
		if x.status != "late" {
			b.Jobs["total"] += x.n
		}
	}
	rows, err = c.query(ctx, `SELECT b.id, b.name, b.status, `+bayOccupant("job_id")+`, `+bayOccupant("id")+`
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

// bayOccupant is a column of the step in progress in the bay of alias b
// (the first started), NULL when there is none: the one definition of
// "occupied" wherever a bay is shown (the bay list, the board's counts,
// the application's board). A bay holds one vehicle: workshop.ChangeStep
// refuses to start a second job's step in it.
func bayOccupant(column string) string {
	return `(SELECT s.` + column + ` FROM steps s WHERE s.bay_id = b.id AND ` + stepHoldsWork + ` ORDER BY s.started_at, s.id LIMIT 1)`
}
