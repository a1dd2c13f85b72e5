package workshop

import (
	"slices"
	"time"
)

// Attendance is one clock-in (and its clock-out) of a technician, in the
// location's local time: ClockIn and ClockOut carry the location's UTC
// offset at that instant, WorkDate is the local date of the clock-in (a
// shift over midnight belongs to the day it began).
type Attendance struct {
	ID         string
	OrgID      string
	LocationID string
	TechID     string
	WorkDate   string
	ClockIn    OffsetTime
	ClockOut   *OffsetTime
	CreatedAt  Micros
	UpdatedAt  Micros
}

// LocalTime is t in zone, to the microsecond: how the server records a
// workshop-local time.
func LocalTime(t time.Time, zone *time.Location) OffsetTime {
	return OffsetTime{Time: t.Truncate(time.Microsecond).In(zone)}
}

// CatalogItem is a standard service of a location, identified by its code.
type CatalogItem struct {
	ID                string
	OrgID             string
	LocationID        string
	ServiceCode       string
	Name              string
	EstimatedDuration int // minutes
	RequiredSkills    []string
	IsActive          bool
	CreatedAt         Micros
	UpdatedAt         Micros
	// DurationStats is what the location's history says the service takes
	// (contract section 9): computed, never stored with the item.
	DurationStats DurationStats
}

// ClockOut decides the clock-out of open record a at out (the location's
// local time), given to unit (0: exact; see StepPatch.Precision), at now:
// a clock-out before the clock-in is refused, but one given in the
// clock-in's minute is the clock-in.
func ClockOut(a Attendance, out OffsetTime, unit time.Duration, now Micros) (Attendance, error) {
	out.Time = raiseWithin(out.Time, a.ClockIn.Time, unit)
	if err := checkClockOut("at", a.ClockIn, out); err != nil {
		return a, err
	}
	a.ClockOut, a.UpdatedAt = &out, NextMicros(now.Time(), a.UpdatedAt)
	return a, nil
}

// checkClockOut refuses a clock-out (the form's field) before the clock-in.
func checkClockOut(field string, in, out OffsetTime) error {
	if out.Before(in.Time) {
		return Invalid(field, "The clock-out %s is before the clock-in %s.", out, in)
	}
	return nil
}

// SyncCatalogItem decides a catalog sync of item in over the stored cur:
// cur updated to in's name, duration, skills and state (its updatedAt
// moved on from in's), and whether anything changed.
func SyncCatalogItem(cur, in CatalogItem) (CatalogItem, bool) {
	if cur.Name == in.Name && cur.EstimatedDuration == in.EstimatedDuration && slices.Equal(cur.RequiredSkills, in.RequiredSkills) &&
		cur.IsActive == in.IsActive {
		return cur, false
	}
	cur.Name, cur.EstimatedDuration, cur.RequiredSkills, cur.IsActive = in.Name, in.EstimatedDuration, in.RequiredSkills, in.IsActive
	cur.UpdatedAt = NextMicros(in.UpdatedAt.Time(), cur.UpdatedAt)
	return cur, true
}
