package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// execer is what *sql.DB and *sql.Tx share.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// conn runs the package's queries (with ? placeholders) on a pool or in a
// transaction.
type conn struct {
	s  *Store
	ex execer
}

func (c conn) exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return c.ex.ExecContext(ctx, c.s.q(query), args...)
}

func (c conn) query(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return c.ex.QueryContext(ctx, c.s.q(query), args...)
}

func (c conn) queryRow(ctx context.Context, query string, args ...any) *sql.Row {
	return c.ex.QueryRowContext(ctx, c.s.q(query), args...)
}

// read is the connection for reads outside a write transaction.
func (s *Store) read() conn { return conn{s: s, ex: s.reader} }

// write runs fn in one write transaction and commits it. When ctx carries
// an Idempotency-Key claim, its response is rendered from fn's result and
// stored in the same transaction, so a create and the record that protects
// it from being repeated commit together or not at all.
func write[T any](ctx context.Context, s *Store, fn func(c conn) (T, error)) (T, error) {
	var zero T
	tx, err := s.writer.BeginTx(ctx, nil)
	if err != nil {
		return zero, fmt.Errorf("begin: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck // a no-op after Commit
	c := conn{s: s, ex: tx}
	out, err := fn(c)
	if err != nil {
		return zero, err
	}
	claim := workshop.IdempotencyClaimFrom(ctx)
	if claim != nil && claim.Render != nil && !claim.Completed {
		if err := completeClaim(ctx, c, claim, out); err != nil {
			return zero, err
		}
	}
	if err := tx.Commit(); err != nil {
		return zero, fmt.Errorf("commit: %w", err)
	}
	if claim != nil && claim.Render != nil {
		claim.Completed = true
	}
	return out, nil
}

// isUniqueViolation tells whether err is a unique-constraint violation on
// either database; constraint, when not empty, must appear in its message.
func isUniqueViolation(err error, constraint string) bool {
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		return pg.Code == "23505" && (constraint == "" || strings.Contains(pg.ConstraintName+pg.Message, constraint))
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		return (se.Code() == sqlite3.SQLITE_CONSTRAINT_UNIQUE || se.Code() == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY) &&
			(constraint == "" || strings.Contains(se.Error(), constraint))
	}
	return false
}

// notFoundOr turns sql.ErrNoRows into the domain's not_found for what.
func notFoundOr(err error, what string) error {
	if errors.Is(err, sql.ErrNoRows) {
		return workshop.NotFound(what)
	}
	return err
}
