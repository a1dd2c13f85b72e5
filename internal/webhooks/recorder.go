package webhooks

import (
	"context"
	"sync"
	"time"

	"github.com/workshop-platform/workshop/internal/store"
)

// recorder stores attempt results in batches: every result waiting when a
// transaction starts goes into it (each still guarded by its own lease), so
// a busy dispatcher writes one transaction per batch, not per attempt.
// Once a batch is stored, the slots of its attempts are freed.
type recorder struct {
	d        *Dispatcher
	finished chan<- done

	mu      sync.Mutex
	queue   []queued
	closed  bool
	pending chan struct{}
}

type queued struct {
	res       store.AttemptResult
	webhookID string
}

func newRecorder(d *Dispatcher, finished chan<- done) *recorder {
	return &recorder{d: d, finished: finished, pending: make(chan struct{}, 1)}
}

func (r *recorder) add(res store.AttemptResult, webhookID string) {
	r.mu.Lock()
	r.queue = append(r.queue, queued{res, webhookID})
	r.mu.Unlock()
	r.signal()
}

func (r *recorder) signal() {
	select {
	case r.pending <- struct{}{}:
	default:
	}
}

// close makes run return once the queue is stored.
func (r *recorder) close() {
	r.mu.Lock()
	r.closed = true
	r.mu.Unlock()
	r.signal()
}

func (r *recorder) run() {
	for range r.pending {
		for {
			r.mu.Lock()
			batch, closed := r.queue, r.closed
			r.queue = nil
			r.mu.Unlock()
			if len(batch) > 0 {
				r.store(batch)
				continue
			}
			if closed {
				return
			}
			break
		}
	}
}

// store writes a batch, retrying a failed transaction a few times; results
// that cannot be stored are dropped: their leases run out and the
// deliveries are attempted again (at least once, never lost).
func (r *recorder) store(batch []queued) {
	results := make([]store.AttemptResult, len(batch))
	for i, q := range batch {
		results[i] = q.res
	}
	for try := 0; try < 5; try++ {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		_, err := r.d.st.RecordAttempts(ctx, results, r.d.cfg.RetryDelays)
		cancel()
		if err == nil {
			break
		}
		r.d.log.Warn("webhooks: record attempt results", "error", err, "count", len(results), "try", try+1)
		time.Sleep(time.Duration(try+1) * 200 * time.Millisecond)
	}
	for _, q := range batch {
		r.finished <- done{webhookID: q.webhookID}
	}
}
