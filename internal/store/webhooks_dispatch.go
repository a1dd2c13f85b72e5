package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// The webhook dispatcher's side of the store: the outbox is fanned out to
// deliveries exactly once, attempts are claimed with leases so that no two
// dispatchers (processes) make the same attempt, and each result is
// recorded only by the holder of the lease.

// eventHooks are called after a write transaction that recorded events
// commits: the dispatcher of this process picks new events up at once.
type eventHooks struct {
	mu    sync.Mutex
	next  int
	hooks map[int]func()
}

// OnEventsCommitted calls f (which must not block) after every commit that
// recorded events; the returned function stops it.
func (s *Store) OnEventsCommitted(f func()) (stop func()) {
	h := &s.eventHooks
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.hooks == nil {
		h.hooks = map[int]func(){}
	}
	h.next++
	id := h.next
	h.hooks[id] = f
	return func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		delete(h.hooks, id)
	}
}

func (h *eventHooks) fire() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, f := range h.hooks {
		f()
	}
}

// dispatchTx sets a dispatcher transaction up on PostgreSQL:
//
// It commits without waiting for the flush to disk (synchronous_commit off;
// SQLite's batcher already amortises its commits). That is safe for these
// transactions alone: the events they work from were committed durably with
// their change, and losing one of them in a crash of the database server
// only repeats work (a fan-out lost with its cursor is made again; a lost
// claim is due again; a lost result means the attempt is made again, which
// at-least-once delivery allows). Committed data is visible to other
// transactions at once either way, so claims stay exclusive.
//
// Its statements are planned for their parameters every time
// (plan_cache_mode force_custom_plan). The deliveries table grows from
// nothing to a large backlog within seconds; a statement prepared while it
// was small kept its generic plan, a sequential scan, until autovacuum next
// analysed the table, up to a minute later: 40 ms for every claim, and 900
// deliveries/s instead of 7,000 on a fresh database.
func dispatchTx[T any](ctx context.Context, s *Store, fn func(c conn) (T, error)) func(c conn) (T, error) {
	if s.dialect != postgresDialect {
		return fn
	}
	return func(c conn) (T, error) {
		if _, err := c.exec(ctx, `SELECT set_config('synchronous_commit', 'off', true), set_config('plan_cache_mode', 'force_custom_plan', true), set_config('enable_bitmapscan', 'off', true)`); err != nil {
			var zero T
			return zero, err
		}
		return fn(c)
	}
}

// txEvents counts the events a write transaction recorded.
type txEvents struct{ n int }

// Now is the store's clock (the dispatcher schedules by it).
func (s *Store) Now() time.Time { return s.now() }

// FanOut turns the next outbox events, at most limit, into deliveries: one
// per active registration of the event's organisation that subscribes to
// the event and covers its location. The cursor row is locked for the
// transaction, so that with several processes each event is fanned out
// exactly once. It returns how many events it consumed and how many
// deliveries it made.
func (s *Store) FanOut(ctx context.Context, limit int) (events, deliveries int, err error) {
	r, err := s.FanOutAndClaim(ctx, limit, nil)
	return r.Events, r.Deliveries, err
}

// FannedOut is what a fan-out did.
type FannedOut struct {
	Events, Deliveries int
	Attempts           []Attempt // the new deliveries it claimed
}

