package workshop

import (
	"time"
)

// PlanDays is how many local dates, today included, a plan's day may be
// asked for: the plan covers DispatchHorizon from now.
const PlanDays = 14

// PlanDay is local midnight of date (YYYY-MM-DD) in zone, a day of the plan
// made at now: from today to PlanDays-1 days after it, else a refusal on
// field "date". A date further out has nothing of the plan to show, and
// is refused rather than planned (contract section 8).
func PlanDay(date string, now time.Time, zone *time.Location) (time.Time, error) {
	return PlanDayOf("date", date, now, zone, true)
}

// PlanDayOf is PlanDay for the parameter field; without bounded, any
// date from today on.
func PlanDayOf(field, date string, now time.Time, zone *time.Location, bounded bool) (time.Time, error) {
	day, err := time.ParseInLocation(time.DateOnly, date, zone)
	if err != nil {
		return day, Invalid(field, "%s %s is not a date: send one like 2026-11-21.", field, date)
	}
	today := Today(now, zone)
	last := today.AddDate(0, 0, PlanDays-1)
	switch {
	case bounded && (day.Before(today) || day.After(last)):
		return day, Invalid(field, "%s %s is outside the plan: send a date from %s to %s.", field, date,
			today.Format(time.DateOnly), last.Format(time.DateOnly))
	case day.Before(today):
		return day, Invalid(field, "%s %s has passed: send today (%s) or a later date.", field, date, today.Format(time.DateOnly))
	}
	return day, nil
}

// Today is local midnight of now's date in zone.
func Today(now time.Time, zone *time.Location) time.Time {
	y, m, d := now.In(zone).Date()
	return time.Date(y, m, d, 0, 0, 0, 0, zone)
}

// StepsOn are the plan's steps whose planned time overlaps the local day
// that begins at day (local midnight): a day of the plan is a slice of it,
// so a step shows on every day it spans and on no other.
func (d Dispatch) StepsOn(day time.Time) []PlannedStep {
	y, m, dd := day.Date()
	next := time.Date(y, m, dd+1, 0, 0, 0, 0, day.Location())
	out := []PlannedStep{}
	for _, s := range d.Steps {
		if s.Start.Before(next) && s.End.After(day) {
			out = append(out, s)
		}
	}
	return out
}
