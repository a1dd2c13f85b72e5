package workshop

import (
	"testing"
	"time"
)

func TestDayBoundsAndClockedMinutes(t *testing.T) {
	t.Parallel()
	berlin, err := LoadZone("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	at := func(s string) OffsetTime {
		v, err := time.ParseInLocation("2006-01-02 15:04", s, berlin)
		if err != nil {
			t.Fatal(err)
		}
		return OffsetTime{v}
	}
	rec := func(in, out string) Attendance {
		a := Attendance{ClockIn: at(in)}
		if out != "" {
			o := at(out)
			a.ClockOut = &o
		}
		return a
	}
	tests := []struct {
		name    string
		date    string
		hours   float64 // the day's length
		records []Attendance
		now     string
		want    int
	}{
		{"an ordinary day", "2026-11-20", 24, []Attendance{rec("2026-11-20 08:00", "2026-11-20 12:30")}, "2026-11-20 20:00", 270},
		{"clocks forward: 00:30 to 04:30 is three hours", "2026-03-29", 23, []Attendance{rec("2026-03-29 00:30", "2026-03-29 04:30")}, "2026-03-29 20:00", 180},
		{"clocks back: 00:30 to 04:30 is five hours", "2026-10-25", 25, []Attendance{rec("2026-10-25 00:30", "2026-10-25 04:30")}, "2026-10-25 20:00", 300},
		{"a night shift counts within the day only", "2026-11-20", 24, []Attendance{rec("2026-11-19 22:00", "2026-11-20 02:00"),
			rec("2026-11-20 22:00", "2026-11-21 06:00")}, "2026-11-21 07:00", 240},
		{"an open record counts up to now", "2026-11-20", 24, []Attendance{rec("2026-11-20 08:00", "")}, "2026-11-20 09:15", 75},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			from, to, err := DayBounds(tt.date, berlin)
			if err != nil {
				t.Fatal(err)
			}
			if got := to.Sub(from).Hours(); got != tt.hours {
				t.Errorf("day length = %v hours, want %v", got, tt.hours)
			}
			if got := ClockedMinutes(tt.records, from, to, at(tt.now).Time); got != tt.want {
				t.Errorf("ClockedMinutes = %d, want %d", got, tt.want)
			}
		})
	}
	if _, _, err := DayBounds("2026-02-30", berlin); err == nil {
		t.Error("DayBounds of no date: no error")
	}
}

func TestJobCloseItem(t *testing.T) {
	t.Parallel()
	end := time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC)
	before, after := &OffsetTime{end.Add(-time.Hour)}, &OffsetTime{end.Add(time.Hour)}
	tests := []struct {
		status  string
		promise *OffsetTime
		want    CloseItemKind
	}{
		{JobBooked, before, CloseBookingMissed},
		{JobArrived, before, ClosePromiseMissed},
		{JobInProgress, before, ClosePromiseMissed},
		{JobWaiting, before, ClosePromiseMissed},
		{JobReady, before, ""},
		{JobDelivered, before, ""},
		{JobCancelled, before, ""},
		{JobArrived, after, ""},
		{JobBooked, nil, ""},
	}
	for _, tt := range tests {
		if got := JobCloseItem(Job{Status: tt.status, PromiseTime: tt.promise}, end); got != tt.want {
			t.Errorf("JobCloseItem(%s, promise %v) = %q, want %q", tt.status, tt.promise, got, tt.want)
		}
	}
}
