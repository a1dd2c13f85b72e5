package workshop

import (
	"slices"
	"testing"
	"time"
)

func berlin(t *testing.T) *time.Location {
	t.Helper()
	z, err := LoadZone("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	return z
}

// shift is a record of tech from in to out, local times in zone
// ("2006-01-02 15:04"; out "" is open).
func shift(t *testing.T, zone *time.Location, id, tech, in, out string) Attendance {
	t.Helper()
	at := func(s string) OffsetTime {
		v, err := time.ParseInLocation("2006-01-02 15:04", s, zone)
		if err != nil {
			t.Fatal(err)
		}
		return OffsetTime{v}
	}
	a := Attendance{ID: id, TechID: tech, ClockIn: at(in)}
	a.WorkDate = a.ClockIn.Format(time.DateOnly)
	if out != "" {
		o := at(out)
		a.ClockOut = &o
	}
	return a
}

// utc is an instant given in UTC ("2006-01-02 15:04").
func utc(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse("2006-01-02 15:04", s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestParsePeriod(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, kind, date     string
		from, to, prev, next string
		dates                int
		badField             string
	}{
		{name: "a day", kind: "day", date: "2026-03-29", from: "2026-03-29", to: "2026-03-29", prev: "2026-03-28", next: "2026-03-30", dates: 1},
		{name: "today by default", from: "2026-11-25", to: "2026-11-25", prev: "2026-11-24", next: "2026-11-26", dates: 1},
		{name: "a week from its Wednesday", kind: "week", date: "2026-11-25", from: "2026-11-23", to: "2026-11-29", prev: "2026-11-16", next: "2026-11-30", dates: 7},
		{name: "a week from its Monday", kind: "week", date: "2026-11-23", from: "2026-11-23", to: "2026-11-29", prev: "2026-11-16", next: "2026-11-30", dates: 7},
		{name: "a week from its Sunday", kind: "week", date: "2026-11-29", from: "2026-11-23", to: "2026-11-29", prev: "2026-11-16", next: "2026-11-30", dates: 7},
		{name: "a week across the year", kind: "week", date: "2027-01-01", from: "2026-12-28", to: "2027-01-03", prev: "2026-12-21", next: "2027-01-04", dates: 7},
		{name: "the week clocks go forward", kind: "week", date: "2026-03-29", from: "2026-03-23", to: "2026-03-29", prev: "2026-03-16", next: "2026-03-30", dates: 7},
		{name: "unknown period", kind: "month", date: "2026-11-25", badField: "period"},
		{name: "bad date", kind: "day", date: "25.11.2026", badField: "date"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := ParsePeriod(tc.kind, tc.date, "2026-11-25")
			if tc.badField != "" {
				var e *Error
				if ok := asError(err, &e); !ok || e.Field != tc.badField {
					t.Fatalf("got %v, want a validation error on %s", err, tc.badField)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := []string{p.FromDate(), p.ToDate(), p.Previous().FromDate(), p.Next().FromDate()}
			want := []string{tc.from, tc.to, tc.prev, tc.next}
			if !slices.Equal(got, want) || len(p.Dates()) != tc.dates {
				t.Errorf("from, to, previous, next = %v with %d dates; want %v with %d", got, len(p.Dates()), want, tc.dates)
			}
		})
	}
}

func asError(err error, e **Error) bool {
	v, ok := err.(*Error)
	*e = v
	return ok
}

func TestBuildTimesheet(t *testing.T) {
	t.Parallel()
	z := berlin(t)
	now := utc(t, "2026-11-25 12:00") // 13:00 in Berlin
	day := func(d string) Period { p, _ := ParsePeriod(PeriodDay, d, ""); return p }
	week := func(d string) Period { p, _ := ParsePeriod(PeriodWeek, d, ""); return p }
	for _, tc := range []struct {
		name    string
		period  Period
		records []Attendance
		techs   []string
		// want: minutes per technician (in order), per date, in all
		techMinutes []int
		dayMinutes  []int
		total       int
		open        bool
	}{
		{name: "an ordinary day", period: day("2026-11-24"),
			records:     []Attendance{shift(t, z, "a1", "tec_a", "2026-11-24 08:00", "2026-11-24 12:00"), shift(t, z, "a2", "tec_a", "2026-11-24 12:30", "2026-11-24 17:15")},
			techs:       []string{"tec_a"},
			techMinutes: []int{525}, dayMinutes: []int{525}, total: 525},
		{name: "clocks go forward: 00:30 to 04:30 is 3 hours", period: day("2026-03-29"),
			records:     []Attendance{shift(t, z, "a1", "tec_a", "2026-03-29 00:30", "2026-03-29 04:30")},
			techs:       []string{"tec_a"},
			techMinutes: []int{180}, dayMinutes: []int{180}, total: 180},
		{name: "clocks go back: 00:30 to 04:30 is 5 hours", period: day("2026-10-25"),
			records:     []Attendance{shift(t, z, "a1", "tec_a", "2026-10-25 00:30", "2026-10-25 04:30")},
			techs:       []string{"tec_a"},
			techMinutes: []int{300}, dayMinutes: []int{300}, total: 300},
		{name: "a night shift belongs to the day it began", period: week("2026-10-25"),
			records: []Attendance{shift(t, z, "a1", "tec_a", "2026-10-24 22:00", "2026-10-25 06:00"),
				shift(t, z, "a2", "tec_b", "2026-10-19 07:00", "2026-10-19 08:00")},
			techs:       []string{"tec_a", "tec_b"},
			techMinutes: []int{540, 60}, dayMinutes: []int{60, 0, 0, 0, 0, 540, 0}, total: 600},
		{name: "week boundaries: Sunday night in, the Monday after out", period: week("2026-11-18"),
			records: []Attendance{shift(t, z, "a0", "tec_a", "2026-11-15 23:00", "2026-11-16 01:00"), // the week before
				shift(t, z, "a1", "tec_a", "2026-11-16 00:00", "2026-11-16 01:00"),
				shift(t, z, "a2", "tec_a", "2026-11-22 23:00", "2026-11-23 02:00"),
				shift(t, z, "a3", "tec_a", "2026-11-23 00:00", "2026-11-23 01:00")}, // the week after
			techs:       []string{"tec_a"},
			techMinutes: []int{240}, dayMinutes: []int{60, 0, 0, 0, 0, 0, 180}, total: 240},
		{name: "an open record counts up to now", period: day("2026-11-25"),
			records:     []Attendance{shift(t, z, "a1", "tec_a", "2026-11-25 08:30", "")},
			techs:       []string{"tec_a", "tec_b"},
			techMinutes: []int{270, 0}, dayMinutes: []int{270}, total: 270, open: true},
		{name: "a removed technician's record follows the others", period: day("2026-11-24"),
			records:     []Attendance{shift(t, z, "a1", "tec_gone", "2026-11-24 08:00", "2026-11-24 09:00")},
			techs:       []string{"tec_a"},
			techMinutes: []int{0, 60}, dayMinutes: []int{60}, total: 60},
		{name: "seconds are dropped per record", period: day("2026-11-24"),
			records: []Attendance{
				{ID: "a1", TechID: "tec_a", WorkDate: "2026-11-24", ClockIn: OffsetTime{utc(t, "2026-11-24 08:00").Add(30 * time.Second)},
					ClockOut: &OffsetTime{utc(t, "2026-11-24 08:10")}}},
			techs:       []string{"tec_a"},
			techMinutes: []int{9}, dayMinutes: []int{9}, total: 9},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts := BuildTimesheet(tc.period, tc.techs, tc.records, now)
			var techMinutes []int
			for _, tech := range ts.Technicians {
				techMinutes = append(techMinutes, tech.Minutes)
			}
			if !slices.Equal(techMinutes, tc.techMinutes) {
				t.Errorf("technicians' minutes %v, want %v", techMinutes, tc.techMinutes)
			}
			if !slices.Equal(ts.DayMinutes, tc.dayMinutes) {
				t.Errorf("minutes per date %v, want %v", ts.DayMinutes, tc.dayMinutes)
			}
			if ts.Minutes != tc.total || ts.Open != tc.open {
				t.Errorf("total %d (open %v), want %d (open %v)", ts.Minutes, ts.Open, tc.total, tc.open)
			}
		})
	}
}

func TestCorrectAttendance(t *testing.T) {
	t.Parallel()
	z := berlin(t)
	now := MicrosOf(utc(t, "2026-11-25 12:00")) // 13:00 in Berlin
	at := func(s string) OffsetTime { return shift(t, z, "x", "tec_a", s, "").ClockIn }
	ptr := func(s string) *OffsetTime { o := at(s); return &o }
	closed := shift(t, z, "a1", "tec_a", "2026-11-24 08:00", "2026-11-24 12:00")
	closed.UpdatedAt = 100
	open := shift(t, z, "a2", "tec_a", "2026-11-25 08:00", "")
	open.UpdatedAt = 200
	others := []Attendance{
		shift(t, z, "b1", "tec_a", "2026-11-24 13:00", "2026-11-24 17:00"),
		shift(t, z, "b2", "tec_other", "2026-11-24 06:00", "2026-11-24 18:00"), // another technician's
	}
	for _, tc := range []struct {
		name     string
		rec      Attendance
		version  Micros
		in       OffsetTime
		out      *OffsetTime
		code     Code
		field    string
		changed  bool
		workDate string
	}{
		{name: "moved within the day", rec: closed, version: 100, in: at("2026-11-24 07:45"), out: ptr("2026-11-24 12:00"),
			changed: true, workDate: "2026-11-24"},
		{name: "touching the next record", rec: closed, version: 100, in: at("2026-11-24 08:00"), out: ptr("2026-11-24 13:00"),
			changed: true, workDate: "2026-11-24"},
		{name: "the clock-in moved to the day before", rec: closed, version: 100, in: at("2026-11-23 22:00"), out: ptr("2026-11-24 12:00"),
			changed: true, workDate: "2026-11-23"},
		{name: "unchanged", rec: closed, version: 100, in: at("2026-11-24 08:00"), out: ptr("2026-11-24 12:00")},
		{name: "an open record closed", rec: open, version: 200, in: at("2026-11-25 08:00"), out: ptr("2026-11-25 12:00"),
			changed: true, workDate: "2026-11-25"},
		{name: "an open record stays open", rec: open, version: 200, in: at("2026-11-25 07:30"), changed: true, workDate: "2026-11-25"},
		{name: "stale", rec: closed, version: 99, in: at("2026-11-24 07:45"), out: ptr("2026-11-24 12:00"), code: CodeStaleUpdatedAt, field: "updatedAt"},
		{name: "clock-out before clock-in", rec: closed, version: 100, in: at("2026-11-24 08:00"), out: ptr("2026-11-24 07:00"),
			code: CodeValidationFailed, field: "clockOut"},
		{name: "clock-in in the future", rec: open, version: 200, in: at("2026-11-25 13:30"), code: CodeValidationFailed, field: "clockIn"},
		{name: "clock-out in the future", rec: open, version: 200, in: at("2026-11-25 08:00"), out: ptr("2026-11-25 14:00"),
			code: CodeValidationFailed, field: "clockOut"},
		{name: "a closed record reopened", rec: closed, version: 100, in: at("2026-11-24 08:00"), code: CodeValidationFailed, field: "clockOut"},
		{name: "the clock-out overlaps the next record", rec: closed, version: 100, in: at("2026-11-24 08:00"), out: ptr("2026-11-24 13:30"),
			code: CodeValidationFailed, field: "clockOut"},
		{name: "the clock-in inside another record", rec: closed, version: 100, in: at("2026-11-24 14:00"), out: ptr("2026-11-24 16:00"),
			code: CodeValidationFailed, field: "clockIn"},
		{name: "an open record overlapping a later one", rec: open, version: 200, in: at("2026-11-24 16:00"),
			code: CodeValidationFailed, field: "clockIn"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, changed, err := CorrectAttendance(tc.rec, tc.version, tc.in, tc.out, others, now)
			if tc.code != "" {
				var e *Error
				if !asError(err, &e) || e.Code != tc.code || e.Field != tc.field {
					t.Fatalf("got %v, want %s on %s", err, tc.code, tc.field)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if changed != tc.changed {
				t.Fatalf("changed %v, want %v", changed, tc.changed)
			}
			if !changed {
				if got.UpdatedAt != tc.rec.UpdatedAt {
					t.Errorf("updatedAt moved to %v without a change", got.UpdatedAt)
				}
				return
			}
			if got.WorkDate != tc.workDate || got.UpdatedAt <= tc.rec.UpdatedAt || !got.ClockIn.Equal(tc.in.Time) || !sameInstant(got.ClockOut, tc.out) {
				t.Errorf("got %s %v–%v at %v; want work date %s, the new times and a later updatedAt", got.WorkDate, got.ClockIn, got.ClockOut,
					got.UpdatedAt, tc.workDate)
			}
		})
	}
}
