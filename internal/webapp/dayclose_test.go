package webapp

import (
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// TestEndedAt: the checklist offers the day's closing time as when open
// work ended when it began before closing and the close is made after it,
// and now otherwise.
func TestEndedAt(t *testing.T) {
	t.Parallel()
	berlin, err := workshop.LoadZone("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	var weekdays workshop.Settings
	for _, d := range []string{"mon", "tue", "wed", "thu", "fri"} {
		weekdays.OperatingHours = append(weekdays.OperatingHours, workshop.OpeningHours{Day: d, Open: "08:00", Close: "17:30"})
	}
	cal := workshop.NewCalendar(berlin, weekdays)
	at := func(d, hh, mm int) time.Time { return time.Date(2026, 11, d, hh, mm, 0, 0, berlin) }
	for _, tc := range []struct {
		name       string
		date       string
		since, now time.Time
		want       time.Time
	}{
		{"closed in the evening: the closing time", "2026-11-26", at(26, 15, 30), at(26, 21, 3), at(26, 17, 30)},
		{"closed the next morning: that day's closing time", "2026-11-26", at(26, 8, 0), at(27, 7, 45), at(26, 17, 30)},
		{"closed before closing time: now", "2026-11-26", at(26, 15, 30), at(26, 16, 0), at(26, 16, 0)},
		{"begun after closing time: now", "2026-11-26", at(26, 20, 27), at(26, 21, 3), at(26, 21, 3)},
		{"a day without working time: now", "2026-11-29", at(29, 10, 0), at(29, 21, 0), at(29, 21, 0)},
		{"a date that does not parse: now", "26/11/2026", at(26, 15, 30), at(26, 21, 3), at(26, 21, 3)},
	} {
		if got := endedAt(cal, tc.date, tc.now)(tc.since); !got.Equal(tc.want) {
			t.Errorf("%s: endedAt = %v, want %v", tc.name, got, tc.want)
		}
	}
}
