package store

import (
	"context"
	"time"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// One-time links of the application, stored as the SHA-256 of their token.
const (
	tokenInvite = "invite" // a user chooses a password
	tokenSetup  = "setup"  // the first organisation is made
)

// CreateInvite stores an invite for a user valid until expiresAt; the
// user's earlier invites end (the newest link is the one that works).
func (s *Store) CreateInvite(ctx context.Context, userID, tokenHash string, expiresAt workshop.Micros) error {
	_, err := write(ctx, s, func(c conn) (struct{}, error) {
		if _, err := member(ctx, c, userID); err != nil {
			return struct{}{}, err
		}
		if _, err := c.exec(ctx, `DELETE FROM auth_tokens WHERE kind = ? AND user_id = ?`, tokenInvite, userID); err != nil {
			return struct{}{}, err
		}
		return struct{}{}, s.insertToken(ctx, c, tokenInvite, userID, tokenHash, expiresAt)
	})
	return err
}

// insertToken stores a token and drops the expired ones.
func (s *Store) insertToken(ctx context.Context, c conn, kind, userID, tokenHash string, expiresAt workshop.Micros) error {
	now := workshop.MicrosOf(s.now())
	if _, err := c.exec(ctx, `DELETE FROM auth_tokens WHERE expires_at <= ?`, now); err != nil {
		return err
	}
	_, err := c.exec(ctx, `INSERT INTO auth_tokens (token_hash, kind, user_id, expires_at, created_at) VALUES (?, ?, ?, ?, ?)`,
		tokenHash, kind, nullString(userID), expiresAt, now)
	return err
}

// Invitee is the member an unexpired invite is for; not_found otherwise.
func (s *Store) Invitee(ctx context.Context, tokenHash string) (Member, error) {
	return invitee(ctx, s.read(), tokenHash, s.now())
}

func invitee(ctx context.Context, c conn, tokenHash string, now time.Time) (Member, error) {
	var userID string
	err := c.queryRow(ctx, `SELECT user_id FROM auth_tokens WHERE token_hash = ? AND kind = ? AND expires_at > ?`,
		tokenHash, tokenInvite, workshop.MicrosOf(now)).Scan(&userID)
	if err != nil {
		return Member{}, notFoundOr(err, "invite")
	}
	return member(ctx, c, userID)
}

// AcceptInvite sets the password of an invite's user and uses the invite
// up, in one transaction; not_found when the invite is used, expired or
// unknown.
func (s *Store) AcceptInvite(ctx context.Context, tokenHash, passwordHash string) (Member, error) {
	return write(ctx, s, func(c conn) (Member, error) {
		m, err := invitee(ctx, c, tokenHash, s.now())
		if err != nil {
			return m, err
		}
		if _, err := c.exec(ctx, `DELETE FROM auth_tokens WHERE token_hash = ?`, tokenHash); err != nil {
			return m, err
		}
		m.User, err = setPassword(ctx, c, m.User.ID, passwordHash, s.now())
		return m, err
	})
}

// CreateSetupToken stores a first-run setup token when the database has no
// organisation; created is false (and nothing is stored) when it has one.
func (s *Store) CreateSetupToken(ctx context.Context, tokenHash string, expiresAt workshop.Micros) (created bool, err error) {
	return write(ctx, s, func(c conn) (bool, error) {
		if n, err := orgCount(ctx, c); err != nil || n > 0 {
			return false, err
		}
		return true, s.insertToken(ctx, c, tokenSetup, "", tokenHash, expiresAt)
	})
}

func orgCount(ctx context.Context, c conn) (int, error) {
	var n int
	err := c.queryRow(ctx, `SELECT COUNT(*) FROM orgs`).Scan(&n)
	return n, err
}

// SetupOpen tells whether a setup token is unexpired and the database
// still has no organisation.
func (s *Store) SetupOpen(ctx context.Context, tokenHash string) (bool, error) {
	c := s.read()
	var n int
	if err := c.queryRow(ctx, `SELECT COUNT(*) FROM auth_tokens WHERE token_hash = ? AND kind = ? AND expires_at > ?`,
		tokenHash, tokenSetup, workshop.MicrosOf(s.now())).Scan(&n); err != nil || n == 0 {
		return false, err
	}
	orgs, err := orgCount(ctx, c)
	return orgs == 0, err
}

// Setup is what the first-run setup makes.
type Setup struct {
	Org      workshop.Org
	Location workshop.Location
	Settings workshop.Settings
	Owner    workshop.User // with PasswordHash
}

// CompleteSetup makes the first organisation, its location and owner, and
// uses up every setup token, in one transaction; not_found when the token
// is used, expired or unknown or an organisation exists. Of two setups at
// once (two processes' tokens) one wins: each first deletes its own token
// and then all setup tokens, so on PostgreSQL the second waits for the
// first's row locks and then finds its token gone.
func (s *Store) CompleteSetup(ctx context.Context, tokenHash string, su Setup) error {
	_, err := write(ctx, s, func(c conn) (struct{}, error) {
		res, err := c.exec(ctx, `DELETE FROM auth_tokens WHERE token_hash = ? AND kind = ? AND expires_at > ?`,
			tokenHash, tokenSetup, workshop.MicrosOf(s.now()))
		if err != nil {
			return struct{}{}, err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return struct{}{}, workshop.NotFound("setup link")
		}
		if _, err := c.exec(ctx, `DELETE FROM auth_tokens WHERE kind = ?`, tokenSetup); err != nil {
			return struct{}{}, err
		}
		if n, err := orgCount(ctx, c); err != nil || n > 0 {
			if err == nil {
				err = workshop.NotFound("setup link")
			}
			return struct{}{}, err
		}
		if _, err := c.exec(ctx, `INSERT INTO orgs (id, name, plan_tier, created_at, updated_at) VALUES (?, ?, ?, ?, ?)`,
			su.Org.ID, su.Org.Name, su.Org.PlanTier, su.Org.CreatedAt, su.Org.UpdatedAt); err != nil {
			return struct{}{}, err
		}
		if err := insertLocation(ctx, c, su.Location, su.Settings); err != nil {
			return struct{}{}, err
		}
		return struct{}{}, insertUser(ctx, c, su.Owner)
	})
	return err
}
