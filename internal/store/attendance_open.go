package store

import (
	"context"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// OpenAttendance is the open records (technicians clocked in now) of what
// v sees: the time clock shows since when each is in.
func (s *Store) OpenAttendance(ctx context.Context, v Visibility) ([]workshop.Attendance, error) {
	rows, err := s.read().query(ctx, `SELECT `+attendanceColumns+` FROM attendance WHERE clock_out IS NULL AND org_id = ?
		AND (? = '' OR location_id = ?) ORDER BY clock_in_us, id`, v.OrgID, v.LocationID, v.LocationID)
	if err != nil {
		return nil, err
	}
	return collect(rows, scanAttendance)
}
