package webhooks

import (
	"context"
	"sync"
	"time"

	"github.com/workshop-platform/workshop/internal/store"
)

// The pump is Run's state: one goroutine owns it. It keeps the workers
// busy without waiting for the database between attempts: deliveries are
// claimed ahead into a ready queue (about Workers of them ready to start,
// and PerWebhook per registration), a finished attempt's slot is refilled from that queue at
// once, and results are recorded, and the queue topped up, by one
// transaction at a time running beside the attempts (store.Settle). The
// fan-out claims the deliveries it makes in its own transaction, so that
// a fresh event goes out without waiting for another.
//
// A claimed delivery's lease is short and renewed while it waits in the
// queue, its attempt runs and its result waits to be recorded (leases.go);
// a delivery still queued after Timeout is released unmade rather than
// started, so that another dispatcher may make it.

// finished is an attempt that ended: its result to record, or abandoned
// at shutdown (nothing to record: its lease runs out).
type finished struct {
	webhookID  string
	deliveryID string
	result     store.AttemptResult
	abandoned  bool
}

// queued is a claimed attempt waiting for a slot.
type queued struct {
	attempt store.Attempt
	token   string
	claimed time.Time
}

// settled is what a Settle transaction, or a fan-out, did.
type settled struct {
	results  []store.AttemptResult // recorded, or to record again on err
	claim    *store.Claim
	claimed  time.Time
	attempts []store.Attempt
	err      error
}

// handoff lets the fan-out claim what it makes: it asks the pump for a
// claim on the room in its queue, then hands the claimed attempts over.
type handoff struct {
	ask  chan chan *store.Claim
	give chan settled
	d    *Dispatcher
}

// claim asks the pump for a claim; nil when there is no room.
func (h handoff) claim(ctx context.Context) *store.Claim {
	reply := make(chan *store.Claim, 1)
	select {
	case h.ask <- reply:
		return <-reply
	case <-ctx.Done():
		return nil
	}
}

// took hands a fan-out's claim over; a pump gone (shutdown) gets its
// attempts released instead.
func (h handoff) took(ctx context.Context, s settled) {
	if s.claim == nil {
		return
	}
	select {
	case h.give <- s:
	case <-ctx.Done():
		h.d.release(ctx, queuedOf(s))
	}
}

type pump struct {
	d          *Dispatcher
	attemptCtx context.Context
	done       chan finished
	settledCh  chan settled
	workers    sync.WaitGroup

	running  map[string]int // per registration: attempts running
	total    int            // attempts running
	queue    []queued       // claimed, waiting for a slot, oldest first
	queuedBy map[string]int // per registration: in the queue
	pending  []store.AttemptResult
	release  []queued // claimed but not to be made: given back by the next Settle's caller
	settling bool
	moreDue  bool // a claim may find work
	// news counts the signals of new work (fan-outs, polls); a claim that
	// found nothing clears moreDue only if none came while it ran.
	news, newsAtClaim int
}