// FanOutAndClaim is FanOut that also claims, when cl is not nil, new
// deliveries as it makes them (at most cl.Limit, and cl's share per
// registration): they are written leased, as ClaimDeliveries would lease
// them, so that a fresh event goes out without another transaction.
func (s *Store) FanOutAndClaim(ctx context.Context, limit int, cl *Claim) (FannedOut, error) {
	return write(ctx, s, dispatchTx(ctx, s, func(c conn) (FannedOut, error) {
		var lastTx, lastSeq int64
		if err := c.queryRow(ctx, `SELECT last_tx, last_seq FROM webhook_cursor WHERE id = 1`+s.forUpdate()).Scan(&lastTx, &lastSeq); err != nil {
			return FannedOut{}, fmt.Errorf("read the fan-out cursor: %w", err)
		}
		evs, err := s.eventsToFanOut(ctx, c, lastTx, lastSeq, limit)
		if err != nil || len(evs) == 0 {
			return FannedOut{}, err
		}
		hooks, err := activeWebhooksOf(ctx, c, evs)
		if err != nil {
			return FannedOut{}, err
		}
		var rows []newDelivery
		claimed, taken := 0, map[string]int{} // in all, per registration
		for _, e := range evs {
			for _, w := range hooks[e.OrgID] {
				if !w.Subscribes(e.Name, e.LocationID) {
					continue
				}
				d := newDelivery{hook: w, event: e}
				if cl != nil && claimed < cl.Limit && taken[w.ID] < cl.Room(w.ID) {
					claimed++
					taken[w.ID]++
					d.claim = cl
				}
				rows = append(rows, d)
			}
		}
		// Ids made in one millisecond are in random order: sorted and handed
		// out in event order, the history lists a batch in event order.
		ids := make([]string, len(rows))
		for i := range ids {
			ids[i] = workshop.NewID(workshop.PrefixDelivery)
		}
		slices.Sort(ids)
		out := FannedOut{Events: len(evs), Deliveries: len(rows)}
		for i := range rows {
			rows[i].id = ids[i]
			if r := rows[i]; r.claim != nil {
				out.Attempts = append(out.Attempts, Attempt{DeliveryID: r.id, WebhookID: r.hook.ID, Attempt: 1, RoundAttempt: 1,
					URL: r.hook.URL, Secrets: r.hook.Secrets(workshop.MicrosOf(s.now())), Event: r.event.Event})
			}
		}
		if err := insertDeliveries(ctx, c, rows, s.now()); err != nil {
			return FannedOut{}, err
		}
		last := evs[len(evs)-1]
		if _, err := c.exec(ctx, `UPDATE webhook_cursor SET last_tx = ?, last_seq = ? WHERE id = 1`, last.txID, last.Seq); err != nil {
			return FannedOut{}, err
		}
		return out, nil
	}))
}

// Room is how many deliveries of a registration the claim may take.
func (cl *Claim) Room(webhookID string) int {
	if n, ok := cl.Slots[webhookID]; ok {
		return n
	}
	return cl.PerWebhook
}

type fanOutEvent struct {
	Event
	txID int64
}

type newDelivery struct {
	id    string
	hook  workshop.Webhook
	event fanOutEvent
	claim *Claim // written leased to this claim, its first attempt counted
}

// eventsToFanOut reads the events after the cursor. SQLite has one writer,
// so events commit in seq order. On PostgreSQL only the events of
// transactions that have ended are taken (they are final), in (tx_id, seq)
// order: first those older than every transaction of the server still
// running (pg_snapshot_xmin, cheap); when there are none, those older than
// every one running in this database (finalTxBound).
func (s *Store) eventsToFanOut(ctx context.Context, c conn, lastTx, lastSeq int64, limit int) ([]fanOutEvent, error) {
	if s.dialect != postgresDialect {
		return collectFanOut(c.query(ctx, `SELECT seq, 0, id, org_id, location_id, event, occurred_at, data FROM events
			WHERE seq > ? ORDER BY seq LIMIT ?`, lastSeq, limit))
	}
	const below = `SELECT seq, tx_id, id, org_id, location_id, event, occurred_at, data FROM events
		WHERE (tx_id, seq) > (?, ?) AND tx_id < `
	evs, err := collectFanOut(c.query(ctx, below+`pg_snapshot_xmin(pg_current_snapshot())::text::bigint
		ORDER BY tx_id, seq LIMIT ?`, lastTx, lastSeq, limit))
	if err != nil || len(evs) > 0 {
		return evs, err
	}
	var bound int64
	if err := c.queryRow(ctx, finalTxBound).Scan(&bound); err != nil {
		return nil, fmt.Errorf("read the transactions that have ended: %w", err)
	}
	return collectFanOut(c.query(ctx, below+`? ORDER BY tx_id, seq LIMIT ?`, lastTx, lastSeq, bound, limit))
}

