package store

import (
	"context"
	"database/sql"
	"errors"
	"math"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// AttendanceRecord reads an attendance record the caller sees.
func (s *Store) AttendanceRecord(ctx context.Context, v Visibility, id string) (workshop.Attendance, error) {
	return visibleAttendance(ctx, s.read(), v, id, "")
}

func visibleAttendance(ctx context.Context, c conn, v Visibility, id, lock string) (workshop.Attendance, error) {
	a, err := scanAttendance(c.queryRow(ctx, `SELECT `+attendanceColumns+` FROM attendance WHERE id = ?`+lock, id))
	if err == nil && !v.sees(a.OrgID, a.LocationID) {
		err = sql.ErrNoRows
	}
	if errors.Is(err, sql.ErrNoRows) {
		return a, workshop.NotFound("attendance record")
	}
	return a, err
}

// AttendanceEdit is a correction of a record's times, made by a user
// from the version of the record they saw. ClockOut nil keeps an open
// record open.
type AttendanceEdit struct {
	By        workshop.User
	UpdatedAt workshop.Micros
	ClockIn   workshop.OffsetTime
	ClockOut  *workshop.OffsetTime
}

// CorrectAttendance corrects a record's clock-in and clock-out (taken in
// the location's zone) and keeps the correction in the record's history,
// in one transaction (workshop.CorrectAttendance decides it). A
// correction is not a clock-in or clock-out and emits nothing, except
// that closing an open record is the technician's clock-out and emits
// tech.clocked_out as ClockOut does: whoever follows who is clocked in
// learns of it. The same times again change nothing.
func (s *Store) CorrectAttendance(ctx context.Context, v Visibility, id string, e AttendanceEdit) (workshop.Attendance, error) {
	return write(ctx, s, func(c conn) (workshop.Attendance, error) {
		cur, err := visibleAttendance(ctx, c, v, id, s.forUpdate())
		if err != nil {
			return cur, err
		}
		// The technician's row serialises corrections of their records,
		// so that two of them cannot each miss the other's overlap.
		var techID string
		if err := c.queryRow(ctx, `SELECT id FROM technicians WHERE id = ?`+s.forUpdate(), cur.TechID).Scan(&techID); err != nil {
			return cur, err
		}
		zone, err := locationZone(ctx, c, cur.LocationID)
		if err != nil {
			return cur, err
		}
		in := workshop.LocalTime(e.ClockIn.Time, zone)
		var out *workshop.OffsetTime
		if e.ClockOut != nil {
			o := workshop.LocalTime(e.ClockOut.Time, zone)
			out = &o
		}
		others, err := nearbyAttendance(ctx, c, cur, in, out)
		if err != nil {
			return cur, err
		}
		next, changed, err := workshop.CorrectAttendance(cur, e.UpdatedAt, in, out, others, workshop.MicrosOf(s.now()))
		if err != nil || !changed {
			return cur, err
		}
		if _, err := c.exec(ctx, `UPDATE attendance SET work_date = ?, clock_in = ?, clock_in_us = ?, clock_out = ?, clock_out_us = ?, updated_at = ?
			WHERE id = ?`, next.WorkDate, next.ClockIn.String(), next.ClockIn.UnixMicro(), offsetText(next.ClockOut), microsOrNull(next.ClockOut),
			next.UpdatedAt, next.ID); err != nil {
			return cur, err
		}
		if _, err := c.exec(ctx, `INSERT INTO attendance_corrections (attendance_id, org_id, user_id, user_email, corrected_at,
			old_clock_in, old_clock_out, new_clock_in, new_clock_out) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			next.ID, next.OrgID, e.By.ID, e.By.Email, next.UpdatedAt, cur.ClockIn.String(), offsetText(cur.ClockOut),
			next.ClockIn.String(), offsetText(next.ClockOut)); err != nil {
			return cur, err
		}
		if cur.ClockOut == nil && next.ClockOut != nil {
			return next, recordEvent(ctx, c, next.OrgID, next.LocationID, workshop.EventTechClockedOut, next.UpdatedAt, attendanceRow(next))
		}
		return next, nil
	})
}

// nearbyAttendance is the technician's other records that share time
// with in..out (out nil: open), which a correction must not overlap.
func nearbyAttendance(ctx context.Context, c conn, a workshop.Attendance, in workshop.OffsetTime, out *workshop.OffsetTime) ([]workshop.Attendance, error) {
	end := int64(math.MaxInt64)
	if out != nil {
		end = out.UnixMicro()
	}
	rows, err := c.query(ctx, `SELECT `+attendanceColumns+` FROM attendance WHERE tech_id = ? AND id <> ? AND clock_in_us < ?
		AND (clock_out_us IS NULL OR clock_out_us > ?)`, a.TechID, a.ID, end, in.UnixMicro())
	if err != nil {
		return nil, err
	}
	return collect(rows, scanAttendance)
}

func microsOrNull(t *workshop.OffsetTime) sql.NullInt64 {
	if t == nil {
		return sql.NullInt64{}
	}
	return sql.NullInt64{Int64: t.UnixMicro(), Valid: true}
}

// AttendanceCorrections is the history of a record's corrections, oldest
// first.
func (s *Store) AttendanceCorrections(ctx context.Context, v Visibility, id string) ([]workshop.AttendanceCorrection, error) {
	if _, err := s.AttendanceRecord(ctx, v, id); err != nil {
		return nil, err
	}
	rows, err := s.read().query(ctx, `SELECT attendance_id, user_id, user_email, corrected_at, old_clock_in, old_clock_out, new_clock_in, new_clock_out
		FROM attendance_corrections WHERE attendance_id = ? ORDER BY corrected_at`, id)
	if err != nil {
		return nil, err
	}
	return collect(rows, func(sc scanner) (workshop.AttendanceCorrection, error) {
		var cr workshop.AttendanceCorrection
		var oldIn, newIn string
		var oldOut, newOut sql.NullString
		if err := sc.Scan(&cr.AttendanceID, &cr.UserID, &cr.Email, &cr.At, &oldIn, &oldOut, &newIn, &newOut); err != nil {
			return cr, err
		}
		var err error
		if cr.OldIn, err = workshop.ParseOffsetTime(oldIn); err != nil {
			return cr, err
		}
		if cr.NewIn, err = workshop.ParseOffsetTime(newIn); err != nil {
			return cr, err
		}
		if cr.OldOut, err = offsetPtr(oldOut); err != nil {
			return cr, err
		}
		cr.NewOut, err = offsetPtr(newOut)
		return cr, err
	})
}
