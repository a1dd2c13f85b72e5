package webapp

import (
	"fmt"
	"time"
)

// The application shows a length of time and an instant each in one way,
// on every page (issue 27): durations as h:mm, instants as weekday, day,
// month and time in the location's zone. Pages call these, never Format.

const (
	dateTimeLayout  = "Mon 2 Jan 15:04"
	clockTimeLayout = "15:04" // an instant on a day the page already names
)

// durationText is minutes as hours and minutes, h:mm ("0:05", "14:45",
// "-1:30").
func durationText(minutes int) string {
	sign := ""
	if minutes < 0 {
		sign, minutes = "-", -minutes
	}
	return fmt.Sprintf("%s%d:%02d", sign, minutes/60, minutes%60)
}

// dateTimeText is an instant in zone: "Thu 26 Nov 14:30".
func dateTimeText(t time.Time, zone *time.Location) string {
	return t.In(zone).Format(dateTimeLayout)
}

// clockText is the time of day of an instant in zone, for a page that
// already names the day ("14:30").
func clockText(t time.Time, zone *time.Location) string {
	return t.In(zone).Format(clockTimeLayout)
}

// sameDay tells whether two instants fall on the same local date in zone.
func sameDay(a, b time.Time, zone *time.Location) bool {
	return a.In(zone).Format(time.DateOnly) == b.In(zone).Format(time.DateOnly)
}