// finalTxBound is, on PostgreSQL, a transaction id below which every
// transaction of this database has ended as of the statement's snapshot:
// the oldest transaction the snapshot sees running, leaving out those that
// run in another database (a backend serves one database for life, so
// one seen in pg_stat_activity under another database wrote nothing
// here), or the snapshot's xmax when none is left. pg_snapshot_xmin alone
// would hold every delivery back for as long as any transaction of the
// server runs: a report, a migration or a CREATE DATABASE of another
// database sharing it. A transaction this cannot place (a prepared one,
// or one whose backend it cannot see) still holds them back.
//
// It is a statement of its own, without parameters, so that its plan is
// made once per connection (the dispatch transactions plan every
// parameterised statement anew, and this one costs 0.5 ms to plan). A
// bound read in an earlier snapshot holds in a later one: what had ended
// then has still ended.
const finalTxBound = `SELECT COALESCE((SELECT min(x::text::bigint) FROM pg_snapshot_xip(pg_current_snapshot()) x
	WHERE x::text::bigint % 4294967296 NOT IN (SELECT a.backend_xid::text::bigint FROM pg_stat_activity a
		WHERE a.backend_xid IS NOT NULL AND a.datid <> (SELECT oid FROM pg_database WHERE datname = current_database()))),
	pg_snapshot_xmax(pg_current_snapshot())::text::bigint)`

func collectFanOut(rows *sql.Rows, err error) ([]fanOutEvent, error) {
	if err != nil {
		return nil, err
	}
	return collect(rows, func(sc scanner) (fanOutEvent, error) {
		var e fanOutEvent
		var data string
		err := sc.Scan(&e.Seq, &e.txID, &e.ID, &e.OrgID, &e.LocationID, &e.Name, &e.OccurredAt, &data)
		e.Data = json.RawMessage(data)
		return e, err
	})
}

// HasEventsToFanOut tells, with a read, whether FanOut would find events
// (on PostgreSQL: events after the cursor, final or not).
func (s *Store) HasEventsToFanOut(ctx context.Context) (bool, error) {
	q := `SELECT EXISTS (SELECT 1 FROM events e, webhook_cursor c WHERE c.id = 1 AND e.seq > c.last_seq)`
	if s.dialect == postgresDialect {
		// The first event after the cursor, in index order: a plain EXISTS
		// is planned as a scan of the whole outbox when none is there.
		q = `SELECT EXISTS (SELECT 1 FROM webhook_cursor c, LATERAL (SELECT 1 FROM events e
			WHERE (e.tx_id, e.seq) > (c.last_tx, c.last_seq) ORDER BY e.tx_id, e.seq LIMIT 1) x WHERE c.id = 1)`
	}
	var ok bool
	err := s.read().queryRow(ctx, q).Scan(&ok)
	return ok, err
}

// activeWebhooksOf reads the active registrations of the events' organisations.
func activeWebhooksOf(ctx context.Context, c conn, evs []fanOutEvent) (map[string][]workshop.Webhook, error) {
	var orgs []any
	seen := map[string]bool{}
	for _, e := range evs {
		if !seen[e.OrgID] {
			seen[e.OrgID] = true
			orgs = append(orgs, e.OrgID)
		}
	}
	out := map[string][]workshop.Webhook{}
	for chunk := range slices.Chunk(orgs, 100) {
		rows, err := c.query(ctx, `SELECT `+webhookColumns+` FROM webhooks WHERE is_active AND org_id IN (`+placeholders(len(chunk))+`)`, chunk...)
		if err != nil {
			return nil, err
		}
		list, err := collect(rows, scanWebhook)
		if err != nil {
			return nil, err
		}
		for _, w := range list {
			out[w.OrgID] = append(out[w.OrgID], w)
		}
	}
	return out, nil
}

