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
