package store

import (
	"context"
	"database/sql"
	"fmt"
	"slices"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// The application's edits and deletes of technicians, bays and catalog
// items. Each edit is checked against the version the form was made from
// (stale_updated_at), changes nothing when nothing changed and otherwise
// moves updatedAt on, as the API's status writes do; a delete checks that
// nothing open uses the record in the transaction that deletes it.

// TechnicianEdit is what the application edits of a technician; the
// status goes through PatchTechnicianStatus, as the API's does.
type TechnicianEdit struct {
	UpdatedAt workshop.Micros // the version the edit was made from
	Name      string
	Skills    []string
	WIPLimit  int
	UserID    string // the application user who works as the technician ("": none)
	// WorkingHours: nil, the location's working time (workshop.WeeklyHours).
	WorkingHours []workshop.WeeklyHours
}

// EditTechnician changes a technician the caller sees.
func (s *Store) EditTechnician(ctx context.Context, v Visibility, id string, e TechnicianEdit, now workshop.Micros) (workshop.Technician, error) {
	t, err := write(ctx, s, func(c conn) (workshop.Technician, error) {
		t, err := technicianKind.visible(ctx, c, v, id, s.forUpdateOf("t"))
		if err != nil {
			return t, err
		}
		if err := workshop.CheckVersion("technician", t.UpdatedAt, e.UpdatedAt); err != nil {
			return t, err
		}
		next := t
		next.Name, next.Skills, next.WIPLimit, next.UserID = e.Name, workshop.Dedupe(e.Skills), e.WIPLimit, e.UserID
		next.WorkingHours = workshop.NormalWorkingHours(e.WorkingHours)
		if err := workshop.CheckTechnician(next); err != nil {
			return t, err
		}
		if next.UserID != "" && next.UserID != t.UserID {
			if err := checkTechnicianUser(ctx, c, t.OrgID, next.UserID); err != nil {
				return t, err
			}
		}
		if next.Name == t.Name && slices.Equal(next.Skills, t.Skills) && next.WIPLimit == t.WIPLimit && next.UserID == t.UserID &&
			sameHours(next.WorkingHours, t.WorkingHours) {
			return t, nil
		}
		next.UpdatedAt = workshop.NextMicros(now.Time(), t.UpdatedAt)
		return next, updateTechnician(ctx, c, next)
	})
	if isUniqueViolation(err, "user") {
		return t, s.userWorksAlready(ctx, e.UserID)
	}
	return t, err
}

// updateTechnician writes a technician's editable fields.
func updateTechnician(ctx context.Context, c conn, t workshop.Technician) error {
	_, err := c.exec(ctx, `UPDATE technicians SET name = ?, skills = ?, wip_limit = ?, user_id = ?, working_hours = ?, updated_at = ? WHERE id = ?`,
		t.Name, jsonText(t.Skills), t.WIPLimit, nullString(t.UserID), hoursText(t.WorkingHours), t.UpdatedAt, t.ID)
	return err
}

// checkTechnicianUser refuses a user a technician of the organisation
// cannot work as (workshop.CheckTechnicianUser).
func checkTechnicianUser(ctx context.Context, c conn, orgID, userID string) error {
	m, err := member(ctx, c, userID)
	if workshop.ErrorCode(err) == workshop.CodeNotFound {
		return workshop.CheckTechnicianUser(nil, orgID, userID)
	}
	if err != nil {
		return err
	}
	return workshop.CheckTechnicianUser(&m.User, orgID, userID)
}

// DeleteUnusedTechnician deletes (softly) a technician the caller sees
// unless it is clocked in or assigned to an open step. The technician is
// locked first: a step write locks the technicians it assigns, so none is
// assigned between the check and the delete.
func (s *Store) DeleteUnusedTechnician(ctx context.Context, v Visibility, id string) error {
	_, err := write(ctx, s, func(c conn) (struct{}, error) {
		t, err := technicianKind.visible(ctx, c, v, id, s.forUpdateOf("t"))
		if err != nil {
			return struct{}{}, err
		}
		uses, err := openSteps(ctx, c, "is assigned to this technician", `JOIN step_technicians a ON a.step_id = s.id WHERE a.tech_id = ?`, t.ID)
		if err != nil {
			return struct{}{}, err
		}
		if t.ClockedIn {
			uses = append([]string{t.Name + " is clocked in"}, uses...)
		}
		if len(uses) > 0 {
			return struct{}{}, workshop.InUse("technician", uses)
		}
		return struct{}{}, markDeleted(ctx, c, "technicians", t.ID, "technician")
	})
	return err
}

// BayEdit is what the application edits of a bay; maintenance goes
// through PatchBayStatus, as the API's does (bay.status_changed).
type BayEdit struct {
	UpdatedAt workshop.Micros // the version the edit was made from
	Name      string
	Equipment []string
	Services  []string
}

// EditBay changes a bay the caller sees.
func (s *Store) EditBay(ctx context.Context, v Visibility, id string, e BayEdit, now workshop.Micros) (workshop.Bay, error) {
	return write(ctx, s, func(c conn) (workshop.Bay, error) {
		b, err := bayKind.visible(ctx, c, v, id, s.forUpdateOf("b"))
		if err != nil {
			return b, err
		}
		if err := workshop.CheckVersion("bay", b.UpdatedAt, e.UpdatedAt); err != nil {
			return b, err
		}
		next := b
		next.Name, next.Equipment, next.Services = e.Name, workshop.Dedupe(e.Equipment), workshop.Dedupe(e.Services)
		if err := workshop.CheckBay(next); err != nil {
			return b, err
		}
		if next.Name == b.Name && slices.Equal(next.Equipment, b.Equipment) && slices.Equal(next.Services, b.Services) {
			return b, nil
		}
		next.UpdatedAt = workshop.NextMicros(now.Time(), b.UpdatedAt)
		return next, updateBay(ctx, c, next)
	})
}

// updateBay writes a bay's editable fields.
func updateBay(ctx context.Context, c conn, b workshop.Bay) error {
	_, err := c.exec(ctx, `UPDATE bays SET name = ?, equipment = ?, services = ?, updated_at = ? WHERE id = ?`,
		b.Name, jsonText(b.Equipment), jsonText(b.Services), b.UpdatedAt, b.ID)
	return err
}

// DeleteUnusedBay deletes (softly) a bay the caller sees unless an open
// step uses it; locked first, as DeleteUnusedTechnician.
func (s *Store) DeleteUnusedBay(ctx context.Context, v Visibility, id string) error {
	_, err := write(ctx, s, func(c conn) (struct{}, error) {
		b, err := bayKind.visible(ctx, c, v, id, s.forUpdateOf("b"))
		if err != nil {
			return struct{}{}, err
		}
		uses, err := openSteps(ctx, c, "is in this bay", `WHERE s.bay_id = ?`, b.ID)
		if err != nil {
			return struct{}{}, err
		}
		if len(uses) > 0 {
			return struct{}{}, workshop.InUse("bay", uses)
		}
		return struct{}{}, markDeleted(ctx, c, "bays", b.ID, "bay")
	})
	return err
}

// CatalogItem reads the item of a service code in a location the caller
// sees.
func (s *Store) CatalogItem(ctx context.Context, v Visibility, locationID, serviceCode string) (workshop.CatalogItem, error) {
	it, err := scanCatalogItem(s.read().queryRow(ctx, `SELECT `+catalogColumns+` FROM catalog_items c WHERE c.location_id = ? AND c.service_code = ?`,
		locationID, serviceCode))
	return seenBy(v)(it, err)
}

// seenBy turns a read of a catalog item the caller does not see, or of
// none, into not_found.
func seenBy(v Visibility) func(workshop.CatalogItem, error) (workshop.CatalogItem, error) {
	return func(it workshop.CatalogItem, err error) (workshop.CatalogItem, error) {
		if err == nil && !v.sees(it.OrgID, it.LocationID) {
			err = sql.ErrNoRows
		}
		return it, notFoundOr(err, "catalog item")
	}
}

// CreateCatalogItem stores a new item; a service code the location has
// already is refused (the application makes, it does not sync).
func (s *Store) CreateCatalogItem(ctx context.Context, it workshop.CatalogItem) (workshop.CatalogItem, error) {
	if err := workshop.CheckCatalogItem(it); err != nil {
		return it, err
	}
	it, err := write(ctx, s, func(c conn) (workshop.CatalogItem, error) { return it, insertCatalogItem(ctx, c, it) })
	if isUniqueViolation(err, "catalog_items") {
		return it, workshop.Invalid("serviceCode", "The catalog has a service %s already.", it.ServiceCode)
	}
	return it, err
}

// EditCatalogItem changes the name, estimate, skills and state of the
// item of in's service code, made from version expected, by the rule the
// API's put follows (workshop.SyncCatalogItem).
func (s *Store) EditCatalogItem(ctx context.Context, v Visibility, in workshop.CatalogItem, expected workshop.Micros) (workshop.CatalogItem, error) {
	return write(ctx, s, func(c conn) (workshop.CatalogItem, error) {
		cur, err := seenBy(v)(lockedCatalogItem(ctx, c, in.LocationID, in.ServiceCode))
		if err != nil {
			return cur, err
		}
		if err := workshop.CheckVersion("catalog item", cur.UpdatedAt, expected); err != nil {
			return cur, err
		}
		in.RequiredSkills = workshop.Dedupe(in.RequiredSkills)
		if err := workshop.CheckCatalogItem(in); err != nil {
			return cur, err
		}
		return syncCatalogItem(ctx, c, cur, in)
	})
}

// DeleteUnusedCatalogItem deletes the item of a service code in a
// location the caller sees unless an open step of the location was made
// from it. The row goes: steps keep their label and estimate, and a put
// of the code makes it anew.
func (s *Store) DeleteUnusedCatalogItem(ctx context.Context, v Visibility, locationID, serviceCode string) error {
	_, err := write(ctx, s, func(c conn) (struct{}, error) {
		it, err := seenBy(v)(lockedCatalogItem(ctx, c, locationID, serviceCode))
		if err != nil {
			return struct{}{}, err
		}
		uses, err := openSteps(ctx, c, "is this service", `WHERE j.location_id = ? AND s.service_code = ?`, it.LocationID, it.ServiceCode)
		if err != nil {
			return struct{}{}, err
		}
		if len(uses) > 0 {
			return struct{}{}, workshop.InUse("catalog item", uses)
		}
		_, err = c.exec(ctx, `DELETE FROM catalog_items WHERE id = ?`, it.ID)
		return struct{}{}, err
	})
	return err
}

// usesShown bounds the open steps a refused delete names.
const usesShown = 3

// openSteps names the open steps (not completed, of jobs neither delivered
// nor cancelled) that where (with args) selects, "Step 'Brakes' of
// RO-2026-0004 " + how, the first few by job and phase.
func openSteps(ctx context.Context, c conn, how, where string, args ...any) ([]string, error) {
	rows, err := c.query(ctx, `SELECT s.label, j.job_number FROM steps s JOIN jobs j ON j.id = s.job_id `+where+
		` AND s.status <> ? AND j.status NOT IN (?, ?) ORDER BY j.created_at, j.id, s.phase, s.created_at, s.id LIMIT ?`,
		append(args, workshop.StepCompleted, workshop.JobDelivered, workshop.JobCancelled, usesShown+1)...)
	if err != nil {
		return nil, err
	}
	uses, err := collect(rows, func(sc scanner) (string, error) {
		var label, number string
		err := sc.Scan(&label, &number)
		return fmt.Sprintf("Step '%s' of %s %s", label, number, how), err
	})
	if len(uses) > usesShown {
		uses = append(uses[:usesShown], "and more open steps")
	}
	return uses, err
}

// UsersOfRole lists an organisation's users with a role, by email: whom
// the application offers to work as a technician.
func (s *Store) UsersOfRole(ctx context.Context, orgID string, role workshop.Role) ([]workshop.User, error) {
	rows, err := s.read().query(ctx, `SELECT id, org_id, email, role, developer_access, created_at, updated_at FROM users
		WHERE org_id = ? AND role = ? ORDER BY email, id`, orgID, role)
	if err != nil {
		return nil, err
	}
	return collect(rows, func(sc scanner) (workshop.User, error) {
		var u workshop.User
		err := sc.Scan(&u.ID, &u.OrgID, &u.Email, &u.Role, &u.DeveloperAccess, &u.CreatedAt, &u.UpdatedAt)
		return u, err
	})
}

// forShare locks the rows a write transaction (one that records events;
// never a read-only one) reads against their update or delete meanwhile
// (PostgreSQL; SQLite's writes are serial).
func (c conn) forShare() string {
	if c.ev != nil && c.s.dialect == postgresDialect {
		return " FOR SHARE"
	}
	return ""
}
