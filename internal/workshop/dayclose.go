package workshop

import (
	"fmt"
	"slices"
	"time"
)

// DayClose is one close of a location's day (contract section 7): from
// its start until its finish, job and step writes at the location are
// refused (day_close_in_progress) except the close's own.
type DayClose struct {
	ID           string
	OrgID        string
	LocationID   string
	BusinessDate string // the local date being closed, YYYY-MM-DD
	StartedAt    Micros
	StartedBy    string // user id; "" for an operator command
	FinishedAt   *Micros
	FinishedBy   string
	Summary      *DaySummary // set at the finish
}

// Finished tells whether the close is over.
func (d DayClose) Finished() bool { return d.FinishedAt != nil }

// DaySummary is what a closed day came to.
type DaySummary struct {
	JobsDelivered    int `json:"jobsDelivered"`
	StepsCompleted   int `json:"stepsCompleted"`
	MinutesClocked   int `json:"minutesClocked"`
	MinutesEstimated int `json:"minutesEstimated"` // of the steps completed that day
	CarriedOver      int `json:"carriedOver"`
}

// CloseItemKind is what an open item of a close's checklist is.
type CloseItemKind string

// The kinds of open item, in the checklist's order.
const (
	CloseStepInProgress CloseItemKind = "step"       // a step still in progress
	CloseClockedIn      CloseItemKind = "attendance" // a technician still clocked in
	ClosePromiseMissed  CloseItemKind = "promise"    // a job promised by the day's end that is not ready
	CloseBookingMissed  CloseItemKind = "booking"    // a booking promised by the day's end that did not arrive
)

// CloseItemKinds lists the kinds in the checklist's order.
var CloseItemKinds = []CloseItemKind{CloseStepInProgress, CloseClockedIn, ClosePromiseMissed, CloseBookingMissed}

// Valid tells whether k is a known kind.
func (k CloseItemKind) Valid() bool { return slices.Contains(CloseItemKinds, k) }

// JobCloseItem is the place of an open job on the checklist of a day that
// ends at dayEnd: a job promised before then that is not ready is a missed
// promise, or a missed booking when it never arrived; anything else ("")
// needs no decision. A job without a promise has no day to miss.
func JobCloseItem(j Job, dayEnd time.Time) CloseItemKind {
	if !Late(j.Status, j.PromiseTime, dayEnd) {
		return ""
	}
	if j.Status == JobBooked {
		return CloseBookingMissed
	}
	return ClosePromiseMissed
}

// DayBounds are the instants a local date spans in zone: from its first
// local midnight to the next, 23 or 25 hours on the days the clocks change.
func DayBounds(date string, zone *time.Location) (start, end time.Time, err error) {
	d, err := time.ParseInLocation(time.DateOnly, date, zone)
	if err != nil {
		return start, end, fmt.Errorf("day %q: %w", date, err)
	}
	return d, time.Date(d.Year(), d.Month(), d.Day()+1, 0, 0, 0, 0, zone), nil
}

// CloseDays are the local dates a close may be started for at an instant:
// today, and the last working day before it while that day is not closed.
type CloseDays struct {
	Today  string
	Before string // "" when it is closed
	// BeforeFirst: offer Before first, because today's work has not begun
	// (before the opening, or all day on a day without working time): the
	// close made the morning after, for work left open the evening before,
	// is the common one.
	BeforeFirst bool
}

// Offered lists the days in the order they are offered.
func (d CloseDays) Offered() []string {
	switch {
	case d.Before == "":
		return []string{d.Today}
	case d.BeforeFirst:
		return []string{d.Before, d.Today}
	}
	return []string{d.Today, d.Before}
}

// DaysToClose are the days a close may be started for at now; closed
// tells whether a date's close has finished.
func DaysToClose(cal Calendar, now time.Time, closed func(date string) (bool, error)) (CloseDays, error) {
	zone := cal.zone()
	local := now.In(zone)
	midnight := time.Date(local.Year(), local.Month(), local.Day(), 0, 0, 0, 0, zone)
	days := CloseDays{Today: local.Format(time.DateOnly)}
	before := cal.SubtractWork(midnight, time.Nanosecond).Format(time.DateOnly)
	shut, err := closed(before)
	if err != nil || shut {
		return days, err
	}
	days.Before = before
	opening := cal.NextOpen(midnight)
	days.BeforeFirst = opening.Format(time.DateOnly) != days.Today || now.Before(opening)
	return days, nil
}