// insertDeliveries writes new deliveries, due now, 50 rows a statement;
// those with a claim are written leased to it. A delivery of the same event
// to the same registration already there is left as it is (the cursor
// already guarantees there is none).
func insertDeliveries(ctx context.Context, c conn, rows []newDelivery, clock time.Time) error {
	now := workshop.MicrosOf(clock)
	const cols = 13
	for chunk := range slices.Chunk(rows, 50) {
		var b strings.Builder
		b.WriteString(`INSERT INTO deliveries (id, webhook_id, event_seq, event_id, event, status, attempts, round_attempts,
			lease_until, leased_by, next_attempt_at, created_at, updated_at) VALUES `)
		args := make([]any, 0, len(chunk)*cols)
		for i, r := range chunk {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString("(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
			attempts, until, token := 0, sql.NullInt64{}, sql.NullString{}
			if r.claim != nil {
				attempts = 1
				until = sql.NullInt64{Int64: int64(workshop.MicrosOf(clock.Add(r.claim.Lease))), Valid: true}
				token = sql.NullString{String: r.claim.Token, Valid: true}
			}
			args = append(args, r.id, r.hook.ID, r.event.Seq, r.event.ID, r.event.Name, workshop.DeliveryPending, attempts, attempts,
				until, token, now, now, now)
		}
		b.WriteString(" ON CONFLICT (webhook_id, event_seq) DO NOTHING")
		if _, err := c.exec(ctx, b.String(), args...); err != nil {
			return err
		}
	}
	return nil
}

// Claim asks for deliveries to attempt now.
type Claim struct {
	Token       string        // identifies this claim's lease: only its holder records the result
	Lease       time.Duration // how long the attempts are reserved (short: the holder renews it, RenewLeases)
	Limit       int           // deliveries at most
	PerWebhook  int           // deliveries of one registration at most
	MaxAttempts int           // attempts of a schedule (len(delays)+1)
	// Slots overrides PerWebhook for registrations with attempts already in
	// flight: how many more each may have (0: none, it is left out).
	Slots map[string]int
}

// Attempt is a claimed delivery with what its request needs.
type Attempt struct {
	DeliveryID   string
	WebhookID    string
	Attempt      int // the attempt's number, from 1 (X-Service-Attempt)
	RoundAttempt int // its number in the current schedule
	URL          string
	Secrets      []string // sign the request, newest first (workshop.Webhook.Secrets)
	Event        Event
}

// ClaimDeliveries leases due deliveries of active registrations, oldest
// first, at most PerWebhook (or Slots) of one registration, and counts their
// attempt. See Settle.
func (s *Store) ClaimDeliveries(ctx context.Context, cl Claim) ([]Attempt, error) {
	_, as, err := s.Settle(ctx, nil, nil, &cl)
	return as, err
}

// claimIn reads the oldest due deliveries (4 times the limit, so that a
// registration with a backlog cannot take every slot), keeps what each
// registration may still take and leases those. On PostgreSQL the
// candidates are locked as they are read, skipping those another dispatcher
// is claiming (FOR UPDATE SKIP LOCKED), and a candidate leased meanwhile
// fails the recheck of the lease; SQLite's one writer makes the plain reads
// and UPDATE safe. A delivery whose lease ran out (its dispatcher died
// mid-attempt, or while it was queued) is due again, even after the last
// attempt of its schedule: that attempt was not made.
func (s *Store) claimIn(ctx context.Context, c conn, cl Claim) ([]Attempt, error) {
	now := workshop.MicrosOf(s.now())
	until := workshop.MicrosOf(s.now().Add(cl.Lease))
	args := []any{now, cl.MaxAttempts, now}
	var full []string
	for id, n := range cl.Slots {
		if n <= 0 {
			full = append(full, id)
		}
	}
	slices.Sort(full)
	exclude := ""
	if len(full) > 0 {
		exclude = ` AND webhook_id NOT IN (` + placeholders(len(full)) + `)`
		for _, id := range full {
			args = append(args, id)
		}
	}
	lock := ""
	if s.dialect == postgresDialect {
		lock = " FOR UPDATE SKIP LOCKED"
	}
	// One table, in the order of the index of due deliveries: the plan
	// cannot turn into sorting every due delivery when the statistics lag
	// behind a backlog that grew fast (a join here did).
	// A delivery whose lease ran out lost its attempt with its dispatcher:
	// it is made again whatever its place in the schedule (see below).
	rows, err := c.query(ctx, `SELECT id, webhook_id FROM deliveries
		WHERE status IN ('pending', 'failed') AND next_attempt_at <= ? AND (lease_until IS NULL AND round_attempts < ? OR lease_until < ?)`+exclude+`
		ORDER BY next_attempt_at LIMIT ?`+lock, append(args, cl.Limit*4)...)
	if err != nil {
		return nil, err
	}
	type candidate struct{ id, webhookID string }
	cands, err := collect(rows, func(sc scanner) (candidate, error) {
		var cd candidate
		err := sc.Scan(&cd.id, &cd.webhookID)
		return cd, err
	})
	if err != nil || len(cands) == 0 {
		return nil, err
	}
	var hookIDs []any
	for _, cd := range cands {
		if !slices.Contains(hookIDs, any(cd.webhookID)) {
			hookIDs = append(hookIDs, cd.webhookID)
		}
	}
	active, err := activeWebhooks(ctx, c, hookIDs)
	if err != nil {
		return nil, err
	}
	var ids, paused []any
	taken := map[string]int{}
	for _, cd := range cands {
		if !active[cd.webhookID] {
			paused = append(paused, cd.id)
			continue
		}
		if len(ids) == cl.Limit {
			continue
		}
		if taken[cd.webhookID] < cl.Room(cd.webhookID) {
			taken[cd.webhookID]++
			ids = append(ids, cd.id)
		}
	}
	// Due deliveries of an inactive registration (made by a fan-out that
	// raced its deactivation) are paused as the deactivation pauses the rest.
	if len(paused) > 0 {
		if _, err := c.exec(ctx, `UPDATE deliveries SET next_attempt_at = NULL, updated_at = ? WHERE id IN (`+placeholders(len(paused))+`)`,
			append([]any{now}, paused...)...); err != nil {
			return nil, err
		}
	}
	if len(ids) == 0 {
		return nil, nil
	}
	// An attempt made again after its dispatcher died (its lease ran out)
	// is the next attempt of the delivery but takes the lost one's place in
	// the schedule: the later retry delays are unchanged.
	if _, err := c.exec(ctx, `UPDATE deliveries SET attempts = attempts + 1,
		round_attempts = round_attempts + CASE WHEN lease_until IS NULL THEN 1 ELSE 0 END, lease_until = ?, leased_by = ?,
		updated_at = ? WHERE id IN (`+placeholders(len(ids))+`)`, append([]any{until, cl.Token, now}, ids...)...); err != nil {
		return nil, err
	}
	rows, err = c.query(ctx, `SELECT d.id, d.webhook_id, d.attempts, d.round_attempts, w.url, w.signing_secret, w.previous_secret, w.previous_secret_until,
			e.seq, e.id, e.org_id, e.location_id, e.event, e.occurred_at, e.data
		FROM deliveries d JOIN webhooks w ON w.id = d.webhook_id JOIN events e ON e.seq = d.event_seq
		WHERE d.id IN (`+placeholders(len(ids))+`) ORDER BY d.next_attempt_at, d.id`, ids...)
	if err != nil {
		return nil, err
	}
	return collect(rows, func(sc scanner) (Attempt, error) {
		var a Attempt
		var w workshop.Webhook
		var previous sql.NullString
		var until sql.NullInt64
		var data string
		err := sc.Scan(&a.DeliveryID, &a.WebhookID, &a.Attempt, &a.RoundAttempt, &a.URL, &w.SigningSecret, &previous, &until,
			&a.Event.Seq, &a.Event.ID, &a.Event.OrgID, &a.Event.LocationID, &a.Event.Name, &a.Event.OccurredAt, &data)
		w.PreviousSecret, w.PreviousSecretUntil = previous.String, microsPtr(until)
		a.Secrets = w.Secrets(now)
		a.Event.Data = json.RawMessage(data)
		return a, err
	})
}

// AttemptResult is how an attempt went.
type AttemptResult struct {
	DeliveryID   string
	WebhookID    string
	Token        string // the lease of the claim that made it
	RoundAttempt int
	At           time.Time     // when it started
	Duration     time.Duration // until the answer, or the failure
	Succeeded    bool
	StatusCode   int    // 0: no answer
	Error        string // why it failed (truncated to 500 characters)
	Excerpt      string // the start of the answer's body (MaxExcerptBytes at most)
}

// MaxExcerptBytes bounds the response excerpt kept in an attempt's history.
const MaxExcerptBytes = 1024

// MaxErrorLength bounds a delivery's lastError.
const MaxErrorLength = 500

// RecordAttempts stores attempt results in one transaction. See Settle.
func (s *Store) RecordAttempts(ctx context.Context, results []AttemptResult, delays []time.Duration) (int, error) {
	n, _, err := s.Settle(ctx, results, delays, nil)
	return n, err
}

// Settle is one step of a dispatcher, in one transaction: it records the
// results of finished attempts, then (cl not nil) claims the next ones, so
// that a busy dispatcher writes once per step, not once per attempt. A
// result is stored only while its lease is still held by the claim that
// made it (a delivery redelivered, reclaimed after its lease ran out, or
// deleted meanwhile is left alone). A failure is retried after delays[n-1]
// (n: its number in the schedule) while there are delays left, and is
// exhausted after that. It returns how many results were recorded and the
// claimed attempts.
func (s *Store) Settle(ctx context.Context, results []AttemptResult, delays []time.Duration, cl *Claim) (int, []Attempt, error) {
	type out struct {
		recorded int
		attempts []Attempt
	}
	o, err := write(ctx, s, dispatchTx(ctx, s, func(c conn) (out, error) {
		var o out
		// The registrations first, as PatchWebhook locks them: then the
		// history, while the leases it checks are still held.
		toDisable, err := s.trackFailing(ctx, c, results)
		if err != nil {
			return o, err
		}
		if err := recordHistory(ctx, c, results); err != nil {
			return o, err
		}
		if o.recorded, err = recordResults(ctx, c, results, delays, s.now()); err != nil {
			return o, err
		}
		for _, w := range toDisable {
			if err := disableWebhook(ctx, c, w, workshop.MicrosOf(s.now())); err != nil {
				return o, err
			}
		}
		if cl != nil {
			if o.attempts, err = s.claimIn(ctx, c, *cl); err != nil {
				return o, err
			}
		}
		return o, nil
	}))
	return o.recorded, o.attempts, err
}

// activeWebhooks tells which of the registrations are active.
func activeWebhooks(ctx context.Context, c conn, ids []any) (map[string]bool, error) {
	rows, err := c.query(ctx, `SELECT id FROM webhooks WHERE is_active AND id IN (`+placeholders(len(ids))+`)`, ids...)
	if err != nil {
		return nil, err
	}
	list, err := collect(rows, func(sc scanner) (string, error) {
		var id string
		return id, sc.Scan(&id)
	})
	active := map[string]bool{}
	for _, id := range list {
		active[id] = true
	}
	return active, err
}

// recordResults stores results, one statement per group of results that
// store the same values (most often: the successes of one claim), each only
// where the claim's lease is still held.
func recordResults(ctx context.Context, c conn, results []AttemptResult, delays []time.Duration, now time.Time) (int, error) {
	type outcome struct {
		token, status string
		next, code    sql.NullInt64
		lastErr       sql.NullString
	}
	groups := map[outcome][]any{}
	var order []outcome
	for _, r := range results {
		o := outcome{token: r.Token, status: workshop.DeliverySucceeded}
		if r.StatusCode != 0 {
			o.code = sql.NullInt64{Int64: int64(r.StatusCode), Valid: true}
		}
		if !r.Succeeded {
			o.lastErr = sql.NullString{String: truncate(r.Error, MaxErrorLength), Valid: true}
			o.status = workshop.DeliveryExhausted
			if r.RoundAttempt >= 1 && r.RoundAttempt <= len(delays) {
				o.status = workshop.DeliveryFailed
				o.next = sql.NullInt64{Int64: int64(workshop.MicrosOf(now.Add(delays[r.RoundAttempt-1]))), Valid: true}
			}
		}
		if _, ok := groups[o]; !ok {
			order = append(order, o)
		}
		groups[o] = append(groups[o], r.DeliveryID)
	}
	recorded := 0
	for _, o := range order {
		for ids := range slices.Chunk(groups[o], 100) {
			res, err := c.exec(ctx, `UPDATE deliveries SET status = ?, next_attempt_at = ?, lease_until = NULL, leased_by = NULL,
				last_status_code = ?, last_error = ?, updated_at = ? WHERE leased_by = ? AND id IN (`+placeholders(len(ids))+`)`,
				append([]any{o.status, o.next, o.code, o.lastErr, workshop.MicrosOf(now), o.token}, ids...)...)
			if err != nil {
				return recorded, err
			}
			n, _ := res.RowsAffected()
			recorded += int(n)
		}
	}
	return recorded, nil
}

// Release gives claimed attempts back unmade (a dispatcher that will not
// make them in time, or is stopping): their leases end and their attempt
// is not counted, so that they are due again at once for any dispatcher.
func (s *Store) Release(ctx context.Context, token string, deliveryIDs []string) error {
	_, err := write(ctx, s, dispatchTx(ctx, s, func(c conn) (struct{}, error) {
		now := workshop.MicrosOf(s.now())
		for ids := range slices.Chunk(deliveryIDs, 100) {
			args := []any{now, token}
			for _, id := range ids {
				args = append(args, id)
			}
			if _, err := c.exec(ctx, `UPDATE deliveries SET attempts = attempts - 1, round_attempts = round_attempts - 1,
				lease_until = NULL, leased_by = NULL, updated_at = ? WHERE leased_by = ? AND id IN (`+placeholders(len(ids))+`)`, args...); err != nil {
				return struct{}{}, err
			}
		}
		return struct{}{}, nil
	}))
	return err
}

// truncate cuts s to at most n characters.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n])
}

