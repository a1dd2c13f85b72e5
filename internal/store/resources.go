package store

import (
	"cmp"
	"context"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// CreateTechnician stores a new technician.
func (s *Store) CreateTechnician(ctx context.Context, t workshop.Technician) (workshop.Technician, error) {
	if err := workshop.CheckTechnician(t); err != nil {
		return t, err
	}
	t, err := write(ctx, s, func(c conn) (workshop.Technician, error) { return t, insertTechnician(ctx, c, t) })
	if isUniqueViolation(err, "user") {
		return t, s.userWorksAlready(ctx, t.UserID)
	}
	return t, err
}

// userWorksAlready is the refusal of a user for a technician when another
// technician works as them, naming both.
func (s *Store) userWorksAlready(ctx context.Context, userID string) error {
	var email, name string
	err := s.read().queryRow(ctx, `SELECT u.email, t.name FROM users u JOIN technicians t ON t.user_id = u.id WHERE u.id = ?`,
		userID).Scan(&email, &name)
	if err != nil { // gone meanwhile: the refusal without the names
		return workshop.Invalid("user", "This user already works as another technician.")
	}
	return workshop.Invalid("user", "%s already works as the technician %s.", email, name)
}

func insertTechnician(ctx context.Context, c conn, t workshop.Technician) error {
	_, err := c.exec(ctx, `INSERT INTO technicians (id, org_id, location_id, name, skills, wip_limit, status, created_at, updated_at, user_id, working_hours)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, t.ID, t.OrgID, t.LocationID, t.Name, jsonText(t.Skills), t.WIPLimit, t.Status, t.CreatedAt,
		t.UpdatedAt, nullString(t.UserID), hoursText(t.WorkingHours))
	return err
}

// DeleteTechnician removes a technician from every list and read. The row
// is kept (soft delete) so that past work stays attributed.
func (s *Store) DeleteTechnician(ctx context.Context, id string) error {
	return s.softDelete(ctx, "technicians", id, "technician")
}

// CreateBay stores a new bay.
func (s *Store) CreateBay(ctx context.Context, b workshop.Bay) (workshop.Bay, error) {
	if err := workshop.CheckBay(b); err != nil {
		return b, err
	}
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

// SetCancelTags replaces a location's governed list of cancel reason
// tags (workshop admin cancel-tags set): the tags given, in their order,
// are the active ones; any other is retired.
func (s *Store) SetCancelTags(ctx context.Context, locationID string, tags []workshop.CancelTag) ([]workshop.CancelTag, error) {
	return write(ctx, s, func(c conn) ([]workshop.CancelTag, error) { return tags, replaceCancelTags(ctx, c, locationID, tags) })
}

func replaceCancelTags(ctx context.Context, c conn, locationID string, tags []workshop.CancelTag) error {
	if _, err := c.exec(ctx, `UPDATE cancel_tags SET retired_at = COALESCE(retired_at, ?) WHERE location_id = ?`,
		workshop.MicrosOf(c.s.now()), locationID); err != nil {
		return err
	}
	for i, t := range tags {
		if err := upsertCancelTag(ctx, c, locationID, t, i); err != nil {
			return err
		}
	}
	return nil
}

// upsertCancelTag makes a tag active at position with its label, a retired
// one reinstated.
func upsertCancelTag(ctx context.Context, c conn, locationID string, t workshop.CancelTag, position int) error {
	_, err := c.exec(ctx, `INSERT INTO cancel_tags (location_id, tag, label, position) VALUES (?, ?, ?, ?)
		ON CONFLICT (location_id, tag) DO UPDATE SET label = excluded.label, position = excluded.position, retired_at = NULL`,
		locationID, t.Tag, t.Label, position)
	return err
}

// PutCancelTag adds a tag after the location's others, or relabels one;
// a retired tag put again is reinstated.
func (s *Store) PutCancelTag(ctx context.Context, locationID string, t workshop.CancelTag) error {
	_, err := write(ctx, s, func(c conn) (struct{}, error) {
		var pos int
		err := c.queryRow(ctx, `SELECT COALESCE((SELECT position FROM cancel_tags WHERE location_id = ? AND tag = ?),
			(SELECT COALESCE(MAX(position), -1) + 1 FROM cancel_tags WHERE location_id = ?))`, locationID, t.Tag, locationID).Scan(&pos)
		if err != nil {
			return struct{}{}, err
		}
		return struct{}{}, upsertCancelTag(ctx, c, locationID, t, pos)
	})
	return err
}

// RetireCancelTag retires a location's active tag: no cancel may use it
// from now on, and the jobs cancelled with it keep its label.
func (s *Store) RetireCancelTag(ctx context.Context, locationID, tag string) error {
	_, err := write(ctx, s, func(c conn) (struct{}, error) {
		res, err := c.exec(ctx, `UPDATE cancel_tags SET retired_at = ? WHERE location_id = ? AND tag = ? AND retired_at IS NULL`,
			workshop.MicrosOf(s.now()), locationID, tag)
		if err != nil {
			return struct{}{}, err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return struct{}{}, workshop.NotFound("cancel reason tag")
		}
		return struct{}{}, nil
	})
	return err
}

// CancelTags lists a location's active cancel reason tags in their set
// order: the reasons a cancel may give.
func (s *Store) CancelTags(ctx context.Context, locationID string) ([]workshop.CancelTag, error) {
	return s.cancelTags(ctx, locationID, `AND retired_at IS NULL`)
}

// CancelTagsWithRetired lists every tag the location ever had, the active
// ones first in their order: to label cancelled jobs and to manage tags.
func (s *Store) CancelTagsWithRetired(ctx context.Context, locationID string) ([]workshop.CancelTag, error) {
	return s.cancelTags(ctx, locationID, ``)
}

func (s *Store) cancelTags(ctx context.Context, locationID, only string) ([]workshop.CancelTag, error) {
	rows, err := s.read().query(ctx, `SELECT tag, label, retired_at IS NOT NULL FROM cancel_tags WHERE location_id = ? `+only+`
		ORDER BY retired_at IS NOT NULL, position, tag`, locationID)
	if err != nil {
		return nil, err
	}
	return collect(rows, func(sc scanner) (workshop.CancelTag, error) {
		var t workshop.CancelTag
		err := sc.Scan(&t.Tag, &t.Label, &t.Retired)
		return t, err
	})
}

func putSettings(ctx context.Context, c conn, locationID string, st workshop.Settings) error {
	_, err := c.exec(ctx, `INSERT INTO workshop_settings (location_id, operating_hours, breaks, bay_buffer_minutes, planning_durations,
		promise_confidence, customer_data_retention_days, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (location_id) DO UPDATE SET operating_hours = excluded.operating_hours,
		breaks = excluded.breaks, bay_buffer_minutes = excluded.bay_buffer_minutes, planning_durations = excluded.planning_durations,
		promise_confidence = excluded.promise_confidence, customer_data_retention_days = excluded.customer_data_retention_days,
		updated_at = excluded.updated_at`,
		locationID, jsonText(st.OperatingHours), jsonText(st.Breaks), st.BayBufferMinutes, cmp.Or(st.PlanningDurations, workshop.PlanWithEstimate),
		cmp.Or(st.PromiseConfidence, workshop.DefaultPromiseConfidence), st.CustomerDataRetentionDays, workshop.MicrosOf(c.s.now()))
	return err
}
