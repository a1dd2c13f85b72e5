package store

import (
	"context"
	"database/sql"
	"strings"
	"time"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// Member is a user with its organisation and password hash: what signing
// in to the application reads.
type Member struct {
	User workshop.User // PasswordHash set ("" when the user has none)
	Org  workshop.Org
	// TechnicianID is the technician the user works as ("": none), whose
	// steps the user may start and complete in the application.
	TechnicianID string
}

const memberColumns = `u.id, u.org_id, u.email, u.role, u.developer_access, u.created_at, u.updated_at, u.password_hash,
	o.id, o.name, o.plan_tier, o.created_at, o.updated_at,
	COALESCE((SELECT t.id FROM technicians t WHERE t.user_id = u.id AND t.deleted_at IS NULL), '')`

func scanMember(sc scanner) (Member, error) {
	var m Member
	var hash sql.NullString
	u, o := &m.User, &m.Org
	err := sc.Scan(&u.ID, &u.OrgID, &u.Email, &u.Role, &u.DeveloperAccess, &u.CreatedAt, &u.UpdatedAt, &hash,
		&o.ID, &o.Name, &o.PlanTier, &o.CreatedAt, &o.UpdatedAt, &m.TechnicianID)
	u.PasswordHash = hash.String
	return m, err
}

// member reads a user with its organisation, or not_found.
func member(ctx context.Context, c conn, userID string) (Member, error) {
	m, err := scanMember(c.queryRow(ctx, `SELECT `+memberColumns+` FROM users u JOIN orgs o ON o.id = u.org_id WHERE u.id = ?`, userID))
	return m, notFoundOr(err, "user")
}

// MembersByEmail lists the users with an email (compared without case),
// one per organisation at most, by organisation name.
func (s *Store) MembersByEmail(ctx context.Context, email string) ([]Member, error) {
	rows, err := s.read().query(ctx, `SELECT `+memberColumns+` FROM users u JOIN orgs o ON o.id = u.org_id
		WHERE lower(u.email) = ? ORDER BY o.name, o.id`, loginKey(email))
	if err != nil {
		return nil, err
	}
	return collect(rows, scanMember)
}

// loginKey is an email as sign-in compares it and counts its failures.
func loginKey(email string) string { return strings.ToLower(strings.TrimSpace(email)) }

// SetPassword stores a user's new password hash. Every session signed in
// with the old password ends with it (sessions keep its stamp).
func (s *Store) SetPassword(ctx context.Context, userID, passwordHash string) (workshop.User, error) {
	return write(ctx, s, func(c conn) (workshop.User, error) { return setPassword(ctx, c, userID, passwordHash, s.now()) })
}

func setPassword(ctx context.Context, c conn, userID, passwordHash string, now time.Time) (workshop.User, error) {
	m, err := member(ctx, c, userID)
	if err != nil {
		return m.User, err
	}
	u := m.User
	u.PasswordHash, u.UpdatedAt = passwordHash, workshop.NextMicros(now, u.UpdatedAt)
	_, err = c.exec(ctx, `UPDATE users SET password_hash = ?, updated_at = ? WHERE id = ?`, passwordHash, u.UpdatedAt, u.ID)
	return u, err
}
