package store

import (
	"context"
	"errors"
	"fmt"
)

// maxBatch bounds how many writes share one SQLite transaction.
const maxBatch = 256

// batcher commits SQLite writes in groups. SQLite has one writer at a
// time, and most of a small write's cost is its commit (writing the WAL
// frames of every page it touched); writes that arrive while a group is
// being committed wait and are committed together in the next, each in its
// own savepoint (when there are several) so that one failing is rolled back
// alone. A write returns only after its group is committed.
type batcher struct {
	s *Store
	q *groupQueue[*writeReq]
}

type writeReq struct {
	ctx context.Context
	op  func(c conn) error
	err chan error
}

func newBatcher(s *Store) *batcher {
	b := &batcher{s: s}
	b.q = newGroupQueue(maxBatch, b.commit)
	return b
}

// errStoreClosed is the answer to a write after Close.
var errStoreClosed = errors.New("store: closed")

// do runs op in the next group and waits for the group's commit.
func (b *batcher) do(ctx context.Context, op func(c conn) error) error {
	r := &writeReq{ctx: ctx, op: op, err: make(chan error, 1)}
	if err := b.q.send(ctx, r); err != nil {
		return err
	}
	return <-r.err // the group commits whatever happens to ctx
}

// commit runs a group in one transaction, each write in a savepoint. The
// writes run with their request's values but without its cancellation: an
// interrupted statement would roll back the whole shared transaction.
func (b *batcher) commit(group []*writeReq) {
	errs := make([]error, len(group))
	fail := func(err error) {
		for i, r := range group {
			if errs[i] == nil {
				errs[i] = err
			}
			r.err <- errs[i]
		}
	}
	s := b.s
	tx, err := s.writer.BeginTx(context.Background(), nil)
	if err != nil {
		fail(fmt.Errorf("begin: %w", err))
		return
	}
	defer tx.Rollback() //nolint:errcheck // a no-op after Commit or Rollback
	// A write alone in its group needs no savepoint: when it fails, the
	// transaction is rolled back below. Most groups are one write (a group
	// of creates is one), and the savepoint's two statements, prepared
	// anew each time, were 2-3 % of the writer's time at 3,000 creates/s.
	savepoints := len(group) > 1
	savepoint := func(ctx context.Context, stmt string) error {
		if !savepoints {
			return nil
		}
		_, err := tx.ExecContext(ctx, stmt)
		return err
	}
	events, ok := 0, false
	for i, r := range group {
		if err := r.ctx.Err(); err != nil {
			errs[i] = err // gave up before it ran: nothing written
			continue
		}
		ctx := context.WithoutCancel(r.ctx)
		if err := savepoint(ctx, "SAVEPOINT w"); err != nil {
			fail(err)
			return
		}
		c := conn{s: s, ex: tx, stmts: s.writeStmts, tx: tx, ev: &txEvents{}}
		if errs[i] = r.op(c); errs[i] != nil {
			if err := savepoint(ctx, "ROLLBACK TO w"); err != nil {
				fail(err)
				return
			}
		} else {
			events += c.ev.n
			ok = true
		}
		if err := savepoint(ctx, "RELEASE w"); err != nil {
			fail(err)
			return
		}
	}
	if ok {
		if err := tx.Commit(); err != nil {
			fail(fmt.Errorf("commit: %w", err))
			return
		}
	} else {
		_ = tx.Rollback() // every write failed; the connection must be free before preparing
	}
	s.writeStmts.prepareMissed(context.Background())
	if events > 0 {
		s.eventHooks.fire()
	}
	for i, r := range group {
		r.err <- errs[i]
	}
}

// close stops the batcher after the group in progress.
func (b *batcher) close() { b.q.close() }