// RenewLeases extends the leases a dispatcher holds (deliveries by the
// token of the claim that leased them) to lease from now, while their
// attempts wait or run: a lease is short, so that an attempt lost with its
// dispatcher is made again within seconds, and it lasts as long as the
// dispatcher that holds it lives (one run out but not yet taken is renewed
// too: its attempt still runs). A lease no longer held (taken by another
// dispatcher, redelivered, deleted) is left alone. It returns how many were renewed.
func (s *Store) RenewLeases(ctx context.Context, held map[string][]string, lease time.Duration) (int, error) {
	return write(ctx, s, dispatchTx(ctx, s, func(c conn) (int, error) {
		now := s.now()
		until := workshop.MicrosOf(now.Add(lease))
		tokens := slices.Sorted(maps.Keys(held))
		n := 0
		for _, token := range tokens {
			ids := slices.Sorted(slices.Values(held[token])) // rows locked in one order by every process
			for chunk := range slices.Chunk(ids, 100) {
				args := []any{until, token}
				for _, id := range chunk {
					args = append(args, id)
				}
				res, err := c.exec(ctx, `UPDATE deliveries SET lease_until = ? WHERE leased_by = ? AND id IN (`+
					placeholders(len(chunk))+`)`, args...)
				if err != nil {
					return n, err
				}
				k, _ := res.RowsAffected()
				n += int(k)
			}
		}
		return n, nil
	}))
}

