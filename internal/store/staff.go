package store

import (
	"context"
	"database/sql"
	"errors"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// staffKind describes technicians and bays: records of a location made in
// the application, which the API lists, reads and sets the operational
// status of in the same way.
type staffKind[T any] struct {
	table, alias, columns, what string
	scan                        func(scanner) (T, error)
	// fields points at what every kind has.
	fields func(*T) (id, orgID, locationID *string, status *string, createdAt, updatedAt *workshop.Micros)
	// statusChanged records what a status change emits, if anything.
	statusChanged func(ctx context.Context, c conn, rec T) error
}

var technicianKind = staffKind[workshop.Technician]{
	table: "technicians", alias: "t", what: "technician",
	columns: `t.id, t.org_id, t.location_id, t.name, t.skills, t.wip_limit, t.status, t.created_at, t.updated_at,
	EXISTS (SELECT 1 FROM attendance a WHERE a.tech_id = t.id AND a.clock_out IS NULL), COALESCE(t.user_id, ''), t.working_hours`,
	scan: func(sc scanner) (workshop.Technician, error) {
		var t workshop.Technician
		err := sc.Scan(&t.ID, &t.OrgID, &t.LocationID, &t.Name, jsonList[[]string]{&t.Skills}, &t.WIPLimit, &t.Status,
			&t.CreatedAt, &t.UpdatedAt, &t.ClockedIn, &t.UserID, jsonList[[]workshop.WeeklyHours]{&t.WorkingHours})
		return t, err
	},
	fields: func(t *workshop.Technician) (*string, *string, *string, *string, *workshop.Micros, *workshop.Micros) {
		return &t.ID, &t.OrgID, &t.LocationID, &t.Status, &t.CreatedAt, &t.UpdatedAt
	},
	statusChanged: func(context.Context, conn, workshop.Technician) error { return nil }, // no event is defined for it
}

var bayKind = staffKind[workshop.Bay]{
	table: "bays", alias: "b", what: "bay",
	columns: `b.id, b.org_id, b.location_id, b.name, b.equipment, b.services, b.status, b.created_at, b.updated_at,
	` + bayOccupant("id") + ` IS NOT NULL`,
	scan: func(sc scanner) (workshop.Bay, error) {
		var b workshop.Bay
		err := sc.Scan(&b.ID, &b.OrgID, &b.LocationID, &b.Name, jsonList[[]string]{&b.Equipment}, jsonList[[]string]{&b.Services},
			&b.Status, &b.CreatedAt, &b.UpdatedAt, &b.Occupied)
		return b, err
	},
	fields: func(b *workshop.Bay) (*string, *string, *string, *string, *workshop.Micros, *workshop.Micros) {
		return &b.ID, &b.OrgID, &b.LocationID, &b.Status, &b.CreatedAt, &b.UpdatedAt
	},
	statusChanged: func(ctx context.Context, c conn, b workshop.Bay) error {
		return recordEvent(ctx, c, b.OrgID, b.LocationID, workshop.EventBayStatusChanged, b.UpdatedAt, bayRow(b))
	},
}

func (k staffKind[T]) list(ctx context.Context, s *Store, v Visibility, p workshop.PageRequest) (workshop.Page[T], error) {
	return listPage(ctx, s, `SELECT `+k.columns+` FROM `+k.table+` `+k.alias+` WHERE `+k.alias+`.deleted_at IS NULL`, k.alias, v, p, k.scan,
		func(rec T) workshop.Cursor {
			id, _, _, _, created, _ := k.fields(&rec)
			return workshop.Cursor{CreatedAt: *created, ID: *id}
		})
}

// visible reads a record the caller sees, or not_found.
func (k staffKind[T]) visible(ctx context.Context, c conn, v Visibility, id, lock string) (T, error) {
	rec, err := k.scan(c.queryRow(ctx, `SELECT `+k.columns+` FROM `+k.table+` `+k.alias+` WHERE `+k.alias+`.id = ? AND `+
		k.alias+`.deleted_at IS NULL`+lock, id))
	if err == nil {
		_, org, loc, _, _, _ := k.fields(&rec)
		if !v.sees(*org, *loc) {
			err = sql.ErrNoRows
		}
	}
	if errors.Is(err, sql.ErrNoRows) {
		return rec, workshop.NotFound(k.what)
	}
	return rec, err
}

// patchStatus sets the operational status with optimistic concurrency; the
// same status again changes nothing. Day close does not block it.
func (k staffKind[T]) patchStatus(ctx context.Context, s *Store, v Visibility, id string, expected workshop.Micros, status string, now workshop.Micros) (T, error) {
	return write(ctx, s, func(c conn) (T, error) {
		rec, err := k.visible(ctx, c, v, id, s.forUpdateOf(k.alias))
		if err != nil {
			return rec, err
		}
		recID, _, _, st, _, updated := k.fields(&rec)
		next, changed, err := workshop.SetStatus(k.what, *st, *updated, expected, status, now)
		if err != nil || !changed {
			return rec, err
		}
		*st, *updated = status, next
		if _, err := c.exec(ctx, `UPDATE `+k.table+` SET status = ?, updated_at = ? WHERE id = ?`, status, *updated, *recID); err != nil {
			return rec, err
		}
		return rec, k.statusChanged(ctx, c, rec)
	})
}

// Technicians lists the technicians the caller sees, by (createdAt, id).
func (s *Store) Technicians(ctx context.Context, v Visibility, p workshop.PageRequest) (workshop.Page[workshop.Technician], error) {
	return technicianKind.list(ctx, s, v, p)
}

// Technician reads a technician the caller sees.
func (s *Store) Technician(ctx context.Context, v Visibility, id string) (workshop.Technician, error) {
	return technicianKind.visible(ctx, s.read(), v, id, "")
}

// PatchTechnicianStatus sets a technician's operational status.
func (s *Store) PatchTechnicianStatus(ctx context.Context, v Visibility, id string, expected workshop.Micros, status string, now workshop.Micros) (workshop.Technician, error) {
	return technicianKind.patchStatus(ctx, s, v, id, expected, status, now)
}

// Bays lists the bays the caller sees, by (createdAt, id).
func (s *Store) Bays(ctx context.Context, v Visibility, p workshop.PageRequest) (workshop.Page[workshop.Bay], error) {
	return bayKind.list(ctx, s, v, p)
}

// Bay reads a bay the caller sees.
func (s *Store) Bay(ctx context.Context, v Visibility, id string) (workshop.Bay, error) {
	return bayKind.visible(ctx, s.read(), v, id, "")
}

// PatchBayStatus puts a bay into or out of maintenance and records
// bay.status_changed.
func (s *Store) PatchBayStatus(ctx context.Context, v Visibility, id string, expected workshop.Micros, status string, now workshop.Micros) (workshop.Bay, error) {
	return bayKind.patchStatus(ctx, s, v, id, expected, status, now)
}

func bayRow(b workshop.Bay) eventRow {
	return eventRow{{"created_at", b.CreatedAt.String()}, {"deleted_at", nil}, {"equipment", b.Equipment}, {"id", b.ID},
		{"location_id", b.LocationID}, {"name", b.Name}, {"org_id", b.OrgID}, {"services", b.Services},
		{"status", b.Status}, {"updated_at", b.UpdatedAt.String()}}
}

// forUpdateOf locks the rows of one table of a join (PostgreSQL).
func (s *Store) forUpdateOf(alias string) string {
	if s.dialect == postgresDialect {
		return " FOR UPDATE OF " + alias
	}
	return ""
}

// listPage runs a keyset-paginated list of a table aliased alias whose
// base query ends in a WHERE clause, restricted to what v sees.
func listPage[T any](ctx context.Context, s *Store, base, alias string, v Visibility, p workshop.PageRequest,
	scan func(scanner) (T, error), cursorOf func(T) workshop.Cursor) (workshop.Page[T], error) {
	return listPageArgs(ctx, s, base, nil, alias, v, p, scan, cursorOf)
}

// listPageArgs is listPage for a base query with arguments of its own.
func listPageArgs[T any](ctx context.Context, s *Store, base string, baseArgs []any, alias string, v Visibility, p workshop.PageRequest,
	scan func(scanner) (T, error), cursorOf func(T) workshop.Cursor) (workshop.Page[T], error) {
	q := base + ` AND ` + alias + `.org_id = ? AND (? = '' OR ` + alias + `.location_id = ?)`
	args := append(baseArgs, v.OrgID, v.LocationID, v.LocationID)
	if p.After != nil {
		q += ` AND (` + alias + `.created_at, ` + alias + `.id) > (?, ?)` // seeks the index to the cursor
		args = append(args, p.After.CreatedAt, p.After.ID)
	}
	return queryPage(ctx, s, q+` ORDER BY `+alias+`.created_at, `+alias+`.id`, args, p, scan, cursorOf)
}

// queryPage runs a list query ordered by (created_at, id) for one row more
// than the page, and makes the page of what it read.
func queryPage[T any](ctx context.Context, s *Store, query string, args []any, p workshop.PageRequest,
	scan func(scanner) (T, error), cursorOf func(T) workshop.Cursor) (workshop.Page[T], error) {
	rows, err := s.read().query(ctx, query+` LIMIT ?`, append(args, p.Limit+1)...)
	if err != nil {
		return workshop.Page[T]{}, err
	}
	list, err := collect(rows, scan)
	if err != nil {
		return workshop.Page[T]{}, err
	}
	return workshop.PageOf(list, p.Limit, cursorOf), nil
}
