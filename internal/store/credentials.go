package store

import (
	"context"
	"database/sql"
	"slices"
	"strings"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// CreateCredential stores an API key or MCP token (its hash only).
func (s *Store) CreateCredential(ctx context.Context, k workshop.Credential) (workshop.Credential, error) {
	return write(ctx, s, func(c conn) (workshop.Credential, error) {
		_, err := c.exec(ctx, `INSERT INTO credentials (id, kind, name, org_id, user_id, location_id, integration_id,
			secret_hash, scopes, expires_at, revoked_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			k.ID, k.Kind, k.Name, k.OrgID, k.UserID, nullString(k.LocationID), nullString(k.IntegrationID),
			k.SecretHash, jsonText(k.Scopes), nullMicros(k.ExpiresAt), nullMicros(k.RevokedAt), k.CreatedAt)
		return k, err
	})
}

// RevokeCredential marks a key or token revoked; revoking twice keeps the
// first time.
func (s *Store) RevokeCredential(ctx context.Context, id string) (workshop.Micros, error) {
	return write(ctx, s, func(c conn) (workshop.Micros, error) {
		var revoked sql.NullInt64
		if err := c.queryRow(ctx, `SELECT revoked_at FROM credentials WHERE id = ?`, id).Scan(&revoked); err != nil {
			return 0, notFoundOr(err, "key")
		}
		if revoked.Valid {
			return workshop.Micros(revoked.Int64), nil
		}
		now := workshop.MicrosOf(s.now())
		_, err := c.exec(ctx, `UPDATE credentials SET revoked_at = ? WHERE id = ?`, now, id)
		return now, err
	})
}

// RevokeCredentialsNamed revokes the user's credentials of the given
// names that are not revoked yet, in one write, and says how many (the
// demo's keys of a previous start).
func (s *Store) RevokeCredentialsNamed(ctx context.Context, userID string, names ...string) (int64, error) {
	return write(ctx, s, func(c conn) (int64, error) {
		args := []any{workshop.MicrosOf(s.now()), userID}
		for _, n := range names {
			args = append(args, n)
		}
		res, err := c.exec(ctx, `UPDATE credentials SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL
			AND name IN (?`+strings.Repeat(", ?", len(names)-1)+`)`, args...)
		if err != nil {
			return 0, err
		}
		return res.RowsAffected()
	})
}

// CredentialGrant is a stored credential with what its user and
// organisation are now: the input of authentication.
type CredentialGrant struct {
	workshop.Credential
	Role     workshop.Role
	PlanTier workshop.Plan
}

// CredentialByHash finds a credential by the SHA-256 of its secret, with
// its user's current role and its organisation's current plan. A process
// remembers the grants it read, by hash, with the auth epoch they were read
// at; every change to a credential, user or organisation moves the epoch
// (triggers, migration 00008), and a remembered grant is served only while
// a read of the epoch begun after this call finds it unmoved. So a
// revocation, or a change of role or plan, made by any process takes effect
// on the next request everywhere, and a deleted credential is not found.
func (s *Store) CredentialByHash(ctx context.Context, hash string) (CredentialGrant, error) {
	epoch, err := s.authEpoch(ctx)
	if err != nil {
		return CredentialGrant{}, err
	}
	if g, ok := s.grants.get(hash); ok && g.epoch == epoch {
		return g.CredentialGrant, nil
	}
	g, err := s.credentialByHash(ctx, hash)
	if err != nil {
		return g, err
	}
	// Read after the epoch: should the epoch move in between, the grant is
	// newer than its epoch says and is only read again once more.
	s.grants.put(hash, epochGrant{CredentialGrant: g, epoch: epoch})
	return g, nil
}

// epochGrant is a remembered grant and the auth epoch it was read at.
type epochGrant struct {
	CredentialGrant
	epoch int64
}

// grantCacheSize bounds the credentials remembered by hash.
const grantCacheSize = 4096

// credentialByHash reads the whole credential.
func (s *Store) credentialByHash(ctx context.Context, hash string) (CredentialGrant, error) {
	var g CredentialGrant
	var loc, integ sql.NullString
	var expires, revoked sql.NullInt64
	err := s.read().queryRow(ctx, `SELECT c.id, c.kind, c.org_id, c.user_id, c.location_id, c.integration_id, c.scopes,
			c.expires_at, c.revoked_at, c.created_at, u.role, o.plan_tier
		FROM credentials c JOIN users u ON u.id = c.user_id JOIN orgs o ON o.id = c.org_id
		WHERE c.secret_hash = ?`, hash).
		Scan(&g.ID, &g.Kind, &g.OrgID, &g.UserID, &loc, &integ, jsonList[[]workshop.Scope]{&g.Scopes},
			&expires, &revoked, &g.CreatedAt, &g.Role, &g.PlanTier)
	if err != nil {
		return g, notFoundOr(err, "key")
	}
	g.LocationID, g.IntegrationID = loc.String, integ.String
	g.ExpiresAt, g.RevokedAt = microsPtr(expires), microsPtr(revoked)
	g.Scopes = slices.Clip(g.Scopes) // remembered and shared by every caller: an append copies
	return g, nil
}
