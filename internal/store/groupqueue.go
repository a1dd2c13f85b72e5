package store

import (
	"context"
	"errors"
)

// groupQueue hands requests to one goroutine that takes them in groups:
// it waits for the first, then takes those already waiting, up to max, and
// handles the group before it takes the next. So the requests that arrive
// while a group is handled make up the next one.
type groupQueue[T any] struct {
	reqs chan T
	quit chan struct{}
	done chan struct{}
}

func newGroupQueue[T any](max int, handle func(group []T)) *groupQueue[T] {
	q := &groupQueue[T]{reqs: make(chan T), quit: make(chan struct{}), done: make(chan struct{})}
	go q.loop(max, handle)
	return q
}

// send hands r to the queue's goroutine; it fails when ctx ends first or
// the queue is closed.
func (q *groupQueue[T]) send(ctx context.Context, r T) error {
	select {
	case q.reqs <- r:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-q.quit:
		return errStoreClosed
	}
}

func (q *groupQueue[T]) loop(max int, handle func(group []T)) {
	defer close(q.done)
	for {
		var first T
		select {
		case first = <-q.reqs:
		case <-q.quit:
			return
		}
		group := []T{first}
	gather:
		for len(group) < max {
			select {
			case r := <-q.reqs:
				group = append(group, r)
			default:
				break gather
			}
		}
		handle(group)
	}
}

// close stops the queue after the group in progress.
func (q *groupQueue[T]) close() {
	close(q.quit)
	<-q.done
}

// queued is what a request of a write queue (creates, step patches) has in
// common: its context, its answer, and whether it is to run alone, by the
// one-request path that has every rule and message, instead of in the group.
type queued struct {
	ctx   context.Context
	alone bool
	err   chan error // nil: written by the group; errRunAlone: to run alone
}

func newQueued(ctx context.Context) queued { return queued{ctx: ctx, err: make(chan error, 1)} }

func (q *queued) base() *queued { return q }

// errRunAlone tells a request's caller to write it by itself.
var errRunAlone = errors.New("store: run alone")

// writeQueued writes a group with write in one atomic write and answers
// each request: those that gave up before it ran with their context's
// error, each with errRunAlone when write failed (all of its writes are
// undone) or left it out, and nil when write wrote it.
func writeQueued[R interface{ base() *queued }](s *Store, group []R, write func(c conn, group []R) error) {
	live := group[:0]
	for _, r := range group {
		if err := r.base().ctx.Err(); err != nil {
			r.base().err <- err // gave up before it ran: nothing written
			continue
		}
		live = append(live, r)
	}
	if len(live) == 0 {
		return
	}
	// A group of one is written here too: were it sent back to run alone,
	// the queue would never be busy long enough for a group to form.
	err := s.run(context.Background(), func(c conn) error { return write(c, live) })
	for _, r := range live {
		if err != nil || r.base().alone {
			r.base().err <- errRunAlone
		} else {
			r.base().err <- nil
		}
	}
}