// HasDueDeliveries tells, with a read, whether a claim could find work.
func (s *Store) HasDueDeliveries(ctx context.Context) (bool, error) {
	now := workshop.MicrosOf(s.now())
	var ok bool
	err := s.read().queryRow(ctx, `SELECT EXISTS (SELECT 1 FROM deliveries WHERE status IN ('pending', 'failed')
		AND next_attempt_at <= ? AND (lease_until IS NULL OR lease_until < ?))`, now, now).Scan(&ok)
	return ok, err
}

// DeliveryBacklog is what is still to be delivered: deliveries pending or
// failed with an attempt scheduled (those of inactive registrations are
// paused and left out), and the creation time of the oldest.
type DeliveryBacklog struct {
	Pending int64
	Oldest  *workshop.Micros
}

// Backlog reads the delivery backlog (metrics).
func (s *Store) Backlog(ctx context.Context) (DeliveryBacklog, error) {
	var b DeliveryBacklog
	var oldest sql.NullInt64
	err := s.read().queryRow(ctx, `SELECT COUNT(*), MIN(created_at) FROM deliveries
		WHERE status IN ('pending', 'failed') AND next_attempt_at IS NOT NULL`).Scan(&b.Pending, &oldest)
	b.Oldest = microsPtr(oldest)
	return b, err
}
