package workshop

import (
	"testing"
	"time"
)

func TestDayBounds(t *testing.T) {
	t.Parallel()
	berlin, err := LoadZone("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		date  string
		hours float64
	}{{"2026-11-20", 24}, {"2026-03-29", 23}, {"2026-10-25", 25}} {
		from, to, err := DayBounds(tt.date, berlin)
		if err != nil {
			t.Fatal(err)
		}
		if got := to.Sub(from).Hours(); got != tt.hours || from.Format("15:04") != "00:00" {
			t.Errorf("DayBounds(%s) = %v .. %v (%v hours), want local midnight and %v hours", tt.date, from, to, got, tt.hours)
		}
	}
	if _, _, err := DayBounds("2026-02-30", berlin); err == nil {
		t.Error("DayBounds of no date: no error")
	}
}

// The jobs on a date's checklist: not ready by the date's end, and
// arrived (if at all) before it.
func TestCloseScopeJobItem(t *testing.T) {
	t.Parallel()
	scope, err := NewCloseScope(Calendar{Zone: time.UTC}, "2026-11-20", time.Date(2026, 11, 21, 7, 45, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	end := scope.End
	before, after := &OffsetTime{end.Add(-time.Hour)}, &OffsetTime{end.Add(time.Hour)}
	tests := []struct {
		status           string
		promise, arrival *OffsetTime
		want             CloseItemKind
	}{
		{JobBooked, before, nil, CloseBookingMissed},
		{JobArrived, before, before, ClosePromiseMissed},
		{JobInProgress, before, before, ClosePromiseMissed},
		{JobWaiting, before, nil, ClosePromiseMissed},
		{JobReady, before, before, ""},
		{JobDelivered, before, before, ""},
		{JobCancelled, before, nil, ""},
		{JobArrived, after, before, ""},
		{JobBooked, after, nil, ""},
		{JobBooked, nil, nil, ""},
		{JobArrived, before, after, ""},    // arrived the next morning: not the date's
		{JobInProgress, before, after, ""}, // and worked on since
	}
	for _, tt := range tests {
		if got := scope.JobItem(Job{Status: tt.status, PromiseTime: tt.promise, ArrivalTime: tt.arrival}); got != tt.want {
			t.Errorf("JobItem(%s, promise %v, arrival %v) = %q, want %q", tt.status, tt.promise, tt.arrival, got, tt.want)
		}
	}
}

// What a close of Friday the 20th holds, made on Friday evening or on
// Saturday morning, in a workshop open 08:00-17:30 on weekdays.
func TestCloseScope(t *testing.T) {
	t.Parallel()
	berlin, err := LoadZone("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	var weekdays Settings
	for _, d := range []string{"mon", "tue", "wed", "thu", "fri"} {
		weekdays.OperatingHours = append(weekdays.OperatingHours, OpeningHours{Day: d, Open: "08:00", Close: "17:30"})
	}
	cal := Calendar{Zone: berlin, Settings: weekdays}
	at := func(d, hh, mm int) time.Time { return time.Date(2026, 11, d, hh, mm, 0, 0, berlin) }
	for _, tc := range []struct {
		name                string
		date                string
		since, now          time.Time
		endOf               time.Time
		holds, completedNow bool
	}{
		{"closed in the evening: the closing time", "2026-11-20", at(20, 15, 30), at(20, 21, 3), at(20, 17, 30), true, true},
		{"closed the next morning: that day's closing time", "2026-11-20", at(20, 8, 0), at(21, 7, 45), at(20, 17, 30), true, false},
		{"closed before closing time: now", "2026-11-20", at(20, 15, 30), at(20, 16, 0), at(20, 16, 0), true, true},
		{"begun after closing time: now", "2026-11-20", at(20, 20, 27), at(20, 21, 3), at(20, 21, 3), true, true},
		{"begun after closing time, closed the next morning: the date's last minute", "2026-11-20", at(20, 20, 27), at(21, 7, 45),
			at(20, 23, 59), true, false},
		{"begun the next morning: not the date's", "2026-11-20", at(21, 5, 13), at(21, 7, 45), at(20, 23, 59), false, false},
		{"a date without working time: now", "2026-11-22", at(22, 10, 0), at(22, 21, 0), at(22, 21, 0), true, true},
	} {
		s, err := NewCloseScope(cal, tc.date, tc.now)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.EndOf(tc.since); !got.Equal(tc.endOf) {
			t.Errorf("%s: EndOf = %v, want %v", tc.name, got, tc.endOf)
		}
		if got := s.Holds(tc.since); got != tc.holds {
			t.Errorf("%s: Holds(since) = %v, want %v", tc.name, got, tc.holds)
		}
		if got := s.CompletedBy(tc.now); got != tc.completedNow {
			t.Errorf("%s: CompletedBy(now) = %v, want %v", tc.name, got, tc.completedNow)
		}
		if s.CompletedBy(tc.now.Add(time.Minute)) {
			t.Errorf("%s: CompletedBy(a minute from now) = true, want false", tc.name)
		}
	}
	if _, err := NewCloseScope(cal, "26/11/2026", at(26, 21, 3)); err == nil {
		t.Error("NewCloseScope of a date that does not parse: no error")
	}
}
