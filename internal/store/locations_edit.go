package store

import (
	"context"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// LocationEdit is a location's new name, time zone and currency (already
// validated), against the version (updatedAt) the edit was made from.
type LocationEdit struct {
	Name, Timezone, Currency string
	UpdatedAt                workshop.Micros
	// ZoneChangeConfirmed: the editor was told what a new time zone does to
	// a location that has jobs, and changes it all the same.
	ZoneChangeConfirmed bool
}

// EditLocation changes a location of an organisation. A new time zone for
// a location with jobs needs ZoneChangeConfirmed: it moves the local dates
// of its jobs, attendance and day close, and the year boundary of job
// numbers (numbers already given stay as they are).
func (s *Store) EditLocation(ctx context.Context, orgID, id string, e LocationEdit, now workshop.Micros) (workshop.Location, error) {
	return write(ctx, s, func(c conn) (workshop.Location, error) {
		l, err := scanLocation(c.queryRow(ctx, `SELECT `+locationColumns+` FROM locations WHERE id = ? AND org_id = ?`+s.forUpdate(), id, orgID))
		if err != nil {
			return l, notFoundOr(err, "location")
		}
		if err := workshop.CheckVersion("location", l.UpdatedAt, e.UpdatedAt); err != nil {
			return l, err
		}
		if !e.ZoneChangeConfirmed {
			if err := checkZoneChange(ctx, c, l, e.Timezone, "Tick the confirmation to change it."); err != nil {
				return l, err
			}
		}
		return editLocation(ctx, c, l, e, now)
	})
}

// checkZoneChange refuses a new time zone for a location that has jobs
// (how to change it all the same: howElse).
func checkZoneChange(ctx context.Context, c conn, l workshop.Location, timezone, howElse string) error {
	if timezone == l.Timezone {
		return nil
	}
	has, err := locationHasJobs(ctx, c, l.ID)
	if err != nil || !has {
		return err
	}
	return workshop.Invalid("timezone", "This location has jobs: a new time zone moves their local dates and "+
		"the year boundary of new job numbers. %s", howElse)
}

// editLocation writes a location's new name, time zone and currency; the
// same values change nothing.
func editLocation(ctx context.Context, c conn, l workshop.Location, e LocationEdit, now workshop.Micros) (workshop.Location, error) {
	if l.Name == e.Name && l.Timezone == e.Timezone && l.CurrencyCode == e.Currency {
		return l, nil
	}
	l.Name, l.Timezone, l.CurrencyCode = e.Name, e.Timezone, e.Currency
	l.UpdatedAt = workshop.NextMicros(now.Time(), l.UpdatedAt)
	_, err := c.exec(ctx, `UPDATE locations SET name = ?, timezone = ?, currency_code = ?, updated_at = ? WHERE id = ?`,
		l.Name, l.Timezone, l.CurrencyCode, l.UpdatedAt, l.ID)
	return l, err
}

// LocationHasJobs tells whether a location has any job, which a change of
// its time zone would affect.
func (s *Store) LocationHasJobs(ctx context.Context, id string) (bool, error) {
	return locationHasJobs(ctx, s.read(), id)
}

func locationHasJobs(ctx context.Context, c conn, id string) (bool, error) {
	var has bool
	err := c.queryRow(ctx, `SELECT EXISTS (SELECT 1 FROM jobs WHERE location_id = ?)`, id).Scan(&has)
	return has, err
}
