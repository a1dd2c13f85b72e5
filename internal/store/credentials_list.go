package store

import (
	"context"
	"database/sql"
	"log/slog"
	"time"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// The developer settings' side of keys and MCP tokens: lists of them with
// their owner and last use, and the record of that use.

// OwnedCredential is a key or MCP token with the email of the user it
// acts as.
type OwnedCredential struct {
	workshop.Credential
	UserEmail string
}

// CredentialFilter chooses the credentials of a list.
type CredentialFilter struct {
	OrgID  string
	UserID string // "": every user's of the organisation
	Kind   workshop.CredentialKind
}

// credentialsShown bounds a list: a developer's keys are few.
const credentialsShown = 500

const ownedCredentialColumns = `c.id, c.kind, c.name, c.org_id, c.user_id, c.location_id, c.integration_id, c.scopes,
	c.expires_at, c.revoked_at, c.created_at, u.last_used_at, us.email`

const ownedCredentialFrom = ` FROM credentials c JOIN users us ON us.id = c.user_id
	LEFT JOIN credential_uses u ON u.credential_id = c.id`

func scanOwnedCredential(sc scanner) (OwnedCredential, error) {
	var k OwnedCredential
	var loc, integ sql.NullString
	var expires, revoked, used sql.NullInt64
	err := sc.Scan(&k.ID, &k.Kind, &k.Name, &k.OrgID, &k.UserID, &loc, &integ, jsonList[[]workshop.Scope]{&k.Scopes},
		&expires, &revoked, &k.CreatedAt, &used, &k.UserEmail)
	k.LocationID, k.IntegrationID = loc.String, integ.String
	k.ExpiresAt, k.RevokedAt, k.LastUsedAt = microsPtr(expires), microsPtr(revoked), microsPtr(used)
	return k, err
}

// Credentials lists the keys or tokens of an organisation (or of one of
// its users), newest first.
func (s *Store) Credentials(ctx context.Context, f CredentialFilter) ([]OwnedCredential, error) {
	rows, err := s.read().query(ctx, `SELECT `+ownedCredentialColumns+ownedCredentialFrom+`
		WHERE c.org_id = ? AND c.kind = ? AND (? = '' OR c.user_id = ?) ORDER BY c.created_at DESC, c.id DESC LIMIT ?`,
		f.OrgID, f.Kind, f.UserID, f.UserID, credentialsShown)
	if err != nil {
		return nil, err
	}
	return collect(rows, scanOwnedCredential)
}

// Credential reads one key or token of an organisation.
func (s *Store) Credential(ctx context.Context, orgID, id string) (OwnedCredential, error) {
	k, err := scanOwnedCredential(s.read().queryRow(ctx, `SELECT `+ownedCredentialColumns+ownedCredentialFrom+`
		WHERE c.id = ? AND c.org_id = ?`, id, orgID))
	return k, notFoundOr(err, "key")
}

// credentialUseGrain is how precisely a credential's last use is kept: a
// busy key records its use once a minute, not on every request.
const credentialUseGrain = time.Minute

// NoteCredentialUse records that a credential authenticated a request at
// at. The request does not wait for it: the record is written in the
// background, and only when this process has not recorded a use of the
// credential within the last minute; the statement itself changes the
// stored time only when that is older than a minute (another process may
// have recorded one). A failure costs only the precision of "last used".
// It is a table of its own, so recording a use does not move the auth
// epoch (migration 00016).
func (s *Store) NoteCredentialUse(id string, at time.Time) {
	if last, ok := s.uses.get(id); ok && at.Sub(last) < credentialUseGrain { // also a request stamped just before it
		return
	}
	s.uses.put(id, at)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := s.recordCredentialUse(ctx, id, at); err != nil {
			slog.Debug("record a credential's use", "credential", id, "error", err)
		}
	}()
}

// recordCredentialUse is one conditional upsert.
func (s *Store) recordCredentialUse(ctx context.Context, id string, at time.Time) error {
	_, err := write(ctx, s, func(c conn) (struct{}, error) {
		m := workshop.MicrosOf(at)
		_, err := c.exec(ctx, `INSERT INTO credential_uses (credential_id, last_used_at) VALUES (?, ?)
			ON CONFLICT (credential_id) DO UPDATE SET last_used_at = excluded.last_used_at
			WHERE credential_uses.last_used_at < ?`, id, m, workshop.MicrosOf(at.Add(-credentialUseGrain)))
		return struct{}{}, err
	})
	return err
}
