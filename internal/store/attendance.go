package store

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/workshop-platform/workshop/internal/workshop"
)

const attendanceColumns = `id, org_id, location_id, tech_id, work_date, clock_in, clock_out, created_at, updated_at`

func scanAttendance(sc scanner) (workshop.Attendance, error) {
	var a workshop.Attendance
	var in string
	var out sql.NullString
	err := sc.Scan(&a.ID, &a.OrgID, &a.LocationID, &a.TechID, &a.WorkDate, &in, &out, &a.CreatedAt, &a.UpdatedAt)
	if err != nil {
		return a, err
	}
	if a.ClockIn, err = workshop.ParseOffsetTime(in); err != nil {
		return a, err
	}
	a.ClockOut, err = offsetPtr(out)
	return a, err
}

func attendanceRow(a workshop.Attendance) eventRow {
	return eventRow{{"clock_in", a.ClockIn.String()}, {"clock_out", offsetOrNil(a.ClockOut)}, {"created_at", a.CreatedAt.String()},
		{"id", a.ID}, {"location_id", a.LocationID}, {"org_id", a.OrgID}, {"tech_id", a.TechID},
		{"updated_at", a.UpdatedAt.String()}, {"work_date", a.WorkDate}}
}

// clockTechnician reads a technician the caller sees, with its location's
// zone, for a clock-in or clock-out.
func clockTechnician(ctx context.Context, c conn, v Visibility, techID string) (workshop.Technician, *time.Location, error) {
	t, err := technicianKind.visible(ctx, c, v, techID, "")
	if err != nil {
		return t, nil, err
	}
	zone, err := locationZone(ctx, c, t.LocationID)
	return t, zone, err
}

// locationZone is the time zone of a location: attendance is recorded in it.
func locationZone(ctx context.Context, c conn, locationID string) (*time.Location, error) {
	var tz string
	if err := c.queryRow(ctx, `SELECT timezone FROM locations WHERE id = ?`, locationID).Scan(&tz); err != nil {
		return nil, err
	}
	return workshop.LoadZone(tz)
}

// ClockIn opens an attendance record at `at` (tech.clocked_in). A
// technician has at most one open record: a second clock-in is
// already_clocked_in. Day close does not block it.
func (s *Store) ClockIn(ctx context.Context, v Visibility, techID string, at time.Time, opts ...WriteOption) (workshop.Attendance, error) {
	name := techID // the technician's, once read
	a, err := writeUnder(ctx, s, keyOf(opts), func(c conn) (workshop.Attendance, error) {
		t, zone, err := clockTechnician(ctx, c, v, techID)
		if err != nil {
			return workshop.Attendance{}, err
		}
		name = t.Name
		now := workshop.MicrosOf(s.now())
		a := workshop.Attendance{ID: workshop.NewID(workshop.PrefixAttendance), OrgID: t.OrgID, LocationID: t.LocationID, TechID: t.ID,
			ClockIn: workshop.LocalTime(at, zone), CreatedAt: now, UpdatedAt: now}
		a.WorkDate = a.ClockIn.Format(time.DateOnly)
		if _, err := c.exec(ctx, `INSERT INTO attendance (id, org_id, location_id, tech_id, work_date, clock_in, clock_in_us, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, a.ID, a.OrgID, a.LocationID, a.TechID, a.WorkDate, a.ClockIn.String(), a.ClockIn.UnixMicro(),
			a.CreatedAt, a.UpdatedAt); err != nil {
			return a, err
		}
		return a, recordEvent(ctx, c, a.OrgID, a.LocationID, workshop.EventTechClockedIn, now, attendanceRow(a))
	})
	if isUniqueViolation(err, "attendance") {
		return a, workshop.Errorf(workshop.CodeAlreadyClockedIn, "%s is already clocked in.", name)
	}
	return a, err
}

// ClockOut closes the technician's open record at `at` (tech.clocked_out);
// without one it is not_clocked_in. A clock-out before the clock-in is a
// validation error on at (GivenTo: unless in the clock-in's minute).
func (s *Store) ClockOut(ctx context.Context, v Visibility, techID string, at time.Time, opts ...WriteOption) (workshop.Attendance, error) {
	return writeUnder(ctx, s, keyOf(opts), func(c conn) (workshop.Attendance, error) {
		t, zone, err := clockTechnician(ctx, c, v, techID)
		if err != nil {
			return workshop.Attendance{}, err
		}
		a, err := scanAttendance(c.queryRow(ctx, `SELECT `+attendanceColumns+` FROM attendance WHERE tech_id = ? AND clock_out IS NULL`+s.forUpdate(), t.ID))
		if errors.Is(err, sql.ErrNoRows) {
			return a, workshop.Errorf(workshop.CodeNotClockedIn, "%s is not clocked in.", t.Name)
		}
		if err != nil {
			return a, err
		}
		if a, err = workshop.ClockOut(a, workshop.LocalTime(at, zone), optionsOf(opts).precision, workshop.MicrosOf(s.now())); err != nil {
			return a, err
		}
		out := *a.ClockOut
		if _, err := c.exec(ctx, `UPDATE attendance SET clock_out = ?, clock_out_us = ?, updated_at = ? WHERE id = ?`,
			out.String(), out.UnixMicro(), a.UpdatedAt, a.ID); err != nil {
			return a, err
		}
		return a, recordEvent(ctx, c, a.OrgID, a.LocationID, workshop.EventTechClockedOut, a.UpdatedAt, attendanceRow(a))
	})
}

// AttendanceFilter selects attendance records: local work dates From..To
// (inclusive, YYYY-MM-DD, "" for open-ended) and a technician.
type AttendanceFilter struct {
	Visibility
	TechID   string
	From, To string
}

// AttendanceRecords lists attendance by (createdAt, id).
func (s *Store) AttendanceRecords(ctx context.Context, f AttendanceFilter, p workshop.PageRequest) (workshop.Page[workshop.Attendance], error) {
	base := `SELECT ` + attendanceColumns + ` FROM attendance a WHERE (? = '' OR a.tech_id = ?) AND (? = '' OR a.work_date >= ?) AND (? = '' OR a.work_date <= ?)`
	return listPageArgs(ctx, s, base, []any{f.TechID, f.TechID, f.From, f.From, f.To, f.To}, "a", f.Visibility, p, scanAttendance,
		func(a workshop.Attendance) workshop.Cursor { return workshop.Cursor{CreatedAt: a.CreatedAt, ID: a.ID} })
}
