package store

import (
	"context"
	"database/sql"
	"errors"

	"github.com/workshop-platform/workshop/internal/workshop"
)

const catalogColumns = `c.id, c.org_id, c.location_id, c.service_code, c.name, c.estimated_duration, c.required_skills, c.is_active,
	c.created_at, c.updated_at`

func scanCatalogItem(sc scanner) (workshop.CatalogItem, error) {
	var it workshop.CatalogItem
	err := sc.Scan(&it.ID, &it.OrgID, &it.LocationID, &it.ServiceCode, &it.Name, &it.EstimatedDuration,
		jsonList[[]string]{&it.RequiredSkills}, &it.IsActive, &it.CreatedAt, &it.UpdatedAt)
	return it, err
}

// CatalogItems lists the catalog items the caller sees, by (createdAt, id).
func (s *Store) CatalogItems(ctx context.Context, v Visibility, p workshop.PageRequest) (workshop.Page[workshop.CatalogItem], error) {
	return listPage(ctx, s, `SELECT `+catalogColumns+` FROM catalog_items c WHERE 1 = 1`, "c", v, p, scanCatalogItem,
		func(it workshop.CatalogItem) workshop.Cursor {
			return workshop.Cursor{CreatedAt: it.CreatedAt, ID: it.ID}
		})
}

// CatalogPut is the outcome of a sync: the item and whether it was made.
type CatalogPut struct {
	Item    workshop.CatalogItem
	Created bool
}

// PutCatalogItem creates or updates the item with the service code in the
// location (idempotent sync): the same values again change nothing, not
// even updatedAt.
func (s *Store) PutCatalogItem(ctx context.Context, it workshop.CatalogItem) (CatalogPut, error) {
	return write(ctx, s, func(c conn) (CatalogPut, error) {
		var n int
		if err := c.queryRow(ctx, `SELECT COUNT(*) FROM locations WHERE id = ? AND org_id = ?`, it.LocationID, it.OrgID).Scan(&n); err != nil {
			return CatalogPut{}, err
		}
		if n == 0 {
			return CatalogPut{}, workshop.Invalid("locationId", "No location %s is visible to this key.", it.LocationID)
		}
		cur, err := lockedCatalogItem(ctx, c, it.LocationID, it.ServiceCode)
		if errors.Is(err, sql.ErrNoRows) {
			return CatalogPut{Item: it, Created: true}, insertCatalogItem(ctx, c, it)
		}
		if err != nil {
			return CatalogPut{}, err
		}
		cur, err = syncCatalogItem(ctx, c, cur, it)
		return CatalogPut{Item: cur}, err
	})
}

// lockedCatalogItem reads the item of a service code in a location for a
// write (sql.ErrNoRows: none).
func lockedCatalogItem(ctx context.Context, c conn, locationID, serviceCode string) (workshop.CatalogItem, error) {
	return scanCatalogItem(c.queryRow(ctx, `SELECT `+catalogColumns+` FROM catalog_items c WHERE c.location_id = ? AND c.service_code = ?`+
		c.s.forUpdate(), locationID, serviceCode))
}

func insertCatalogItem(ctx context.Context, c conn, it workshop.CatalogItem) error {
	_, err := c.exec(ctx, `INSERT INTO catalog_items (id, org_id, location_id, service_code, name, estimated_duration, required_skills,
		is_active, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, it.ID, it.OrgID, it.LocationID, it.ServiceCode,
		it.Name, it.EstimatedDuration, jsonText(it.RequiredSkills), it.IsActive, it.CreatedAt, it.UpdatedAt)
	return err
}

// syncCatalogItem writes in over the stored cur as SyncCatalogItem decides:
// the same values again change nothing, not even updatedAt.
func syncCatalogItem(ctx context.Context, c conn, cur, in workshop.CatalogItem) (workshop.CatalogItem, error) {
	cur, changed := workshop.SyncCatalogItem(cur, in)
	if !changed {
		return cur, nil
	}
	_, err := c.exec(ctx, `UPDATE catalog_items SET name = ?, estimated_duration = ?, required_skills = ?, is_active = ?, updated_at = ? WHERE id = ?`,
		cur.Name, cur.EstimatedDuration, jsonText(cur.RequiredSkills), cur.IsActive, cur.UpdatedAt, cur.ID)
	return cur, err
}

// LocationSettings is a location's workshop settings.
type LocationSettings struct {
	LocationID string
	Timezone   string
	workshop.Settings
}

// Settings reads one location's workshop settings.
func (s *Store) Settings(ctx context.Context, locationID string) (workshop.Settings, error) {
	var hours, breaks, planning string
	var buffer int
	var confidence float64
	var updated workshop.Micros
	var retention sql.NullInt64
	err := s.read().queryRow(ctx, `SELECT operating_hours, breaks, bay_buffer_minutes, planning_durations, promise_confidence, updated_at,
		customer_data_retention_days FROM workshop_settings WHERE location_id = ?`, locationID).Scan(&hours, &breaks, &buffer, &planning,
		&confidence, &updated, &retention)
	if err != nil {
		return workshop.Settings{}, notFoundOr(err, "location")
	}
	st, err := s.settings.parse(hours, breaks, buffer)
	st.PlanningDurations, st.PromiseConfidence, st.UpdatedAt = planning, confidence, updated
	st.CustomerDataRetentionDays = intPtr(retention)
	return st, err
}

// LocationsSettings reads the workshop settings of the locations the caller sees.
func (s *Store) LocationsSettings(ctx context.Context, v Visibility) ([]LocationSettings, error) {
	rows, err := s.read().query(ctx, `SELECT l.id, l.timezone, w.operating_hours, w.breaks, w.bay_buffer_minutes, w.planning_durations,
		w.promise_confidence, w.customer_data_retention_days FROM locations l JOIN workshop_settings w ON w.location_id = l.id
		WHERE l.org_id = ? AND (? = '' OR l.id = ?) ORDER BY l.created_at, l.id`, v.OrgID, v.LocationID, v.LocationID)
	if err != nil {
		return nil, err
	}
	return collect(rows, func(sc scanner) (LocationSettings, error) {
		var ls LocationSettings
		var hours, breaks, planning string
		var buffer int
		var confidence float64
		var retention sql.NullInt64
		if err := sc.Scan(&ls.LocationID, &ls.Timezone, &hours, &breaks, &buffer, &planning, &confidence, &retention); err != nil {
			return ls, err
		}
		var err error
		ls.Settings, err = s.settings.parse(hours, breaks, buffer)
		ls.PlanningDurations, ls.PromiseConfidence, ls.CustomerDataRetentionDays = planning, confidence, intPtr(retention)
		return ls, err
	})
}

// SetSettings replaces a location's workshop settings (operator command).
// With IfUnchanged (the application's edit) they are stale_updated_at
// unless still at that version.
func (s *Store) SetSettings(ctx context.Context, locationID string, st workshop.Settings, opts ...WriteOption) error {
	o := optionsOf(opts)
	_, err := write(ctx, s, func(c conn) (struct{}, error) {
		if o.expected != nil {
			var cur workshop.Micros
			err := c.queryRow(ctx, `SELECT updated_at FROM workshop_settings WHERE location_id = ?`+s.forUpdate(), locationID).Scan(&cur)
			if err != nil {
				return struct{}{}, notFoundOr(err, "location")
			}
			if err := workshop.CheckVersion("settings", cur, *o.expected); err != nil {
				return struct{}{}, err
			}
		}
		return struct{}{}, putSettings(ctx, c, locationID, st)
	})
	return err
}
