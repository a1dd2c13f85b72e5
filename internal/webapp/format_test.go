package webapp

import (
	"testing"
	"time"
)

func TestDurationText(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		minutes int
		want    string
	}{{0, "0:00"}, {5, "0:05"}, {180, "3:00"}, {885, "14:45"}, {6000, "100:00"}, {-90, "-1:30"}} {
		if got := durationText(tc.minutes); got != tc.want {
			t.Errorf("durationText(%d) = %q, want %q", tc.minutes, got, tc.want)
		}
	}
}

func TestDateTimeText(t *testing.T) {
	t.Parallel()
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 26, 13, 30, 0, 0, time.UTC)
	if got, want := dateTimeText(at, berlin), "Thu 26 Nov 14:30"; got != want {
		t.Errorf("dateTimeText(%v, Berlin) = %q, want %q", at, got, want)
	}
	if got, want := clockText(at, berlin), "14:30"; got != want {
		t.Errorf("clockText(%v, Berlin) = %q, want %q", at, got, want)
	}
}
