package store

import (
	"context"
	"database/sql"
	"strings"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// plateKey is how plates are compared when searched: upper case (ASCII,
// as SQL upper() does on both databases), without spaces. The
// jobs_location_plate index is on the same expression (migration 00012).
func plateKey(s string) string {
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ':
			continue
		case 'a' <= c && c <= 'z':
			c -= 'a' - 'A'
		}
		b = append(b, c)
	}
	return string(b)
}

// SearchJobs finds the jobs of a location whose job number, plate (in any
// case, spaces ignored) or external key (of any integration) is q, newest
// first, at most limit. Each of the three is one lookup of an index
// (the job number's unique index and migration 00012's), so a search costs
// the same however many jobs the location has.
func (s *Store) SearchJobs(ctx context.Context, v Visibility, locationID, q string, limit int) ([]workshop.Job, error) {
	q = strings.TrimSpace(q)
	if q == "" || !v.sees(v.OrgID, locationID) {
		return []workshop.Job{}, nil
	}
	const by = `SELECT ` + jobColumns + ` FROM jobs WHERE location_id = ? AND org_id = ? AND `
	query := `SELECT * FROM (` +
		by + `job_number IN (?, ?) UNION ` +
		by + `upper(replace(vehicle_plate, ' ', '')) = ? UNION ` +
		by + `external_key = ?) AS found ORDER BY created_at DESC, id DESC LIMIT ?`
	rows, err := s.read().query(ctx, query,
		locationID, v.OrgID, q, strings.ToUpper(q),
		locationID, v.OrgID, plateKey(q),
		locationID, v.OrgID, q, limit)
	if err != nil {
		return nil, err
	}
	return collect(rows, scanJob)
}

// DayState is a location's day: open, or closing (job and step writes are
// refused), with the last closed local date.
func (s *Store) DayState(ctx context.Context, v Visibility, locationID string) (workshop.DayState, error) {
	var orgID, state string
	var closed sql.NullString
	err := s.read().queryRow(ctx, `SELECT org_id, day_state, closed_date FROM locations WHERE id = ?`, locationID).Scan(&orgID, &state, &closed)
	if err == nil && !v.sees(orgID, locationID) {
		err = sql.ErrNoRows
	}
	if err != nil {
		return workshop.DayState{}, notFoundOr(err, "location")
	}
	return workshop.DayState{LocationID: locationID, State: state, ClosedDate: closed.String}, nil
}
