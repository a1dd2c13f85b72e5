package store

import (
	"context"
	"database/sql"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// CreateOrg stores a new organisation.
func (s *Store) CreateOrg(ctx context.Context, o workshop.Org) (workshop.Org, error) {
	return write(ctx, s, func(c conn) (workshop.Org, error) {
		_, err := c.exec(ctx, `INSERT INTO orgs (id, name, plan_tier, created_at, updated_at) VALUES (?, ?, ?, ?, ?)`,
			o.ID, o.Name, o.PlanTier, o.CreatedAt, o.UpdatedAt)
		return o, err
	})
}

// Org reads an organisation.
func (s *Store) Org(ctx context.Context, id string) (workshop.Org, error) {
	return scanOrg(s.read().queryRow(ctx, `SELECT id, name, plan_tier, created_at, updated_at FROM orgs WHERE id = ?`, id))
}

func scanOrg(row scanner) (workshop.Org, error) {
	var o workshop.Org
	err := row.Scan(&o.ID, &o.Name, &o.PlanTier, &o.CreatedAt, &o.UpdatedAt)
	return o, notFoundOr(err, "organisation")
}

// SetOrgPlan changes an organisation's plan.
func (s *Store) SetOrgPlan(ctx context.Context, id string, plan workshop.Plan) (workshop.Org, error) {
	return write(ctx, s, func(c conn) (workshop.Org, error) {
		o, err := scanOrg(c.queryRow(ctx, `SELECT id, name, plan_tier, created_at, updated_at FROM orgs WHERE id = ?`, id))
		if err != nil || o.PlanTier == plan {
			return o, err
		}
		o.PlanTier, o.UpdatedAt = plan, workshop.NextMicros(s.now(), o.UpdatedAt)
		_, err = c.exec(ctx, `UPDATE orgs SET plan_tier = ?, updated_at = ? WHERE id = ?`, o.PlanTier, o.UpdatedAt, o.ID)
		return o, err
	})
}

const locationColumns = `id, org_id, name, timezone, currency_code, created_at, updated_at`

// CreateLocation stores a new location with its default workshop settings.
func (s *Store) CreateLocation(ctx context.Context, l workshop.Location, settings workshop.Settings) (workshop.Location, error) {
	return write(ctx, s, func(c conn) (workshop.Location, error) { return l, insertLocation(ctx, c, l, settings) })
}

func insertLocation(ctx context.Context, c conn, l workshop.Location, settings workshop.Settings) error {
	if _, err := c.exec(ctx, `INSERT INTO locations (`+locationColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		l.ID, l.OrgID, l.Name, l.Timezone, l.CurrencyCode, l.CreatedAt, l.UpdatedAt); err != nil {
		return err
	}
	return putSettings(ctx, c, l.ID, settings)
}

func scanLocation(sc scanner) (workshop.Location, error) {
	var l workshop.Location
	err := sc.Scan(&l.ID, &l.OrgID, &l.Name, &l.Timezone, &l.CurrencyCode, &l.CreatedAt, &l.UpdatedAt)
	return l, err
}

// Location reads a location of an organisation.
func (s *Store) Location(ctx context.Context, orgID, id string) (workshop.Location, error) {
	l, err := scanLocation(s.read().queryRow(ctx, `SELECT `+locationColumns+` FROM locations WHERE id = ? AND org_id = ?`, id, orgID))
	return l, notFoundOr(err, "location")
}

// LocationByID reads a location by id alone (operator commands).
func (s *Store) LocationByID(ctx context.Context, id string) (workshop.Location, error) {
	return locationIn(ctx, s.read(), id)
}

// locationIn reads a location by id on c (a read, or a write's
// transaction).
func locationIn(ctx context.Context, c conn, id string) (workshop.Location, error) {
	l, err := scanLocation(c.queryRow(ctx, `SELECT `+locationColumns+` FROM locations WHERE id = ?`, id))
	return l, notFoundOr(err, "location")
}

// Locations lists an organisation's locations, or only one when onlyID is set.
func (s *Store) Locations(ctx context.Context, orgID, onlyID string) ([]workshop.Location, error) {
	rows, err := s.read().query(ctx, `SELECT `+locationColumns+` FROM locations
		WHERE org_id = ? AND (? = '' OR id = ?) ORDER BY created_at, id`, orgID, onlyID, onlyID)
	if err != nil {
		return nil, err
	}
	return collect(rows, scanLocation)
}

// CreateUser stores a new user; an email already in the organisation is a
// validation error on email.
func (s *Store) CreateUser(ctx context.Context, u workshop.User) (workshop.User, error) {
	return write(ctx, s, func(c conn) (workshop.User, error) { return u, insertUser(ctx, c, u) })
}

func insertUser(ctx context.Context, c conn, u workshop.User) error {
	_, err := c.exec(ctx, `INSERT INTO users (id, org_id, email, role, developer_access, created_at, updated_at, password_hash)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, u.ID, u.OrgID, u.Email, u.Role, u.DeveloperAccess, u.CreatedAt, u.UpdatedAt, nullString(u.PasswordHash))
	if isUniqueViolation(err, "") {
		return workshop.Invalid("email", "A user with the email %s already exists in this organisation.", u.Email)
	}
	return err
}

// User reads a user.
func (s *Store) User(ctx context.Context, id string) (workshop.User, error) {
	var u workshop.User
	err := s.read().queryRow(ctx, `SELECT id, org_id, email, role, developer_access, created_at, updated_at FROM users WHERE id = ?`, id).
		Scan(&u.ID, &u.OrgID, &u.Email, &u.Role, &u.DeveloperAccess, &u.CreatedAt, &u.UpdatedAt)
	return u, notFoundOr(err, "user")
}

const integrationColumns = `id, org_id, name, system_type, created_at, updated_at`

// CreateIntegration stores a new integration.
func (s *Store) CreateIntegration(ctx context.Context, in workshop.Integration, opts ...WriteOption) (workshop.Integration, error) {
	return writeUnder(ctx, s, keyOf(opts), func(c conn) (workshop.Integration, error) {
		_, err := c.exec(ctx, `INSERT INTO integrations (`+integrationColumns+`) VALUES (?, ?, ?, ?, ?, ?)`,
			in.ID, in.OrgID, in.Name, in.SystemType, in.CreatedAt, in.UpdatedAt)
		return in, err
	})
}

func scanIntegration(sc scanner) (workshop.Integration, error) {
	var in workshop.Integration
	err := sc.Scan(&in.ID, &in.OrgID, &in.Name, &in.SystemType, &in.CreatedAt, &in.UpdatedAt)
	return in, err
}

// Integration reads an integration of an organisation.
func (s *Store) Integration(ctx context.Context, orgID, id string) (workshop.Integration, error) {
	in, err := scanIntegration(s.read().queryRow(ctx, `SELECT `+integrationColumns+` FROM integrations WHERE id = ? AND org_id = ?`, id, orgID))
	return in, notFoundOr(err, "integration")
}

// Integrations lists an organisation's integrations, one page at a time.
func (s *Store) Integrations(ctx context.Context, orgID string, p workshop.PageRequest) (workshop.Page[workshop.Integration], error) {
	after := p.After
	if after == nil {
		after = &workshop.Cursor{CreatedAt: -1}
	}
	return queryPage(ctx, s, `SELECT `+integrationColumns+` FROM integrations
		WHERE org_id = ? AND (created_at, id) > (?, ?) ORDER BY created_at, id`,
		[]any{orgID, after.CreatedAt, after.ID}, p, scanIntegration, func(in workshop.Integration) workshop.Cursor {
			return workshop.Cursor{CreatedAt: in.CreatedAt, ID: in.ID}
		})
}

// collect scans every row.
func collect[T any](rows *sql.Rows, scan func(scanner) (T, error)) ([]T, error) {
	defer rows.Close()
	out := []T{}
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}
