package store

import (
	"context"
	"errors"
)

// A groupWriter writes the requests of one write operation (job creates,
// step patches) by one function that takes a group of them: it loads what
// the group needs, decides each request by the domain's rules, and
// persists what was decided, in one atomic write. A request written by
// itself is a group of one, so there is one path for every rule.
//
// With grouping on (the default, WithGroupedWrites), concurrent requests
// meet in a groupQueue and are written together: on both databases most
// of a write's cost is per statement and per commit, not per row. Off,
// each request is written as it comes, by the same function.
type groupWriter[R grouped] struct {
	s     *Store
	write func(c conn, group []R) error
	queue *groupQueue[R] // nil: grouping off
}

// grouped is a request of a groupWriter.
type grouped interface{ base() *queued }

// queued is what every request of a groupWriter has: its context, what
// the write decided for it, and its answer.
type queued struct {
	ctx context.Context
	// deferred asks for the request to be written again in a group of its
	// own, after its group (the write cannot decide it with the others).
	deferred bool
	// refused is the decision's error: the request was not written.
	refused error
	done    chan error // the request's answer, from the queue's goroutine
}

func newQueued(ctx context.Context) queued { return queued{ctx: ctx, done: make(chan error, 1)} }

func (q *queued) base() *queued { return q }

// errWriteAgain tells a request's caller to write it in a group of its own.
var errWriteAgain = errors.New("store: write again alone")

func newGroupWriter[R grouped](s *Store, maxGroup int, write func(c conn, group []R) error) *groupWriter[R] {
	g := &groupWriter[R]{s: s, write: write}
	if s.groupWrites {
		g.queue = newGroupQueue(maxGroup, g.writeGroup)
	}
	return g
}

// do writes r: nil when it was written, the reason it was refused, or the
// write's failure.
func (g *groupWriter[R]) do(ctx context.Context, r R) error {
	if g.queue != nil {
		if err := g.queue.send(ctx, r); err != nil {
			return err
		}
		if err := <-r.base().done; !errors.Is(err, errWriteAgain) {
			return err
		}
	}
	return g.writeAlone(ctx, r)
}

// writeAlone writes r in a group of its own.
func (g *groupWriter[R]) writeAlone(ctx context.Context, r R) error {
	q := r.base()
	q.deferred, q.refused = false, nil
	if err := g.s.run(ctx, func(c conn) error { return g.write(c, []R{r}) }); err != nil {
		return err
	}
	return q.refused
}

// writeGroup writes a group in one atomic write and answers each request:
// those that gave up before it ran with their context's error; each with
// errWriteAgain when the write failed (all of it is undone: one request's
// failing statement is told apart by writing each alone) or deferred it;
// the others with what was decided.
func (g *groupWriter[R]) writeGroup(group []R) {
	live := group[:0]
	for _, r := range group {
		if err := r.base().ctx.Err(); err != nil {
			r.base().done <- err // gave up before it ran: nothing written
			continue
		}
		live = append(live, r)
	}
	if len(live) == 0 {
		return
	}
	err := g.s.run(context.Background(), func(c conn) error { return g.write(c, live) })
	for _, r := range live {
		q := r.base()
		if err != nil || q.deferred {
			q.done <- errWriteAgain
		} else {
			q.done <- q.refused
		}
	}
}

// close stops grouping after the group in progress.
func (g *groupWriter[R]) close() {
	if g.queue != nil {
		g.queue.close()
	}
}
