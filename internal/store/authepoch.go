package store

import (
	"context"
	"sync"
	"time"
)

// Authenticating a request must see a revocation committed by any process
// before the request arrived, so the auth epoch (migration 00008) is read
// for every request. But one read can answer every request that arrived
// before it began. So reads do not overlap: a request that arrives while
// a read is in flight waits for the next one, which one of the waiting
// requests makes (without a goroutine of its own to hand over to) for all
// of them as soon as the read in flight ends. Idle, a request reads at
// once; busy, one read answers many.
type epochReads struct {
	mu      sync.Mutex
	reading bool         // a read is in flight
	next    *epochFlight // the read to begin when the one in flight ends; nil: nobody waits
}

// epochFlight is one read of the auth epoch and its answer.
type epochFlight struct {
	lead chan struct{} // the read in flight ended: the flight's first request makes it
	done chan struct{} // closed once n and err are set
	n    int64
	err  error
}

// epochReadTimeout bounds one read of the epoch, which no single request's
// cancellation may cut short: it answers all the waiting requests.
const epochReadTimeout = 10 * time.Second

// authEpoch is the auth epoch as read by a read begun after the call.
func (s *Store) authEpoch(ctx context.Context) (int64, error) {
	e := &s.epochs
	e.mu.Lock()
	if !e.reading {
		e.reading = true
		e.mu.Unlock()
		return s.readAuthEpoch(newEpochFlight())
	}
	f, first := e.next, e.next == nil
	if first {
		f = newEpochFlight()
		e.next = f
	}
	e.mu.Unlock()
	if first {
		// The others wait for this read: it is made whatever becomes of
		// ctx, and it begins within one read from now.
		<-f.lead
		return s.readAuthEpoch(f)
	}
	select {
	case <-f.done:
		return f.n, f.err
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}

func newEpochFlight() *epochFlight {
	return &epochFlight{lead: make(chan struct{}, 1), done: make(chan struct{})}
}

// readAuthEpoch makes flight f's read, answers it, and lets the next
// flight, if anyone waits for one, begin.
func (s *Store) readAuthEpoch(f *epochFlight) (int64, error) {
	ctx, cancel := context.WithTimeout(context.Background(), epochReadTimeout)
	f.err = s.read().queryRow(ctx, `SELECT n FROM auth_epoch WHERE id = 1`).Scan(&f.n)
	cancel()
	close(f.done)
	e := &s.epochs
	e.mu.Lock()
	next := e.next
	e.next = nil
	e.reading = next != nil
	e.mu.Unlock()
	if next != nil {
		next.lead <- struct{}{}
	}
	return f.n, f.err
}
