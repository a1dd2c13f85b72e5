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

// CloseScope is what the close of one local date concerns, seen at the
// instant Now the close is made (contract section 7: the close of a date
// concerns that date only). What began after the date ended (a step
// started, a clock-in, an arrival) is not the date's; work the date left
// open counts up to the time the close records for it. A close made the
// morning after, once the next day's work has begun, sees the date as it
// was.
type CloseScope struct {
	Date       string
	Start, End time.Time // the date's local midnights: it is [Start, End)
	Now        time.Time
	closing    time.Time // the date's closing time; zero on a date without working time
}

// NewCloseScope is the scope of the close of date on the location's
// calendar, at now.
func NewCloseScope(cal Calendar, date string, now time.Time) (CloseScope, error) {
	start, end, err := DayBounds(date, cal.zone())
	if err != nil {
		return CloseScope{}, err
	}
	s := CloseScope{Date: date, Start: start, End: end, Now: now}
	if closing, working := cal.ClosingTime(start.Year(), start.Month(), start.Day()); working {
		s.closing = closing
	}
	return s, nil
}

// Holds tells whether what began at t is the date's: it began before the
// date ended.
func (s CloseScope) Holds(t time.Time) bool { return t.Before(s.End) }

// Latest is the latest time the close records: now, or the date's last
// minute once the date is over (a form's times are to the minute).
func (s CloseScope) Latest() time.Time { return Earlier(s.Now, s.End.Add(-time.Minute)) }

// EndOf is when work begun at since and still open most likely ended, as
// the checklist offers it first (as the person closing would guess) and
// as the summary counts it until a decision records another time: the
// date's closing time when the work began before it and the close is made
// after it, since the work stopped when the workshop closed; otherwise
// the latest time the close records.
func (s CloseScope) EndOf(since time.Time) time.Time {
	if !s.closing.IsZero() && since.Before(s.closing) && s.Now.After(s.closing) {
		return s.closing
	}
	return s.Latest()
}

// CompletedBy tells whether a step the close completes may end at t: not
// after now, and within the date, whose summary counts it. A step that
// went on into the next day is that day's to complete: the close carries
// it over.
func (s CloseScope) CompletedBy(t time.Time) bool { return !t.After(s.Now) && s.Holds(t) }

// JobItem is the place of an open job on the date's checklist: a booking
// expected by the date's end (Job.ExpectedAt) that has not arrived is a
// missed booking, a job promised by then that is not ready a missed
// promise; anything else ("") needs no decision. A job that arrived after
// the date ended is not the date's, whatever its promise, and a job
// without a promise has no day to miss.
func (s CloseScope) JobItem(j Job) CloseItemKind {
	switch {
	case j.ArrivalTime != nil && !s.Holds(j.ArrivalTime.Time):
		return ""
	case j.Status == JobBooked:
		if Late(j.Status, j.ExpectedAt(), s.End) {
			return CloseBookingMissed
		}
		return ""
	case Late(j.Status, j.PromiseTime, s.End):
		return ClosePromiseMissed
	}
	return ""
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
