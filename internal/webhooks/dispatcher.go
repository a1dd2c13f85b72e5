// Package webhooks delivers the outbox's events to the registered endpoints.
//
// Every `serve` process runs a Dispatcher. It fans each outbox event out to
// the matching registrations as deliveries (store.FanOut: exactly once,
// whatever the number of processes), claims due deliveries with leases
// (no two processes make the same attempt), POSTs them signed, and records
// each result under its lease; recording and claiming share one
// transaction per step (store.Settle). A process that dies
// mid-attempt loses nothing: when the lease runs out the delivery is due
// again, for any process. Attempts run in a bounded pool with a limit per
// registration, so a slow or dead endpoint delays no other.
package webhooks

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/workshop-platform/workshop/internal/store"
)

// Config are the dispatcher's settings; zero values take the defaults.
type Config struct {
	RetryDelays []time.Duration // before attempts 2, 3, ...: default 1m, 5m, 30m, 2h
	Timeout     time.Duration   // per attempt: default 10s
	Guard       *Guard          // nil: the strict guard (https, public addresses only)

	Workers      int           // attempts in flight at most: default 64
	PerWebhook   int           // attempts in flight to one registration at most: default 8
	PollInterval time.Duration // how often to look for work committed by other processes: default 250ms
	LeaseMargin  time.Duration // a lease is Timeout + LeaseMargin: default 15s
	BatchSize    int           // events fanned out per transaction: default 500
	// ShutdownGrace is how long attempts in flight may finish (and be
	// recorded) once Run's context is cancelled; those still running then
	// are abandoned to their leases. Default 0: abandoned at once.
	ShutdownGrace time.Duration

	Registry prometheus.Registerer // nil: no metrics
	Logger   *slog.Logger
}

// DefaultRetryDelays is the contract's schedule: 5 attempts in all.
var DefaultRetryDelays = []time.Duration{time.Minute, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour}

