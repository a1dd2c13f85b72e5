package workshop

import (
	"testing"
	"time"
)

func TestWorkingHoursText(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in, want string
		nilList  bool
		bad      bool
	}{
		{in: "", want: "", nilList: true},
		{in: "none", want: ""},
		{in: "mon-fri 08:00-13:00", want: "mon-fri 08:00-13:00"},
		{in: "sat 09:00-12:00, mon 08:00-10:00; mon 14:00-16:00\ntue 08:00-10:00", want: "mon 08:00-10:00, mon 14:00-16:00, tue 08:00-10:00, sat 09:00-12:00"},
		{in: "mon-wed 08:00-12:00, fri 08:00-12:00", want: "mon-wed 08:00-12:00, fri 08:00-12:00"},
		{in: "mornings", bad: true},
		{in: "fri-mon 08:00-12:00", bad: true},
		{in: "mon 12:00-08:00", bad: true},
		{in: "mon 8:00-12:00", bad: true},
	} {
		got, err := ParseWorkingHoursText(tc.in)
		switch {
		case tc.bad:
			if ErrorCode(err) != CodeValidationFailed {
				t.Errorf("ParseWorkingHoursText(%q): %v, want a validation error", tc.in, err)
			}
		case err != nil || FormatWorkingHours(got) != tc.want || (got == nil) != tc.nilList:
			t.Errorf("ParseWorkingHoursText(%q) = %v (nil %v), %v; want %q (nil %v)", tc.in, got, got == nil, err, tc.want, tc.nilList)
		}
	}
}

func TestCheckAbsence(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 12, 14, 0, 0, 0, 0, time.FixedZone("", 3600))
	for _, tc := range []struct {
		name   string
		a      Absence
		field  string
		passes bool
	}{
		{"fine", Absence{Start: start, End: start.Add(time.Hour), Reason: "sickness"}, "", true},
		{"366 days", Absence{Start: start, End: start.AddDate(0, 0, 366), Reason: "other"}, "", true},
		{"367 days", Absence{Start: start, End: start.AddDate(0, 0, 367), Reason: "other"}, "end", false},
		{"end first", Absence{Start: start, End: start.Add(-time.Minute), Reason: "other"}, "end", false},
		{"bad reason", Absence{Start: start, End: start.Add(time.Hour), Reason: "holiday"}, "reason", false},
	} {
		err := CheckAbsence(tc.a)
		if tc.passes != (err == nil) {
			t.Errorf("%s: got %v, want passes %v", tc.name, err, tc.passes)
		}
		if e, ok := err.(*Error); ok && e.Field != tc.field {
			t.Errorf("%s: field %q, want %q", tc.name, e.Field, tc.field)
		}
	}
}
