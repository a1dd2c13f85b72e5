package store

import (
	"context"
	"database/sql"
	"errors"

	"github.com/workshop-platform/workshop/internal/workshop"
)

const technicianColumns = `t.id, t.org_id, t.location_id, t.name, t.skills, t.wip_limit, t.status, t.created_at, t.updated_at,
	EXISTS (SELECT 1 FROM attendance a WHERE a.tech_id = t.id AND a.clock_out IS NULL)`

func scanTechnician(sc scanner) (workshop.Technician, error) {
	var t workshop.Technician
	err := sc.Scan(&t.ID, &t.OrgID, &t.LocationID, &t.Name, jsonList[[]string]{&t.Skills}, &t.WIPLimit, &t.Status,
		&t.CreatedAt, &t.UpdatedAt, &t.ClockedIn)
	return t, err
}

// Technicians lists the technicians the caller sees, by (createdAt, id).
func (s *Store) Technicians(ctx context.Context, v Visibility, p workshop.PageRequest) (workshop.Page[workshop.Technician], error) {
	return listPage(ctx, s, `SELECT `+technicianColumns+` FROM technicians t WHERE t.deleted_at IS NULL`, "t", v, p, scanTechnician,
		func(t workshop.Technician) workshop.Cursor { return workshop.Cursor{CreatedAt: t.CreatedAt, ID: t.ID} })
}

// Technician reads a technician the caller sees.
func (s *Store) Technician(ctx context.Context, v Visibility, id string) (workshop.Technician, error) {
	return visibleTechnician(ctx, s.read(), v, id, "")
}

func visibleTechnician(ctx context.Context, c conn, v Visibility, id, lock string) (workshop.Technician, error) {
	t, err := scanTechnician(c.queryRow(ctx, `SELECT `+technicianColumns+` FROM technicians t WHERE t.id = ? AND t.deleted_at IS NULL`+lock, id))
	if errors.Is(err, sql.ErrNoRows) || (err == nil && !v.sees(t.OrgID, t.LocationID)) {
		return t, workshop.NotFound("technician")
	}
	return t, err
}

// PatchTechnicianStatus sets a technician's operational status with
// optimistic concurrency; the same status again changes nothing.
func (s *Store) PatchTechnicianStatus(ctx context.Context, v Visibility, id string, expected workshop.Micros, status string, now workshop.Micros) (workshop.Technician, error) {
	return write(ctx, s, func(c conn) (workshop.Technician, error) {
		t, err := visibleTechnician(ctx, c, v, id, s.forUpdateOf("t"))
		if err != nil {
			return t, err
		}
		if err := checkVersion("technician", t.UpdatedAt, expected); err != nil || t.Status == status {
			return t, err
		}
		t.Status, t.UpdatedAt = status, workshop.NextMicros(now.Time(), t.UpdatedAt)
		_, err = c.exec(ctx, `UPDATE technicians SET status = ?, updated_at = ? WHERE id = ?`, t.Status, t.UpdatedAt, t.ID)
		return t, err
	})
}

const bayColumns = `b.id, b.org_id, b.location_id, b.name, b.equipment, b.services, b.status, b.created_at, b.updated_at,
	EXISTS (SELECT 1 FROM steps s WHERE s.bay_id = b.id AND s.status = 'in_progress')`

func scanBay(sc scanner) (workshop.Bay, error) {
	var b workshop.Bay
	err := sc.Scan(&b.ID, &b.OrgID, &b.LocationID, &b.Name, jsonList[[]string]{&b.Equipment}, jsonList[[]string]{&b.Services},
		&b.Status, &b.CreatedAt, &b.UpdatedAt, &b.Occupied)
	return b, err
}

// Bays lists the bays the caller sees, by (createdAt, id).
func (s *Store) Bays(ctx context.Context, v Visibility, p workshop.PageRequest) (workshop.Page[workshop.Bay], error) {
	return listPage(ctx, s, `SELECT `+bayColumns+` FROM bays b WHERE b.deleted_at IS NULL`, "b", v, p, scanBay,
		func(b workshop.Bay) workshop.Cursor { return workshop.Cursor{CreatedAt: b.CreatedAt, ID: b.ID} })
}

// Bay reads a bay the caller sees.
func (s *Store) Bay(ctx context.Context, v Visibility, id string) (workshop.Bay, error) {
	return visibleBay(ctx, s.read(), v, id, "")
}

func visibleBay(ctx context.Context, c conn, v Visibility, id, lock string) (workshop.Bay, error) {
	b, err := scanBay(c.queryRow(ctx, `SELECT `+bayColumns+` FROM bays b WHERE b.id = ? AND b.deleted_at IS NULL`+lock, id))
	if errors.Is(err, sql.ErrNoRows) || (err == nil && !v.sees(b.OrgID, b.LocationID)) {
		return b, workshop.NotFound("bay")
	}
	return b, err
}

// PatchBayStatus puts a bay into or out of maintenance with optimistic
// concurrency and records bay.status_changed. Day close does not block it.
func (s *Store) PatchBayStatus(ctx context.Context, v Visibility, id string, expected workshop.Micros, status string, now workshop.Micros) (workshop.Bay, error) {
	return write(ctx, s, func(c conn) (workshop.Bay, error) {
		b, err := visibleBay(ctx, c, v, id, s.forUpdateOf("b"))
		if err != nil {
			return b, err
		}
		if err := checkVersion("bay", b.UpdatedAt, expected); err != nil || b.Status == status {
			return b, err
		}
		b.Status, b.UpdatedAt = status, workshop.NextMicros(now.Time(), b.UpdatedAt)
		if _, err := c.exec(ctx, `UPDATE bays SET status = ?, updated_at = ? WHERE id = ?`, b.Status, b.UpdatedAt, b.ID); err != nil {
			return b, err
		}
		return b, recordEvent(ctx, c, b.OrgID, b.LocationID, workshop.EventBayStatusChanged, b.UpdatedAt, bayRow(b))
	})
}

func bayRow(b workshop.Bay) map[string]any {
	return map[string]any{"id": b.ID, "org_id": b.OrgID, "location_id": b.LocationID, "name": b.Name, "equipment": b.Equipment,
		"services": b.Services, "status": b.Status, "created_at": b.CreatedAt.String(), "updated_at": b.UpdatedAt.String(), "deleted_at": nil}
}

// checkVersion is stale_updated_at unless the caller's version is current.
func checkVersion(what string, current, expected workshop.Micros) error {
	if current == expected {
		return nil
	}
	return &workshop.Error{Code: workshop.CodeStaleUpdatedAt, Field: "updatedAt", CurrentUpdatedAt: &current,
		Detail: "The " + what + " changed since you read it (updatedAt " + current.String() + "); read it again and reapply your change."}
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
	rows, err := s.read().query(ctx, q+` ORDER BY `+alias+`.created_at, `+alias+`.id LIMIT ?`, append(args, p.Limit+1)...)
	if err != nil {
		return workshop.Page[T]{}, err
	}
	list, err := collect(rows, scan)
	if err != nil {
		return workshop.Page[T]{}, err
	}
	return workshop.PageOf(list, p.Limit, cursorOf), nil
}