func (c Config) withDefaults() Config {
	if len(c.RetryDelays) == 0 {
		c.RetryDelays = DefaultRetryDelays
	}
	if c.Timeout <= 0 {
		c.Timeout = 10 * time.Second
	}
	if c.Guard == nil {
		c.Guard = &Guard{}
	}
	if c.Workers <= 0 {
		c.Workers = 64
	}
	if c.PerWebhook <= 0 {
		c.PerWebhook = 8
	}
	if c.PollInterval <= 0 {
		c.PollInterval = 250 * time.Millisecond
	}
	if c.LeaseMargin <= 0 {
		c.LeaseMargin = 15 * time.Second
	}
	if c.BatchSize <= 0 {
		c.BatchSize = 500
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return c
}

// Dispatcher delivers webhooks.
type Dispatcher struct {
	st      *store.Store
	cfg     Config
	client  *http.Client
	log     *slog.Logger
	metrics *metrics
	wake    chan struct{}
}

// New makes a dispatcher on a store; Run starts it.
func New(st *store.Store, cfg Config) *Dispatcher {
	cfg = cfg.withDefaults()
	tr := &http.Transport{
		Proxy:                 nil, // never through a proxy: the guard must see the real address
		DialContext:           cfg.Guard.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          max(256, cfg.Workers),
		MaxIdleConnsPerHost:   cfg.Workers, // many registrations may share a host
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   cfg.Timeout,
		ResponseHeaderTimeout: cfg.Timeout,
	}
	client := &http.Client{
		Transport: tr,
		// A redirect is not followed: the 3xx is the answer, a failure.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	return &Dispatcher{st: st, cfg: cfg, client: client, log: cfg.Logger, metrics: newMetrics(cfg.Registry, st),
		wake: make(chan struct{}, 1)}
}

// Wake makes the dispatcher look for new events at once.
func (d *Dispatcher) Wake() {
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// finished is an attempt that ended: its result to record, or abandoned
// at shutdown (nothing to record: its lease runs out).
type finished struct {
	webhookID string
	result    store.AttemptResult
	abandoned bool
}

// Run dispatches until ctx is cancelled. Attempts in flight then get
// ShutdownGrace to finish (and be recorded); the rest are abandoned to
// their leases.
//
// One goroutine owns the state: the attempts in flight per registration.
// Each step is one transaction (store.Settle) that records the results of
// the attempts that finished since the last step and claims as many new
// attempts as there are free slots, so a busy dispatcher writes once per
// step, not once per attempt.
func (d *Dispatcher) Run(ctx context.Context) error {
	stop := d.st.OnEventsCommitted(d.Wake)
	defer stop()
	attemptCtx, abandon := context.WithCancel(context.WithoutCancel(ctx))
	defer abandon()

	done := make(chan finished, d.cfg.Workers) // never full: at most Workers attempts
	inflight := map[string]int{}               // per registration: running or not yet recorded
	total := 0
	var pending []finished // ended, not yet recorded
	var workers sync.WaitGroup
	moreDue := true // a claim may find work

	poll := time.NewTicker(d.cfg.PollInterval)
	defer poll.Stop()
	// The fan-out runs beside the steps, on its own connection: new
	// deliveries are signalled on fanned.
	fanned := make(chan struct{}, 1)
	fanDone := make(chan struct{})
	go func() { defer close(fanDone); d.fanOutLoop(ctx, fanned) }()
	retry := time.NewTimer(time.Hour) // after a failed step
	retry.Stop()
	defer retry.Stop()
	lastSweep := time.Time{}

	collect := func(f finished) {
		pending = append(pending, f)
		for {
			select {
			case f := <-done:
				pending = append(pending, f)
			default:
				return
			}
		}
	}
	// step records what is pending and, when claim, claims for the free
	// slots; both in one transaction.
	step := func(claim bool) {
		after := maps.Clone(inflight)
		afterTotal := total
		var results []store.AttemptResult
		for _, f := range pending {
			if after[f.webhookID]--; after[f.webhookID] <= 0 {
				delete(after, f.webhookID)
			}
			afterTotal--
			if !f.abandoned {
				results = append(results, f.result)
			}
		}
		var cl *store.Claim
		if claim && afterTotal < d.cfg.Workers && ctx.Err() == nil {
			cl = &store.Claim{Token: newToken(), Lease: d.cfg.Timeout + d.cfg.LeaseMargin, Limit: d.cfg.Workers - afterTotal,
				PerWebhook: d.cfg.PerWebhook, MaxAttempts: len(d.cfg.RetryDelays) + 1, Slots: map[string]int{}}
			for id, n := range after {
				cl.Slots[id] = max(0, d.cfg.PerWebhook-n)
			}
		}
		if len(results) == 0 && cl == nil {
			inflight, total, pending = after, afterTotal, nil
			return
		}
		dbCtx := ctx
		if ctx.Err() != nil {
			var cancel context.CancelFunc
			dbCtx, cancel = context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
			defer cancel()
		}
		_, attempts, err := d.st.Settle(dbCtx, results, d.cfg.RetryDelays, cl)
		if err != nil {
			if ctx.Err() == nil {
				d.log.Warn("webhooks: record and claim", "error", err, "results", len(results))
				retry.Reset(time.Second)
			}
			return // nothing recorded nor claimed: the same again next step
		}
		inflight, total, pending = after, afterTotal, nil
		if cl == nil {
			return
		}
		full := false
		for _, n := range cl.Slots {
			full = full || n == 0
		}
		// More may be due unless the claim found nothing while every
		// registration could take more.
		moreDue = len(attempts) > 0 || full
		for _, a := range attempts {
			inflight[a.WebhookID]++
			total++
			token := cl.Token
			workers.Go(func() { done <- d.attempt(attemptCtx, token, a) })
		}
	}
	var analyzedAt int64 = -1 // the backlog when the statistics were last refreshed
	sweep := func() {
		if time.Since(lastSweep) < 5*time.Second {
			return
		}
		lastSweep = time.Now()
		if b, err := d.st.Backlog(ctx); err == nil && b.Pending >= 1000 && b.Pending > 4*analyzedAt {
			if err := d.st.RefreshDeliveryStats(ctx); err != nil && ctx.Err() == nil {
				d.log.Warn("webhooks: refresh statistics", "error", err)
			}
			analyzedAt = b.Pending
		} else if err == nil && b.Pending < analyzedAt/4 {
			analyzedAt = b.Pending
		}
		if n, err := d.st.ExhaustAbandoned(ctx, len(d.cfg.RetryDelays)+1); err != nil && ctx.Err() == nil {
			d.log.Warn("webhooks: exhaust abandoned deliveries", "error", err)
		} else if n > 0 {
			d.log.Info("webhooks: deliveries exhausted after their dispatcher stopped", "count", n)
		}
	}
	for ctx.Err() == nil {
		select {
		case <-ctx.Done():
		case f := <-done:
			collect(f)
			step(moreDue)
		case <-fanned:
			moreDue = true
			step(true)
		case <-retry.C:
			step(moreDue)
		case <-poll.C:
			sweep()
			if due, err := d.st.HasDueDeliveries(ctx); err == nil && due {
				moreDue = true
			}
			if moreDue || len(pending) > 0 {
				step(moreDue)
			}
		}
	}

	<-fanDone
	// Shutting down: attempts in flight get the grace, then are abandoned;
	// the results there are are recorded.
	wait := make(chan struct{})
	go func() { workers.Wait(); close(wait) }()
	grace := time.NewTimer(d.cfg.ShutdownGrace)
	defer grace.Stop()
	select {
	case <-wait:
	case <-grace.C:
		abandon()
		<-wait
	}
	for len(done) > 0 {
		pending = append(pending, <-done)
	}
	step(false)
	d.client.CloseIdleConnections()
	return nil
}

// fanOutLoop fans new events out as they are committed (the wake-up of
// this process's writes), shortly after when events are not final yet
// (PostgreSQL: an older transaction is still running), and at each poll
// (events of other processes). It signals fanned when it made deliveries.
func (d *Dispatcher) fanOutLoop(ctx context.Context, fanned chan<- struct{}) {
	poll := time.NewTicker(d.cfg.PollInterval)
	defer poll.Stop()
	heldBack := time.NewTimer(time.Hour)
	heldBack.Stop()
	defer heldBack.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-d.wake:
		case <-heldBack.C:
		case <-poll.C:
		}
		for ctx.Err() == nil {
			has, err := d.st.HasEventsToFanOut(ctx)
			if err != nil || !has {
				if err != nil && ctx.Err() == nil {
					d.log.Warn("webhooks: look for events", "error", err)
				}
				break
			}
			n, made, err := d.st.FanOut(ctx, d.cfg.BatchSize)
			if err != nil {
				if ctx.Err() == nil {
					d.log.Warn("webhooks: fan out events", "error", err)
				}
				break
			}
			if made > 0 {
				select {
				case fanned <- struct{}{}:
				default:
				}
			}
			if n == 0 {
				heldBack.Reset(10 * time.Millisecond)
			}
			if n < d.cfg.BatchSize {
				break
			}
		}
	}
}

