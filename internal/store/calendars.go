package store

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// hoursText is a technician's working hours as stored: NULL for nil (the
// location's working time), the JSON list otherwise ([] included).
func hoursText(h []workshop.WeeklyHours) any {
	if h == nil {
		return nil
	}
	return jsonText(h)
}

// sameHours tells whether two working hours are the same, nil and an empty
// list being different (the location's time against none).
func sameHours(a, b []workshop.WeeklyHours) bool {
	return (a == nil) == (b == nil) && slices.Equal(a, b)
}

// SetTechnicianHours sets a technician's working hours (nil: the
// location's working time), checked; the same hours again change nothing.
// It moves the location's plan version (the technicians trigger).
func (s *Store) SetTechnicianHours(ctx context.Context, v Visibility, id string, hours []workshop.WeeklyHours, now workshop.Micros) (workshop.Technician, error) {
	hours = workshop.NormalWorkingHours(hours)
	if err := workshop.CheckWorkingHours(hours); err != nil {
		return workshop.Technician{}, err
	}
	return write(ctx, s, func(c conn) (workshop.Technician, error) {
		t, err := technicianKind.visible(ctx, c, v, id, s.forUpdateOf("t"))
		if err != nil || sameHours(t.WorkingHours, hours) {
			return t, err
		}
		t.WorkingHours, t.UpdatedAt = hours, workshop.NextMicros(now.Time(), t.UpdatedAt)
		_, err = c.exec(ctx, `UPDATE technicians SET working_hours = ?, updated_at = ? WHERE id = ?`, hoursText(hours), t.UpdatedAt, t.ID)
		return t, err
	})
}

// RecordVisibility is the visibility of one technician's or bay's
// (table "technicians" or "bays") organisation and location, for the
// operator's commands, which name a record by id alone.
func (s *Store) RecordVisibility(ctx context.Context, table, id string) (Visibility, error) {
	what := map[string]string{"technicians": "technician", "bays": "bay"}[table]
	if what == "" {
		return Visibility{}, workshop.NotFound("record")
	}
	var v Visibility
	err := s.read().queryRow(ctx, `SELECT org_id, location_id FROM `+table+` WHERE id = ? AND deleted_at IS NULL`, id).Scan(&v.OrgID, &v.LocationID)
	return v, notFoundOr(err, what)
}

// Absences and bay maintenance windows (contract section 4): periods of a
// technician's or a bay's, never changed, only made and deleted. Both are
// kept the same way (period), each insert and delete moving the location's
// plan version (migration 00033's triggers).

// period is what absences and maintenance windows store alike.
type period struct {
	table, owner, what string // "absences", "tech_id", "absence"
	ownerField         string // the request's field naming the owner: techId
}

var (
	absencePeriods = period{table: "absences", owner: "tech_id", what: "absence", ownerField: "techId"}
	windowPeriods  = period{table: "bay_maintenance_windows", owner: "bay_id", what: "maintenance window", ownerField: "bayId"}
)

const (
	absenceColumns = `p.id, p.org_id, p.location_id, p.tech_id, p.start_at, p.end_at, p.reason, p.note, p.created_at`
	windowColumns  = `p.id, p.org_id, p.location_id, p.bay_id, p.start_at, p.end_at, p.reason, p.created_at`
)

// periodTimes reads a stored period's start and end (RFC 3339, with their
// offsets) and its creation time.
func periodTimes(start, end string, created workshop.Micros, s, e, c *time.Time) error {
	var err1, err2 error
	*s, err1 = time.Parse(time.RFC3339Nano, start)
	*e, err2 = time.Parse(time.RFC3339Nano, end)
	*c = created.Time()
	return errors.Join(err1, err2)
}

func scanAbsence(sc scanner) (workshop.Absence, error) {
	var a workshop.Absence
	var start, end string
	var created workshop.Micros
	if err := sc.Scan(&a.ID, &a.OrgID, &a.LocationID, &a.TechID, &start, &end, &a.Reason, &a.Note, &created); err != nil {
		return a, err
	}
	return a, periodTimes(start, end, created, &a.Start, &a.End, &a.CreatedAt)
}

