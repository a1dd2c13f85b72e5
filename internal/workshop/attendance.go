package workshop

import "time"

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
}
