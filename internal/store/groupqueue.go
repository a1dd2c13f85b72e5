package store

import (
	"context"
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