// Run dispatches until ctx is cancelled. Attempts in flight then get
// ShutdownGrace to finish (and be recorded); the rest are abandoned to
// their leases, and queued ones are released.
func (d *Dispatcher) Run(ctx context.Context) error {
	stop := d.st.OnEventsCommitted(d.Wake)
	defer stop()
	attemptCtx, abandon := context.WithCancel(context.WithoutCancel(ctx))
	defer abandon()
	p := &pump{d: d, attemptCtx: attemptCtx, done: make(chan finished, d.cfg.Workers), settledCh: make(chan settled, 1),
		running: map[string]int{}, queuedBy: map[string]int{}, moreDue: true}

	poll := time.NewTicker(d.cfg.PollInterval)
	defer poll.Stop()
	// The fan-out runs beside, on its own connection: new deliveries are
	// signalled on fanned.
	fanned := make(chan struct{}, 1)
	fanDone := make(chan struct{})
	h := handoff{ask: make(chan chan *store.Claim), give: make(chan settled), d: d}
	go func() { defer close(fanDone); d.fanOutLoop(ctx, h, fanned) }()
	retry := time.NewTimer(time.Hour) // after a failed Settle
	retry.Stop()
	defer retry.Stop()
	gather := time.NewTimer(time.Hour) // results waiting to be recorded in a group
	gather.Stop()
	defer gather.Stop()
	gathering := false
	gatherSoon := func() { // records the results waiting within gatherFor
		if !gathering {
			gathering = true
			gather.Reset(gatherFor)
		}
	}
	// Leases are renewed until the pump has stopped: attempts in flight
	// may finish within ShutdownGrace and their results be recorded.
	renewCtx, stopRenewing := context.WithCancel(context.WithoutCancel(ctx))
	renewDone := make(chan struct{})
	go func() { defer close(renewDone); d.renewLoop(renewCtx) }()

	p.settle(ctx)
	for ctx.Err() == nil {
		select {
		case <-ctx.Done():
		case f := <-p.done:
			p.finish(f)
			p.start()
			// Results are recorded in groups: at once when enough are
			// waiting or a slot is free, otherwise within a few ms. A claim
			// while every slot is busy would only top the queue up by the
			// few attempts that ended since the last one: claiming in
			// groups keeps the database's share of the CPU small, which
			// the attempts in flight need (on a busy 2-core machine,
			// settling after every attempt took most of a core).
			if len(p.pending) >= p.group() || (p.moreDue && (p.slotFree() || p.hungry())) {
				p.settle(ctx)
			} else {
				gatherSoon()
			}
		case <-gather.C:
			gathering = false
			p.settle(ctx)
		case s := <-p.settledCh:
			if !p.settledWith(s) {
				retry.Reset(time.Second)
				break
			}
			p.start()
			// Again at once while claims find work for free slots, enough
			// results wait or news came meanwhile; otherwise the next event
			// (an attempt ending, the gathering timer, news, the poll) does it.
			if (len(s.attempts) > 0 && (p.slotFree() || p.hungry())) || len(p.pending) >= p.group() || p.news != p.newsAtClaim {
				p.settle(ctx)
			} else if len(p.pending) > 0 {
				gatherSoon()
			}
		case reply := <-h.ask:
			// Not reserved: a claim of the pump's own may take the same
			// room meanwhile, so the queue may hold twice what claimFor
			// allows.
			reply <- p.claimFor(ctx, true)
		case s := <-h.give:
			if s.err == nil {
				p.queueClaimed(s)
				p.start()
			}
		case <-fanned:
			p.newWork()
			p.settle(ctx)
		case <-retry.C:
			p.settle(ctx)
		case <-poll.C:
			if due, err := d.st.HasDueDeliveries(ctx); err == nil && due {
				p.newWork()
			}
			p.start() // a queued attempt may have waited too long: released
			p.settle(ctx)
		}
	}
	<-fanDone
	p.shutdown(abandon)
	stopRenewing()
	<-renewDone
	d.client.CloseIdleConnections()
	return nil
}

// gatherFor is how long results may wait to be recorded in a group.
const gatherFor = 5 * time.Millisecond

// group is how many results are worth a transaction at once.
func (p *pump) group() int { return max(1, p.d.cfg.Workers/4) }

// slotFree tells whether a worker is free with no queued attempt it may
// start (start has run): a claim can put it to work at once.
func (p *pump) slotFree() bool { return p.total < p.d.cfg.Workers }

// hungry tells whether a registration with attempts in flight has none
// queued: its next one to end leaves a slot idle unless a claim comes first.
func (p *pump) hungry() bool {
	for id := range p.running {
		if p.queuedBy[id] == 0 {
			return true
		}
	}
	return false
}

func (p *pump) newWork() {
	p.moreDue = true
	p.news++
}

// finish takes an ended attempt's result.
func (p *pump) finish(f finished) {
	if p.running[f.webhookID]--; p.running[f.webhookID] <= 0 {
		delete(p.running, f.webhookID)
	}
	p.total--
	if !f.abandoned {
		p.pending = append(p.pending, f.result)
	} else {
		p.d.held.drop(f.deliveryID) // its lease runs out: made again by any dispatcher
	}
}

// start starts queued attempts while there are free slots, oldest first,
// skipping registrations at their limit; one queued too long is released.
func (p *pump) start() {
	maxWait := p.d.cfg.Timeout
	kept := p.queue[:0]
	for _, q := range p.queue {
		switch {
		case time.Since(q.claimed) > maxWait:
			p.unqueue(q)
			p.release = append(p.release, q)
		case p.total < p.d.cfg.Workers && p.running[q.attempt.WebhookID] < p.d.cfg.PerWebhook:
			p.unqueue(q)
			p.running[q.attempt.WebhookID]++
			p.total++
			p.workers.Go(func() { p.done <- p.d.attempt(p.attemptCtx, q.token, q.attempt) })
		default:
			kept = append(kept, q)
		}
	}
	clear(p.queue[len(kept):])
	p.queue = kept
}

func (p *pump) unqueue(q queued) {
	if p.queuedBy[q.attempt.WebhookID]--; p.queuedBy[q.attempt.WebhookID] <= 0 {
		delete(p.queuedBy, q.attempt.WebhookID)
	}
}

