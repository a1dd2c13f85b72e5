// Package webhooks delivers the outbox's events to the registered endpoints.
//
// Every `serve` process runs a Dispatcher. It fans each outbox event out to
// the matching registrations as deliveries (store.FanOut: exactly once,
// whatever the number of processes), claims due deliveries with leases
// (no two processes make the same attempt), POSTs them signed, and records
// each result under its lease; recording and claiming share one
// transaction per step (store.Settle), run beside the attempts, with
// deliveries claimed ahead so that no worker waits for it (pump.go). A
// process that dies
// mid-attempt loses nothing: its leases are short and renewed while it
// lives (leases.go), so within seconds of its death the delivery is due
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
	"net"
	"net/http"
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
	// Lease is how long a claimed delivery is reserved without renewal: the
	// dispatcher renews it every Lease/3 while it holds it, and a delivery
	// left by a dispatcher that died is attempted again by another about
	// Lease after. Default 5s.
	Lease     time.Duration
	BatchSize int // events fanned out per transaction: default 100 (a backlog starts going out after the first batch)
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
	if c.Lease <= 0 {
		c.Lease = 5 * time.Second
	}
	if c.BatchSize <= 0 {
		c.BatchSize = 100
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
	held    held // the leases it holds, renewed
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

// fanOutLoop fans new events out as they are committed (the wake-up of
// this process's writes), shortly after when events are not final yet
// (PostgreSQL: an older transaction is still running), and at each poll
// (events of other processes). The deliveries it makes are claimed in the
// same transaction as far as the pump has room (h), and handed to it; it
// signals fanned when it made more than that.
func (d *Dispatcher) fanOutLoop(ctx context.Context, h handoff, fanned chan<- struct{}) {
	poll := time.NewTicker(d.cfg.PollInterval)
	defer poll.Stop()
	// At once first: events committed while no dispatcher ran (a restart)
	// are not left for the first poll.
	heldBack := time.NewTimer(0)
	defer heldBack.Stop()
	// Events held back by an older transaction still running are looked
	// for again soon, then less often while it runs on (2 ms to 64 ms).
	backoff := time.Millisecond
	// A backlog is fanned out in batches growing from 10 events to
	// BatchSize: its first deliveries go out after a small transaction.
	batch := min(10, d.cfg.BatchSize)
	for {
		// Woken by a commit of this process, there are events: no need to
		// look first (a poll looks, to write nothing when there is nothing).
		woken := false
		select {
		case <-ctx.Done():
			return
		case <-d.wake:
			woken = true
		case <-heldBack.C:
		case <-poll.C:
		}
		for ctx.Err() == nil {
			if !woken {
				has, err := d.st.HasEventsToFanOut(ctx)
				if err != nil || !has {
					if err != nil && ctx.Err() == nil {
						d.log.Warn("webhooks: look for events", "error", err)
					}
					break
				}
			}
			woken = false
			t0 := time.Now()
			cl := h.claim(ctx)
			out, err := d.st.FanOutAndClaim(ctx, batch, cl)
			h.took(ctx, settled{claim: cl, claimed: t0, attempts: out.Attempts, err: err})
			if err != nil {
				if ctx.Err() == nil {
					d.log.Warn("webhooks: fan out events", "error", err)
				}
				break
			}
			n := out.Events
			if out.Deliveries > len(out.Attempts) {
				select {
				case fanned <- struct{}{}:
				default:
				}
			}
			if n == 0 {
				backoff = min(2*backoff, 64*time.Millisecond)
				heldBack.Reset(backoff)
			} else {
				backoff = time.Millisecond
			}
			if n < batch {
				batch = min(10, d.cfg.BatchSize)
				break
			}
			batch = min(2*batch, d.cfg.BatchSize)
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
	res := store.AttemptResult{DeliveryID: a.DeliveryID, WebhookID: a.WebhookID, Token: token,
		RoundAttempt: a.RoundAttempt, At: time.Now()}
	outcome := d.post(ctx, a, &res)
	res.Duration = time.Since(res.At)
	if ctx.Err() != nil {
		return finished{webhookID: a.WebhookID, deliveryID: a.DeliveryID, abandoned: true}
	}
	d.metrics.attempt(outcome, res.Succeeded, a.Event.OccurredAt.Time())
	return finished{webhookID: a.WebhookID, deliveryID: a.DeliveryID, result: res}
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
		err = SignRequest(req.Header, a.Secrets, a.DeliveryID, a.Event.Name, a.Attempt, time.Now(), body)
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
	excerpt, _ := io.ReadAll(io.LimitReader(resp.Body, store.MaxExcerptBytes))
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10)) // lets the connection be reused
	res.StatusCode, res.Excerpt = resp.StatusCode, string(excerpt)
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
