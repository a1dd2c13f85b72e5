package store

import (
	"context"
	"database/sql"
	"errors"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// LoginLockedUntil tells until when an email's sign-in is locked out;
// ok is false when it is not locked.
func (s *Store) LoginLockedUntil(ctx context.Context, email string) (until workshop.Micros, ok bool, err error) {
	err = s.read().queryRow(ctx, `SELECT locked_until FROM login_locks WHERE email = ?`, loginKey(email)).Scan(&until)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	return until, err == nil && until > workshop.MicrosOf(s.now()), err
}

// RecordLoginFailure counts a failed sign-in of an email; the
// LoginFailureLimit-th within LoginFailureWindow locks the email for
// LoginLockDuration, and locked tells that it did. The email's lock row is
// written first: on PostgreSQL its row lock orders concurrent failures of
// one email, so that every one of them is counted by the next.
func (s *Store) RecordLoginFailure(ctx context.Context, email string) (locked bool, err error) {
	key, now := loginKey(email), s.now()
	windowStart := workshop.MicrosOf(now.Add(-workshop.LoginFailureWindow))
	return write(ctx, s, func(c conn) (bool, error) {
		// Failures and ended locks past the window no longer count: drop
		// them (of every email, so that the tables stay small).
		if _, err := c.exec(ctx, `DELETE FROM login_failures WHERE at <= ?`, windowStart); err != nil {
			return false, err
		}
		if _, err := c.exec(ctx, `DELETE FROM login_locks WHERE locked_until <= ? AND email <> ?`, windowStart, key); err != nil {
			return false, err
		}
		if _, err := c.exec(ctx, `INSERT INTO login_locks (email, locked_until) VALUES (?, 0)
			ON CONFLICT (email) DO UPDATE SET locked_until = login_locks.locked_until`, key); err != nil {
			return false, err
		}
		if _, err := c.exec(ctx, `INSERT INTO login_failures (email, at) VALUES (?, ?)`, key, workshop.MicrosOf(now)); err != nil {
			return false, err
		}
		var n int
		if err := c.queryRow(ctx, `SELECT COUNT(*) FROM login_failures WHERE email = ? AND at > ?`, key, windowStart).Scan(&n); err != nil {
			return false, err
		}
		if n < workshop.LoginFailureLimit {
			return false, nil
		}
		_, err := c.exec(ctx, `UPDATE login_locks SET locked_until = ? WHERE email = ?`,
			workshop.MicrosOf(now.Add(workshop.LoginLockDuration)), key)
		return err == nil, err
	})
}
