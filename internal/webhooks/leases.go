package webhooks

import (
	"context"
	"sync"
	"time"
)

// Leases are short and renewed. A claimed delivery is leased for
// Config.Lease (a few seconds); while this dispatcher holds it (queued,
// attempted, or its result waiting to be recorded), renewLoop extends the
// lease every Lease/3. When the process dies the renewals stop, and within
// Lease (+ a poll) another dispatcher makes the attempt again: the same
// delivery, the next attempt number, its place in the retry schedule kept
// (store.ClaimDeliveries).

// held is what this dispatcher holds leases on: delivery id -> the token of
// the claim that leased it.
type held struct {
	mu  sync.Mutex
	ids map[string]string
}

func (h *held) add(token string, deliveryIDs ...string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.ids == nil {
		h.ids = map[string]string{}
	}
	for _, id := range deliveryIDs {
		h.ids[id] = token
	}
}

func (h *held) drop(deliveryIDs ...string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, id := range deliveryIDs {
		delete(h.ids, id)
	}
}

// byToken is what is held, grouped by claim.
func (h *held) byToken() map[string][]string {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := map[string][]string{}
	for id, token := range h.ids {
		out[token] = append(out[token], id)
	}
	return out
}

// renewEvery is how often held leases are renewed: three times a lease, so
// that one slow or failed renewal loses none.
func (c Config) renewEvery() time.Duration { return c.Lease / 3 }

// renewLoop renews the held leases until ctx ends.
func (d *Dispatcher) renewLoop(ctx context.Context) {
	t := time.NewTicker(d.cfg.renewEvery())
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		held := d.held.byToken()
		if len(held) == 0 {
			continue
		}
		// A slow renewal (a busy database) still extends the leases from
		// its own start: it may take up to a lease before it is given up.
		rctx, cancel := context.WithTimeout(ctx, d.cfg.Lease)
		_, err := d.st.RenewLeases(rctx, held, d.cfg.Lease)
		cancel()
		if err != nil && ctx.Err() == nil {
			d.log.Warn("webhooks: renew leases", "error", err)
		}
	}
}
