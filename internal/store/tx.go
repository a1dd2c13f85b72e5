package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"

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
	// SQLite only: prepared statements of the pool (db) the conn uses, so
	// that a query is parsed once per connection, not on every call; pgx
	// caches PostgreSQL's statements by itself.
	stmts *stmtCache
	tx    *sql.Tx
	ev    *txEvents // the events the write transaction recorded
}

// stmtCache holds the prepared statements of one pool.
type stmtCache struct {
	db     *sql.DB
	m      sync.Map // query -> *sql.Stmt
	missed sync.Map // queries run in a transaction before they were prepared
}

// prepareMissed prepares the queries a transaction ran unprepared. It runs
// after the transaction: SQLite's one writer connection is busy during it,
// so preparing on the pool then would wait for itself.
func (c *stmtCache) prepareMissed(ctx context.Context) {
	c.missed.Range(func(q, _ any) bool {
		c.missed.Delete(q)
		_, _ = c.get(ctx, q.(string)) // a failure here shows again when the query runs
		return true
	})
}

func (c *stmtCache) get(ctx context.Context, query string) (*sql.Stmt, error) {
	if st, ok := c.m.Load(query); ok {
		return st.(*sql.Stmt), nil
	}
	st, err := c.db.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	if prev, loaded := c.m.LoadOrStore(query, st); loaded {
		st.Close()
		return prev.(*sql.Stmt), nil
	}
	return st, nil
}

// stmt is the prepared statement of query for this conn, or nil when
// statements are not cached (PostgreSQL).
func (c conn) stmt(ctx context.Context, query string) (*sql.Stmt, error) {
	if c.stmts == nil {
		return nil, nil
	}
	if c.tx == nil {
		return c.stmts.get(ctx, query)
	}
	st, ok := c.stmts.m.Load(query)
	if !ok {
		c.stmts.missed.Store(query, true)
		return nil, nil
	}
	return c.tx.StmtContext(ctx, st.(*sql.Stmt)), nil
}

func (c conn) exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	st, err := c.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	if st != nil {
		return st.ExecContext(ctx, args...)
	}
	return c.ex.ExecContext(ctx, c.s.q(query), args...)
}

func (c conn) query(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	st, err := c.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	if st != nil {
		return st.QueryContext(ctx, args...)
	}
	return c.ex.QueryContext(ctx, c.s.q(query), args...)
}

// row is a single-row result whose error may come from preparing.
type row struct {
	r   *sql.Row
	err error
}

func (r row) Scan(dest ...any) error {
	if r.err != nil {
		return r.err
	}
	return r.r.Scan(dest...)
}

func (c conn) queryRow(ctx context.Context, query string, args ...any) row {
	st, err := c.stmt(ctx, query)
	if err != nil {
		return row{err: err}
	}
	if st != nil {
		return row{r: st.QueryRowContext(ctx, args...)}
	}
	return row{r: c.ex.QueryRowContext(ctx, c.s.q(query), args...)}
}

// read is the connection for reads outside a write transaction.
func (s *Store) read() conn { return conn{s: s, ex: s.reader, stmts: s.readStmts} }

// write runs fn as one atomic write and commits it before it returns.
//
// On SQLite, concurrent writes are committed in groups (see batcher): each
// runs inside its own savepoint of a shared transaction, so it succeeds or
// fails alone, and it returns only once the group is committed.
func write[T any](ctx context.Context, s *Store, fn func(c conn) (T, error)) (T, error) {
	return writeUnder(ctx, s, nil, fn)
}

// writeUnder is write under an Idempotency-Key (nil: none): the key and the
// response rendered from fn's result are stored in the same transaction,
// so a create and the record that protects it from being repeated commit
// together or not at all. A key another request holds or stored makes the
// write fail with idempotency_in_progress. On PostgreSQL the key's insert
// waits for a concurrent holder, so a request never runs twice; on SQLite
// writes are serial anyway.
func writeUnder[T any](ctx context.Context, s *Store, key *IdempotencyKey, fn func(c conn) (T, error)) (T, error) {
	var out T
	op := func(c conn) error {
		var err error
		if out, err = fn(c); err != nil {
			return err
		}
		if key != nil {
			return storeKey(ctx, c, key, out)
		}
		return nil
	}
	if err := s.run(ctx, op); err != nil {
		var zero T
		return zero, err
	}
	return out, nil
}

// run commits op as one atomic write: in the batcher's next group on
// SQLite, in a transaction of its own on PostgreSQL.
func (s *Store) run(ctx context.Context, op func(c conn) error) error {
	if s.batcher != nil {
		return s.batcher.do(ctx, op)
	}
	return s.writeTx(ctx, op)
}

// writeTx runs op in a transaction of its own (PostgreSQL).
func (s *Store) writeTx(ctx context.Context, op func(c conn) error) error {
	tx, err := s.writer.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck // a no-op after Commit
	c := conn{s: s, ex: tx, stmts: s.writeStmts, tx: tx, ev: &txEvents{}}
	if err := op(c); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	if c.ev.n > 0 {
		s.eventHooks.fire()
	}
	return nil
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