// settle starts a transaction, unless one is running, that records the
// pending results and, when work may be due, claims to fill the queue.
func (p *pump) settle(ctx context.Context) {
	if p.settling {
		return
	}
	if len(p.release) > 0 {
		p.d.release(ctx, p.release)
		p.release = nil
	}
	cl := p.claimFor(ctx, p.moreDue)
	if len(p.pending) == 0 && cl == nil {
		return
	}
	results := p.pending
	p.pending, p.settling, p.newsAtClaim = nil, true, p.news
	// The transaction outlives a cancelled Run: the results it records
	// were made and must not be lost.
	dbCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	go func() {
		defer cancel()
		claimed := time.Now()
		_, attempts, err := p.d.st.Settle(dbCtx, results, p.d.cfg.RetryDelays, cl)
		p.settledCh <- settled{results: results, claim: cl, claimed: claimed, attempts: attempts, err: err}
	}()
}

// claimFor makes a claim for the room left in the queue (nil: none, or
// want is false).
func (p *pump) claimFor(ctx context.Context, want bool) *store.Claim {
	cfg := p.d.cfg
	// Queued attempts of a registration at its limit wait for it, not for
	// a worker: they take no room (Slots bound them), so that a slow
	// registration cannot fill the queue and starve the others.
	room := cfg.Workers - len(p.queue)
	for id, n := range p.queuedBy {
		if p.running[id] >= cfg.PerWebhook {
			room += n
		}
	}
	if !want || room <= 0 || ctx.Err() != nil {
		return nil
	}
	cl := &store.Claim{Token: newToken(), Lease: cfg.Lease, Limit: room,
		PerWebhook: cfg.PerWebhook, MaxAttempts: len(cfg.RetryDelays) + 1, Slots: map[string]int{}}
	for id, n := range p.queuedBy {
		cl.Slots[id] = max(0, cfg.PerWebhook-n)
	}
	return cl
}

// queueClaimed queues claimed attempts.
func (p *pump) queueClaimed(s settled) {
	for _, q := range queuedOf(s) {
		p.queue = append(p.queue, q)
		p.queuedBy[q.attempt.WebhookID]++
		p.d.held.add(q.token, q.attempt.DeliveryID)
	}
}

// queuedOf is a claim's attempts as queue entries.
func queuedOf(s settled) []queued {
	qs := make([]queued, len(s.attempts))
	for i, a := range s.attempts {
		qs[i] = queued{attempt: a, token: s.claim.Token, claimed: s.claimed}
	}
	return qs
}

// settledWith takes a transaction's outcome; false when it failed (its
// results are pending again, nothing was claimed).
func (p *pump) settledWith(s settled) bool {
	p.settling = false
	if s.err != nil {
		p.pending = append(s.results, p.pending...)
		p.d.log.Warn("webhooks: record and claim", "error", s.err, "results", len(s.results))
		return false
	}
	for _, r := range s.results {
		p.d.held.drop(r.DeliveryID)
	}
	if s.claim == nil {
		return true
	}
	full := false
	for _, n := range s.claim.Slots {
		full = full || n == 0
	}
	// More may be due unless the claim found nothing while every
	// registration could take more and no news came meanwhile.
	p.moreDue = len(s.attempts) > 0 || full || p.news != p.newsAtClaim
	p.queueClaimed(s)
	return true
}

// release gives claimed attempts back unmade; if that fails their leases
// run out and they are due again then.
func (d *Dispatcher) release(ctx context.Context, qs []queued) {
	byToken := map[string][]string{}
	for _, q := range qs {
		byToken[q.token] = append(byToken[q.token], q.attempt.DeliveryID)
		d.held.drop(q.attempt.DeliveryID)
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	for token, ids := range byToken {
		if err := d.st.Release(ctx, token, ids); err != nil {
			d.log.Warn("webhooks: release claimed deliveries", "error", err, "count", len(ids))
		}
	}
}

// shutdown lets the attempts in flight finish within the grace, abandons
// the rest, releases the queue and records the results there are.
func (p *pump) shutdown(abandon context.CancelFunc) {
	if p.settling {
		p.settledWith(<-p.settledCh)
	}
	wait := make(chan struct{})
	go func() { p.workers.Wait(); close(wait) }()
	grace := time.NewTimer(p.d.cfg.ShutdownGrace)
	defer grace.Stop()
	select {
	case <-wait:
	case <-grace.C:
		abandon()
		<-wait
	}
	for len(p.done) > 0 {
		p.finish(<-p.done)
	}
	ctx := context.Background()
	p.d.release(ctx, append(p.release, p.queue...))
	p.queue, p.release, p.moreDue = nil, nil, false
	if len(p.pending) > 0 {
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		if _, _, err := p.d.st.Settle(ctx, p.pending, p.d.cfg.RetryDelays, nil); err != nil {
			p.d.log.Warn("webhooks: record results at shutdown", "error", err, "results", len(p.pending))
		}
	}
}
