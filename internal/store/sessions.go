package store

import (
	"context"
	"database/sql"
	"slices"
	"time"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// Session is one sign-in of a browser to the application. Its id is the
// SHA-256 of the cookie's token; the token itself is never stored.
type Session struct {
	ID string
	// UserID is the user the browser acts as; "" until one of Choices is
	// picked (the email and password matched users of several
	// organisations).
	UserID     string
	Choices    []SessionChoice
	CreatedAt  workshop.Micros
	LastSeenAt workshop.Micros
}

// SessionChoice is a user a sign-in proved, with the stamp of the password
// hash it matched: once the password changes, the choice is void.
type SessionChoice struct {
	UserID string `json:"userId"`
	Stamp  string `json:"stamp"`
}

// ChoiceFor is a session choice of a member signed in with its password.
func ChoiceFor(m Member) SessionChoice {
	return SessionChoice{UserID: m.User.ID, Stamp: workshop.PasswordStamp(m.User.PasswordHash)}
}

// sessionTouchEvery is how stale last_seen_at may get before a request
// writes it again: idle expiry is then exact to this, and a page view
// costs no write.
const sessionTouchEvery = time.Minute

// CreateSession stores a new session and ends the one it replaces (the
// browser's previous session, if any: a sign-in never keeps a session id
// the browser had before), and sessions idle too long.
func (s *Store) CreateSession(ctx context.Context, sess Session, replaces string) error {
	_, err := write(ctx, s, func(c conn) (struct{}, error) {
		idleSince := workshop.MicrosOf(s.now().Add(-workshop.SessionIdleTimeout))
		if _, err := c.exec(ctx, `DELETE FROM sessions WHERE id = ? OR last_seen_at <= ?`, replaces, idleSince); err != nil {
			return struct{}{}, err
		}
		_, err := c.exec(ctx, `INSERT INTO sessions (id, user_id, choices, created_at, last_seen_at) VALUES (?, ?, ?, ?, ?)`,
			sess.ID, nullString(sess.UserID), jsonText(sess.Choices), sess.CreatedAt, sess.LastSeenAt)
		return struct{}{}, err
	})
	return err
}

// SignedIn is a live session with the member it acts as (zero Member when
// none is picked yet).
type SignedIn struct {
	Session
	Member Member
}

// Session reads a live session: not_found when there is none, it has been
// idle for SessionIdleTimeout, or its user was removed or changed password.
// The user's role and organisation are read with it, so a change of role
// holds on the next request. A request refreshes last_seen_at when it is
// more than a minute old.
func (s *Store) Session(ctx context.Context, id string) (SignedIn, error) {
	now := s.now()
	c := s.read()
	var si SignedIn
	var userID sql.NullString
	err := c.queryRow(ctx, `SELECT id, user_id, choices, created_at, last_seen_at FROM sessions WHERE id = ?`, id).
		Scan(&si.ID, &userID, jsonList[[]SessionChoice]{&si.Choices}, &si.CreatedAt, &si.LastSeenAt)
	if err != nil {
		return si, notFoundOr(err, "session")
	}
	si.UserID = userID.String
	if now.Sub(si.LastSeenAt.Time()) >= workshop.SessionIdleTimeout {
		return si, workshop.NotFound("session")
	}
	if si.UserID != "" {
		if si.Member, err = chosenMember(ctx, c, si.Session, si.UserID); err != nil {
			return si, err
		}
	}
	if now.Sub(si.LastSeenAt.Time()) >= sessionTouchEvery {
		si.LastSeenAt = workshop.MicrosOf(now)
		if _, err := write(ctx, s, func(c conn) (struct{}, error) {
			_, err := c.exec(ctx, `UPDATE sessions SET last_seen_at = ? WHERE id = ?`, si.LastSeenAt, si.ID)
			return struct{}{}, err
		}); err != nil {
			return si, err
		}
	}
	return si, nil
}

// chosenMember reads a user the session proved, or not_found when it is
// none of its choices, was removed, or has changed password since.
func chosenMember(ctx context.Context, c conn, sess Session, userID string) (Member, error) {
	i := slices.IndexFunc(sess.Choices, func(ch SessionChoice) bool { return ch.UserID == userID })
	if i < 0 {
		return Member{}, workshop.NotFound("session")
	}
	m, err := member(ctx, c, userID)
	if workshop.ErrorCode(err) == workshop.CodeNotFound ||
		err == nil && (m.User.PasswordHash == "" || workshop.PasswordStamp(m.User.PasswordHash) != sess.Choices[i].Stamp) {
		return Member{}, workshop.NotFound("session")
	}
	return m, err
}

// SessionMembers are the members a session may act as: its choices whose
// user still exists with the password it signed in with.
func (s *Store) SessionMembers(ctx context.Context, sess Session) ([]Member, error) {
	var out []Member
	for _, ch := range sess.Choices {
		m, err := chosenMember(ctx, s.read(), sess, ch.UserID)
		if workshop.ErrorCode(err) == workshop.CodeNotFound {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

// ChooseSessionUser makes the session act as one of the users it proved
// (the organisation switcher); not_found for any other.
func (s *Store) ChooseSessionUser(ctx context.Context, id, userID string) error {
	si, err := s.Session(ctx, id)
	if err != nil {
		return err
	}
	// Should the password change after this check, the next request's
	// check of the stamp ends the session.
	if _, err := chosenMember(ctx, s.read(), si.Session, userID); err != nil {
		return err
	}
	_, err = write(ctx, s, func(c conn) (struct{}, error) {
		_, err := c.exec(ctx, `UPDATE sessions SET user_id = ? WHERE id = ?`, userID, id)
		return struct{}{}, err
	})
	return err
}

// DeleteSession ends a session (sign-out); ending one that is gone is not
// an error.
func (s *Store) DeleteSession(ctx context.Context, id string) error {
	_, err := write(ctx, s, func(c conn) (struct{}, error) {
		_, err := c.exec(ctx, `DELETE FROM sessions WHERE id = ?`, id)
		return struct{}{}, err
	})
	return err
}