func scanWindow(sc scanner) (workshop.MaintenanceWindow, error) {
	var w workshop.MaintenanceWindow
	var start, end string
	var created workshop.Micros
	if err := sc.Scan(&w.ID, &w.OrgID, &w.LocationID, &w.BayID, &start, &end, &w.Reason, &created); err != nil {
		return w, err
	}
	return w, periodTimes(start, end, created, &w.Start, &w.End, &w.CreatedAt)
}

// insert stores a period of the owner's location: cols and args are the
// kind's own columns beyond the common ones.
func (k period) insert(ctx context.Context, c conn, id, orgID, locationID, ownerID string, start, end time.Time, created workshop.Micros,
	cols string, args ...any) error {
	zone, err := locationZone(ctx, c, locationID)
	if err != nil {
		return err
	}
	first, last := workshop.SpanDates(start, end, zone)
	marks := strings.Repeat(", ?", len(args))
	_, err = c.exec(ctx, `INSERT INTO `+k.table+` (id, org_id, location_id, `+k.owner+`, start_at, start_us, end_at, end_us, first_date, last_date,
		created_at`+cols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?`+marks+`)`,
		append([]any{id, orgID, locationID, ownerID, start.Format(time.RFC3339Nano), start.UnixMicro(), end.Format(time.RFC3339Nano),
			end.UnixMicro(), first, last, created}, args...)...)
	return err
}

// remove deletes a period the caller sees (of owner ownerID when not ""),
// or not_found.
func (k period) remove(ctx context.Context, s *Store, v Visibility, id, ownerID string) error {
	_, err := write(ctx, s, func(c conn) (struct{}, error) {
		var org, loc, owner string
		err := c.queryRow(ctx, `SELECT org_id, location_id, `+k.owner+` FROM `+k.table+` WHERE id = ?`, id).Scan(&org, &loc, &owner)
		if err == nil && (!v.sees(org, loc) || (ownerID != "" && owner != ownerID)) {
			err = sql.ErrNoRows
		}
		if err != nil {
			return struct{}{}, notFoundOr(err, k.what)
		}
		_, err = c.exec(ctx, `DELETE FROM `+k.table+` WHERE id = ?`, id)
		return struct{}{}, err
	})
	return err
}

// CalendarFilter selects absences or maintenance windows: of one
// technician or bay (Owner, "" any) that overlap the local dates From..To
// (inclusive, YYYY-MM-DD, "" open-ended).
type CalendarFilter struct {
	Visibility
	Owner    string
	From, To string
}

func listPeriods[T any](ctx context.Context, s *Store, k period, cols string, f CalendarFilter, p workshop.PageRequest,
	scan func(scanner) (T, error), cursor func(T) workshop.Cursor) (workshop.Page[T], error) {
	base := `SELECT ` + cols + ` FROM ` + k.table + ` p WHERE (? = '' OR p.` + k.owner + ` = ?) AND (? = '' OR p.last_date >= ?) AND (? = '' OR p.first_date <= ?)`
	return listPageArgs(ctx, s, base, []any{f.Owner, f.Owner, f.From, f.From, f.To, f.To}, "p", f.Visibility, p, scan, cursor)
}

// CreateAbsence records a technician's absence. A technician the caller
// does not see (unknown, another organisation's or, for a location's key,
// another location's) is a validation error on techId.
func (s *Store) CreateAbsence(ctx context.Context, v Visibility, a workshop.Absence, opts ...WriteOption) (workshop.Absence, error) {
	if err := workshop.CheckAbsence(a); err != nil {
		return a, err
	}
	return writeUnder(ctx, s, keyOf(opts), func(c conn) (workshop.Absence, error) {
		t, err := technicianKind.visible(ctx, c, v, a.TechID, "")
		if workshop.ErrorCode(err) == workshop.CodeNotFound {
			return a, workshop.Invalid("techId", "No technician %s in this location.", a.TechID)
		}
		if err != nil {
			return a, err
		}
		now := workshop.MicrosOf(s.now())
		a.ID, a.OrgID, a.LocationID, a.CreatedAt = workshop.NewID(workshop.PrefixAbsence), t.OrgID, t.LocationID, now.Time()
		return a, absencePeriods.insert(ctx, c, a.ID, a.OrgID, a.LocationID, a.TechID, a.Start, a.End, now, `, reason, note`, a.Reason, a.Note)
	})
}

// DeleteAbsence deletes an absence the caller sees.
func (s *Store) DeleteAbsence(ctx context.Context, v Visibility, id string) error {
	return absencePeriods.remove(ctx, s, v, id, "")
}

// Absences lists absences by (createdAt, id).
func (s *Store) Absences(ctx context.Context, f CalendarFilter, p workshop.PageRequest) (workshop.Page[workshop.Absence], error) {
	return listPeriods(ctx, s, absencePeriods, absenceColumns, f, p, scanAbsence,
		func(a workshop.Absence) workshop.Cursor {
			return workshop.Cursor{CreatedAt: workshop.MicrosOf(a.CreatedAt), ID: a.ID}
		})
}

// CreateMaintenanceWindow plans a maintenance window of a bay the caller
// sees (not_found otherwise). The bay's status does not change.
func (s *Store) CreateMaintenanceWindow(ctx context.Context, v Visibility, w workshop.MaintenanceWindow, opts ...WriteOption) (workshop.MaintenanceWindow, error) {
	if err := workshop.CheckMaintenanceWindow(w); err != nil {
		return w, err
	}
	return writeUnder(ctx, s, keyOf(opts), func(c conn) (workshop.MaintenanceWindow, error) {
		b, err := bayKind.visible(ctx, c, v, w.BayID, "")
		if err != nil {
			return w, err
		}
		now := workshop.MicrosOf(s.now())
		w.ID, w.OrgID, w.LocationID, w.CreatedAt = workshop.NewID(workshop.PrefixMaintenanceWindow), b.OrgID, b.LocationID, now.Time()
		return w, windowPeriods.insert(ctx, c, w.ID, w.OrgID, w.LocationID, w.BayID, w.Start, w.End, now, `, reason`, w.Reason)
	})
}

// DeleteMaintenanceWindow deletes a window of the bay (any bay: "") the
// caller sees.
func (s *Store) DeleteMaintenanceWindow(ctx context.Context, v Visibility, bayID, id string) error {
	return windowPeriods.remove(ctx, s, v, id, bayID)
}

// MaintenanceWindows lists maintenance windows by (createdAt, id).
func (s *Store) MaintenanceWindows(ctx context.Context, f CalendarFilter, p workshop.PageRequest) (workshop.Page[workshop.MaintenanceWindow], error) {
	return listPeriods(ctx, s, windowPeriods, windowColumns, f, p, scanWindow,
		func(w workshop.MaintenanceWindow) workshop.Cursor {
			return workshop.Cursor{CreatedAt: workshop.MicrosOf(w.CreatedAt), ID: w.ID}
		})
}

// planAbsences reads every absence of the location's technicians (not
// deleted), by start: the planner keeps to its horizon itself.
func planAbsences(ctx context.Context, c conn, locationID string) ([]workshop.Absence, error) {
	rows, err := c.query(ctx, `SELECT `+absenceColumns+` FROM absences p JOIN technicians t ON t.id = p.tech_id
		WHERE p.location_id = ? AND t.deleted_at IS NULL ORDER BY p.start_us, p.id`, locationID)
	if err != nil {
		return nil, err
	}
	return collect(rows, scanAbsence)
}

// planWindows reads every maintenance window of the location's bays (not
// deleted), by start.
func planWindows(ctx context.Context, c conn, locationID string) ([]workshop.MaintenanceWindow, error) {
	rows, err := c.query(ctx, `SELECT `+windowColumns+` FROM bay_maintenance_windows p JOIN bays b ON b.id = p.bay_id
		WHERE p.location_id = ? AND b.deleted_at IS NULL ORDER BY p.start_us, p.id`, locationID)
	if err != nil {
		return nil, err
	}
	return collect(rows, scanWindow)
}

// intPtr is a nullable integer column as a pointer.
func intPtr(n sql.NullInt64) *int {
	if !n.Valid {
		return nil
	}
	v := int(n.Int64)
	return &v
}
