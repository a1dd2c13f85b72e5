package store

import (
	"context"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// OrgUser is a user as the organisation's page lists it.
type OrgUser struct {
	workshop.User
	PasswordSet   bool // the user can sign in
	InvitePending bool // no password yet, and an invite link still valid
}

// OrgUsers lists an organisation's users by email.
func (s *Store) OrgUsers(ctx context.Context, orgID string) ([]OrgUser, error) {
	return s.orgUsers(ctx, orgID, "")
}

// OrgUser reads a user of an organisation, or not_found.
func (s *Store) OrgUser(ctx context.Context, orgID, id string) (OrgUser, error) {
	users, err := s.orgUsers(ctx, orgID, id)
	if err == nil && len(users) == 0 {
		err = workshop.NotFound("user")
	}
	if err != nil {
		return OrgUser{}, err
	}
	return users[0], nil
}

// orgUsers lists an organisation's users, or only one when onlyID is set.
func (s *Store) orgUsers(ctx context.Context, orgID, onlyID string) ([]OrgUser, error) {
	rows, err := s.read().query(ctx, `SELECT u.id, u.org_id, u.email, u.role, u.developer_access, u.created_at, u.updated_at,
			u.password_hash IS NOT NULL,
			EXISTS (SELECT 1 FROM auth_tokens a WHERE a.user_id = u.id AND a.kind = 'invite' AND a.expires_at > ?)
		FROM users u WHERE u.org_id = ? AND (? = '' OR u.id = ?) ORDER BY lower(u.email), u.id`,
		workshop.MicrosOf(s.now()), orgID, onlyID, onlyID)
	if err != nil {
		return nil, err
	}
	return collect(rows, func(sc scanner) (OrgUser, error) {
		var u OrgUser
		err := sc.Scan(&u.ID, &u.OrgID, &u.Email, &u.Role, &u.DeveloperAccess, &u.CreatedAt, &u.UpdatedAt, &u.PasswordSet, &u.InvitePending)
		u.InvitePending = u.InvitePending && !u.PasswordSet
		return u, err
	})
}

// orgUser reads a user of an organisation in a write.
func orgUser(ctx context.Context, c conn, orgID, id string) (workshop.User, error) {
	var u workshop.User
	err := c.queryRow(ctx, `SELECT id, org_id, email, role, developer_access, created_at, updated_at FROM users
		WHERE id = ? AND org_id = ?`, id, orgID).
		Scan(&u.ID, &u.OrgID, &u.Email, &u.Role, &u.DeveloperAccess, &u.CreatedAt, &u.UpdatedAt)
	return u, notFoundOr(err, "user")
}

// UserChange is a new role and developer access for a user, against the
// version (updatedAt) the change was made from.
type UserChange struct {
	Role            workshop.Role
	DeveloperAccess bool
	UpdatedAt       workshop.Micros
}

// ChangeUser gives a user of actor's organisation a role and developer
// access. The user's sessions, keys and MCP tokens read the role on every
// request (the update moves the auth epoch), so it holds on their next one.
func (s *Store) ChangeUser(ctx context.Context, actor workshop.User, id string, ch UserChange, now workshop.Micros) (workshop.User, error) {
	return write(ctx, s, func(c conn) (workshop.User, error) {
		target, owners, err := s.userToManage(ctx, c, actor.OrgID, id)
		if err != nil {
			return target, err
		}
		if err := workshop.CheckVersion("user", target.UpdatedAt, ch.UpdatedAt); err != nil {
			return target, err
		}
		if err := workshop.CheckUserChange(actor, target, ch.Role, owners); err != nil {
			return target, err
		}
		if target.Role == ch.Role && target.DeveloperAccess == ch.DeveloperAccess {
			return target, nil
		}
		target.Role, target.DeveloperAccess = ch.Role, ch.DeveloperAccess
		target.UpdatedAt = workshop.NextMicros(now.Time(), target.UpdatedAt)
		_, err = c.exec(ctx, `UPDATE users SET role = ?, developer_access = ?, updated_at = ? WHERE id = ?`,
			target.Role, target.DeveloperAccess, target.UpdatedAt, target.ID)
		return target, err
	})
}

// RemoveUser removes a user of actor's organisation with everything that
// signs in as it: its sessions and invites (deleted with it), its API keys
// and MCP tokens (deleted: the auth epoch moves, so every process refuses
// them on the next request). A technician the user worked as stays, with
// no user.
func (s *Store) RemoveUser(ctx context.Context, actor workshop.User, id string, now workshop.Micros) error {
	_, err := write(ctx, s, func(c conn) (struct{}, error) {
		target, owners, err := s.userToManage(ctx, c, actor.OrgID, id)
		if err != nil {
			return struct{}{}, err
		}
		if err := workshop.CheckUserRemoval(actor, target, owners); err != nil {
			return struct{}{}, err
		}
		if err := unlinkRemovedUser(ctx, c, id, now); err != nil {
			return struct{}{}, err
		}
		if _, err := c.exec(ctx, `DELETE FROM credentials WHERE user_id = ?`, id); err != nil {
			return struct{}{}, err
		}
		_, err = c.exec(ctx, `DELETE FROM users WHERE id = ?`, id)
		return struct{}{}, err
	})
	return err
}

// userToManage reads a user to change or remove and how many owners its
// organisation has. The organisation's row is locked first, so that two
// owners demoting or removing each other at once cannot leave it with none.
func (s *Store) userToManage(ctx context.Context, c conn, orgID, id string) (workshop.User, int, error) {
	var lockedID string
	if err := c.queryRow(ctx, `SELECT id FROM orgs WHERE id = ?`+s.forUpdate(), orgID).Scan(&lockedID); err != nil {
		return workshop.User{}, 0, notFoundOr(err, "user")
	}
	target, err := orgUser(ctx, c, orgID, id)
	if err != nil {
		return target, 0, err
	}
	var owners int
	err = c.queryRow(ctx, `SELECT COUNT(*) FROM users WHERE org_id = ? AND role = ?`, orgID, workshop.RoleOwner).Scan(&owners)
	return target, owners, err
}

// unlinkRemovedUser takes the user off every technician it worked as; a
// record that changes gets a later updatedAt.
func unlinkRemovedUser(ctx context.Context, c conn, userID string, now workshop.Micros) error {
	_, err := c.exec(ctx, `UPDATE technicians SET user_id = NULL,
		updated_at = CASE WHEN updated_at >= ? THEN updated_at + 1 ELSE ? END WHERE user_id = ?`, now, now, userID)
	return err
}
