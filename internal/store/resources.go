package store

import (
	"context"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// CreateTechnician stores a new technician.
func (s *Store) CreateTechnician(ctx context.Context, t workshop.Technician) (workshop.Technician, error) {
	t, err := write(ctx, s, func(c conn) (workshop.Technician, error) { return t, insertTechnician(ctx, c, t) })
	if isUniqueViolation(err, "user") {
		return t, workshop.Invalid("user", "User %s already works as another technician.", t.UserID)
	}
	return t, err
}

func insertTechnician(ctx context.Context, c conn, t workshop.Technician) error {
	_, err := c.exec(ctx, `INSERT INTO technicians (id, org_id, location_id, name, skills, wip_limit, status, created_at, updated_at, user_id)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, t.ID, t.OrgID, t.LocationID, t.Name, jsonText(t.Skills), t.WIPLimit, t.Status, t.CreatedAt,
		t.UpdatedAt, nullString(t.UserID))
	return err
}

// DeleteTechnician removes a technician from every list and read. The row
// is kept (soft delete) so that past work stays attributed.
func (s *Store) DeleteTechnician(ctx context.Context, id string) error {
	return s.softDelete(ctx, "technicians", id, "technician")
}

// CreateBay stores a new bay.
func (s *Store) CreateBay(ctx context.Context, b workshop.Bay) (workshop.Bay, error) {
	return write(ctx, s, func(c conn) (workshop.Bay, error) { return b, insertBay(ctx, c, b) })
}

func insertBay(ctx context.Context, c conn, b workshop.Bay) error {
	_, err := c.exec(ctx, `INSERT INTO bays (id, org_id, location_id, name, equipment, services, status, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, b.ID, b.OrgID, b.LocationID, b.Name, jsonText(b.Equipment), jsonText(b.Services), b.Status, b.CreatedAt, b.UpdatedAt)
	return err
}

// DeleteBay removes a bay from every list and read (soft delete, as technicians).
func (s *Store) DeleteBay(ctx context.Context, id string) error {
	return s.softDelete(ctx, "bays", id, "bay")
}

// softDelete marks a row of table deleted; table is one of this package's
// constant names, never input.
func (s *Store) softDelete(ctx context.Context, table, id, what string) error {
	_, err := write(ctx, s, func(c conn) (struct{}, error) { return struct{}{}, markDeleted(ctx, c, table, id, what) })
	return err
}

// markDeleted is softDelete in the caller's transaction.
func markDeleted(ctx context.Context, c conn, table, id, what string) error {
	now := workshop.MicrosOf(c.s.now())
	res, err := c.exec(ctx, `UPDATE `+table+` SET deleted_at = ?, updated_at = ? WHERE id = ? AND deleted_at IS NULL`, now, now, id)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return workshop.NotFound(what)
	}
	return nil
}

// SetCancelTags replaces a location's governed list of cancel reason tags.
func (s *Store) SetCancelTags(ctx context.Context, locationID string, tags []workshop.CancelTag) ([]workshop.CancelTag, error) {
	return write(ctx, s, func(c conn) ([]workshop.CancelTag, error) { return tags, replaceCancelTags(ctx, c, locationID, tags) })
}

func replaceCancelTags(ctx context.Context, c conn, locationID string, tags []workshop.CancelTag) error {
	if _, err := c.exec(ctx, `DELETE FROM cancel_tags WHERE location_id = ?`, locationID); err != nil {
		return err
	}
	for i, t := range tags {
		if _, err := c.exec(ctx, `INSERT INTO cancel_tags (location_id, tag, label, position) VALUES (?, ?, ?, ?)`,
			locationID, t.Tag, t.Label, i); err != nil {
			return err
		}
	}
	return nil
}

// CancelTags lists a location's cancel reason tags in their set order.
func (s *Store) CancelTags(ctx context.Context, locationID string) ([]workshop.CancelTag, error) {
	rows, err := s.read().query(ctx, `SELECT tag, label FROM cancel_tags WHERE location_id = ? ORDER BY position`, locationID)
	if err != nil {
		return nil, err
	}
	return collect(rows, func(sc scanner) (workshop.CancelTag, error) {
		var t workshop.CancelTag
		err := sc.Scan(&t.Tag, &t.Label)
		return t, err
	})
}

func putSettings(ctx context.Context, c conn, locationID string, st workshop.Settings) error {
	_, err := c.exec(ctx, `INSERT INTO workshop_settings (location_id, operating_hours, breaks, bay_buffer_minutes, updated_at)
		VALUES (?, ?, ?, ?, ?) ON CONFLICT (location_id) DO UPDATE SET operating_hours = excluded.operating_hours,
		breaks = excluded.breaks, bay_buffer_minutes = excluded.bay_buffer_minutes, updated_at = excluded.updated_at`,
		locationID, jsonText(st.OperatingHours), jsonText(st.Breaks), st.BayBufferMinutes, workshop.MicrosOf(c.s.now()))
	return err
}

// StartDayClose puts a location mid-close: job and step writes there are
// refused until FinishDayClose.
func (s *Store) StartDayClose(ctx context.Context, locationID string) (workshop.DayState, error) {
	return write(ctx, s, func(c conn) (workshop.DayState, error) {
		res, err := c.exec(ctx, `UPDATE locations SET day_state = ? WHERE id = ?`, workshop.DayClosing, locationID)
		if err != nil {
			return workshop.DayState{}, err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return workshop.DayState{}, workshop.NotFound("location")
		}
		return workshop.DayState{LocationID: locationID, State: workshop.DayClosing}, nil
	})
}

// FinishDayClose reopens a location and records the closed local date.
func (s *Store) FinishDayClose(ctx context.Context, locationID, closedDate string) (workshop.DayState, error) {
	return write(ctx, s, func(c conn) (workshop.DayState, error) {
		res, err := c.exec(ctx, `UPDATE locations SET day_state = ?, closed_date = ? WHERE id = ?`, workshop.DayOpen, closedDate, locationID)
		if err != nil {
			return workshop.DayState{}, err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return workshop.DayState{}, workshop.NotFound("location")
		}
		return workshop.DayState{LocationID: locationID, State: workshop.DayOpen, ClosedDate: closedDate}, nil
	})
}
