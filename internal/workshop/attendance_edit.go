package workshop

import "time"

// AttendanceCorrection is one correction of an attendance record, kept
// as its history: who made it, when (the record's new updatedAt), and the
// clock-in and clock-out before and after.
type AttendanceCorrection struct {
	AttendanceID   string
	UserID, Email  string
	At             Micros
	OldIn, NewIn   OffsetTime
	OldOut, NewOut *OffsetTime
}

// correctionLayout is how a correction names another record's times.
const correctionLayout = "Mon 2 Jan 15:04"

// CorrectAttendance decides the correction of record a, read at version
// expected, to clock-in in and clock-out out (nil: the record stays
// open), at now. others are the technician's other records that might
// overlap it. It refuses a stale version, a time in the future, a
// clock-out before the clock-in, reopening a closed record and an overlap
// with another record; changed is false when the times are the same.
func CorrectAttendance(a Attendance, expected Micros, in OffsetTime, out *OffsetTime, others []Attendance, now Micros) (
	corrected Attendance, changed bool, err error) {
	if err := CheckVersion("attendance record", a.UpdatedAt, expected); err != nil {
		return a, false, err
	}
	var v Validation
	if in.After(now.Time()) {
		v.Add("clockIn", "The clock-in cannot be in the future.")
	}
	switch {
	case out == nil && a.ClockOut != nil:
		v.Add("clockOut", "Enter the clock-out: a record that was clocked out cannot be reopened.")
	case out != nil && out.After(now.Time()):
		v.Add("clockOut", "The clock-out cannot be in the future.")
	case out != nil:
		if err := checkClockOut("clockOut", in, *out); err != nil {
			return a, false, err
		}
	}
	if err := v.Err(); err != nil {
		return a, false, err
	}
	for _, o := range others {
		if o.ID == a.ID || o.TechID != a.TechID || !overlaps(in, out, o) {
			continue
		}
		field := "clockIn"
		if in.Before(o.ClockIn.Time) {
			field = "clockOut"
		}
		span := o.ClockIn.Format(correctionLayout) + " – "
		if o.ClockOut != nil {
			span += o.ClockOut.Format(correctionLayout)
		} else {
			span += "now (still clocked in)"
		}
		return a, false, Invalid(field, "This overlaps the technician's record %s.", span)
	}
	if in.Equal(a.ClockIn.Time) && sameInstant(out, a.ClockOut) {
		return a, false, nil
	}
	a.ClockIn, a.ClockOut = in, out
	a.WorkDate = in.Format(time.DateOnly)
	a.UpdatedAt = NextMicros(now.Time(), a.UpdatedAt)
	return a, true, nil
}

// overlaps tells whether in..out (out nil: open) shares time with record
// o; records that only touch (one ends as the other begins) do not.
func overlaps(in OffsetTime, out *OffsetTime, o Attendance) bool {
	endsAfterOther := out == nil || out.After(o.ClockIn.Time)
	startsBeforeOtherEnds := o.ClockOut == nil || in.Before(o.ClockOut.Time)
	return endsAfterOther && startsBeforeOtherEnds
}

func sameInstant(a, b *OffsetTime) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Equal(b.Time)
}