func newToken() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// attempt makes one attempt; one abandoned at shutdown is not an answer
// of the endpoint and is not recorded (its lease runs out).
func (d *Dispatcher) attempt(ctx context.Context, token string, a store.Attempt) finished {
	res := store.AttemptResult{DeliveryID: a.DeliveryID, Token: token, RoundAttempt: a.RoundAttempt}
	outcome := d.post(ctx, a, &res)
	if ctx.Err() != nil {
		return finished{webhookID: a.WebhookID, abandoned: true}
	}
	d.metrics.attempt(outcome, res.Succeeded, a.Event.OccurredAt.Time())
	return finished{webhookID: a.WebhookID, result: res}
}

// Outcomes of an attempt (the metric's label).
const (
	outcomeSuccess  = "success"
	outcomeStatus   = "status"   // a non-2xx answer
	outcomeRedirect = "redirect" // a 3xx answer (not followed)
	outcomeTimeout  = "timeout"
	outcomeBlocked  = "blocked" // the SSRF guard refused the address
	outcomeNetwork  = "network" // no connection, TLS failure, reset, ...
	outcomeInvalid  = "invalid" // the request could not be made
)

// post sends the delivery and fills in the result.
func (d *Dispatcher) post(ctx context.Context, a store.Attempt, res *store.AttemptResult) string {
	body := Body(a.Event.ID, a.Event.Name, a.Event.OccurredAt, a.Event.Data)
	ctx, cancel := context.WithTimeout(ctx, d.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, a.URL, bytes.NewReader(body))
	if err == nil {
		err = SignRequest(req.Header, a.SigningSecret, a.DeliveryID, a.Event.Name, a.Attempt, time.Now(), body)
	}
	if err != nil {
		res.Error = "the request could not be made: " + err.Error()
		return outcomeInvalid
	}
	resp, err := d.client.Do(req)
	if err != nil {
		var blocked *BlockedError
		switch {
		case errors.As(err, &blocked):
			res.Error = "refused: " + blocked.Error()
			return outcomeBlocked
		case errors.Is(err, context.DeadlineExceeded) || isTimeout(err):
			res.Error = fmt.Sprintf("no answer within %s", d.cfg.Timeout)
			return outcomeTimeout
		default:
			res.Error = err.Error()
			return outcomeNetwork
		}
	}
	defer resp.Body.Close()
	excerpt, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10)) // lets the connection be reused
	res.StatusCode = resp.StatusCode
	switch {
	case resp.StatusCode >= 200 && resp.StatusCode < 300:
		res.Succeeded = true
		return outcomeSuccess
	case resp.StatusCode >= 300 && resp.StatusCode < 400:
		res.Error = fmt.Sprintf("the endpoint answered %d (redirect to %q, not followed)", resp.StatusCode, resp.Header.Get("Location"))
		return outcomeRedirect
	default:
		res.Error = fmt.Sprintf("the endpoint answered %d", resp.StatusCode)
		if len(excerpt) > 0 {
			res.Error += ": " + string(excerpt)
		}
		return outcomeStatus
	}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
