package planning

import (
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"runtime"
	"sync"
	"time"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// WatchStore is what the promise watch reads and writes.
type WatchStore interface {
	ClaimDue(ctx context.Context, owner string, now, until time.Time, limit int) ([]store.WatchClaim, error)
	RecordPromises(ctx context.Context, pc store.PromiseCheck) ([]workshop.PromiseTurn, error)
}

// Watch tells when a job's plan turns at risk or back on track (contract
// section 8). It works only where something can change (issue 30): a
// location is looked at after a change to it (a trigger marks its plan
// version row when the version moves) and otherwise when time alone could
// turn one of its jobs (workshop.NextPromiseCheck); a location at rest
// costs nothing.
//
// About every Tick (jittered), and at once after a write of this
// process, it claims due locations, the changed ones first, as many as it
// has idle workers (Workers, about the cores), and plans them in
// parallel. Processes sharing the database split the due locations: a
// claim is a lease on the location's watch row, taken with SKIP LOCKED,
// and only the lease's holder records the turns, so each turn is told
// once. A location is looked at at most once a second (Rest), so a turn
// is told within 1.5 Tick + Rest + a plan's time of the change that
// caused it, when workers are free.
type Watch struct {
	Plans *Service
	Store WatchStore
	Owner string // this process, unique among those sharing the database
	Now   func() time.Time
	Log   *slog.Logger
	// Tick is how often due locations are looked for (500 ms), Lease how
	// long a look may take before another process may take it over (5 s:
	// a look is claimed only by an idle worker and takes well under a
	// second, and a process that dies mid-look holds its locations this
	// long), Rest how long a location is left alone after a look (1 s).
	Tick, Lease, Rest time.Duration
	Workers           int           // looks at once (GOMAXPROCS)
	Metrics           *WatchMetrics // nil: none

	wakeOnce sync.Once
	wake     chan struct{} // buffered 1: a write of this process may have made a location due
}

// NewWatch is a watch with the default timings.
func NewWatch(plans *Service, st WatchStore, log *slog.Logger) *Watch {
	return &Watch{Plans: plans, Store: st, Owner: workshop.NewID("wch"), Now: time.Now, Log: log,
		Tick: 500 * time.Millisecond, Lease: 5 * time.Second, Rest: time.Second, Workers: runtime.GOMAXPROCS(0)}
}

func (w *Watch) wakeChan() chan struct{} {
	w.wakeOnce.Do(func() { w.wake = make(chan struct{}, 1) })
	return w.wake
}

// Wake makes the watch look for due locations now rather than at the next
// tick (store.OnEventsCommitted calls it after this process's writes). It
// never blocks.
func (w *Watch) Wake() {
	select {
	case w.wakeChan() <- struct{}{}:
	default:
	}
}

// Run looks until ctx ends, keeping up to Workers looks going: while every
// worker is busy it claims again as soon as one is free, else it waits for
// the tick or a wake.
func (w *Watch) Run(ctx context.Context) {
	t := time.NewTimer(jittered(w.Tick))
	defer t.Stop()
	workers := max(1, w.Workers)
	done := make(chan struct{}, workers)
	busy := 0
	defer func() {
		for ; busy > 0; busy-- {
			<-done
		}
	}()
	for {
		if free := workers - busy; free > 0 {
			claims, err := w.claim(ctx, free)
			if err != nil && ctx.Err() == nil {
				w.Log.Warn("promise watch", "error", err)
			}
			for _, c := range claims {
				busy++
				go func() {
					defer func() { done <- struct{}{} }()
					w.lookLogged(ctx, c)
				}()
			}
			if err == nil && len(claims) == free { // maybe more due: claim again when a worker is free
				select {
				case <-ctx.Done():
					return
				case <-done:
					busy--
				}
				continue
			}
		}
		if !w.wait(ctx, t.C, done, &busy) {
			return
		}
		t.Reset(jittered(w.Tick))
	}
}

// jittered is a tick's wait, drawn anew each time between half and one
// and a half ticks. A location due by time alone is claimed by the first
// process to look after it falls due; with fixed tickers each process
// kept the phase it started with, and one whose tick followed the other's
// closely took a fifth of the looks and the other four fifths (at 1,000
// locations: 0.4 against 1.5 s of CPU a minute at rest).
func jittered(tick time.Duration) time.Duration {
	return tick/2 + rand.N(tick)
}

// wait waits for the tick or a wake (true) or ctx's end (false); workers
// finishing meanwhile are counted off without claiming.
func (w *Watch) wait(ctx context.Context, tick <-chan time.Time, done <-chan struct{}, busy *int) bool {
	for {
		select {
		case <-ctx.Done():
			return false
		case <-done:
			*busy--
		case <-tick:
			return true
		case <-w.wakeChan():
			return true
		}
	}
}

// Once claims the locations due now, up to Workers, looks at them in
// parallel and returns when all are done (tests drive the watch with it
// under a fake clock); it returns the first error.
func (w *Watch) Once(ctx context.Context) error {
	claims, err := w.claim(ctx, max(1, w.Workers))
	if err != nil {
		return err
	}
	errs := make([]error, len(claims))
	var wg sync.WaitGroup
	for i, c := range claims {
		wg.Go(func() { errs[i] = w.look(ctx, c) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// claim leases up to n due locations for a look.
func (w *Watch) claim(ctx context.Context, n int) ([]store.WatchClaim, error) {
	now := w.Now()
	return w.Store.ClaimDue(ctx, w.Owner, now, now.Add(w.Lease), n)
}

func (w *Watch) lookLogged(ctx context.Context, c store.WatchClaim) {
	if err := w.look(ctx, c); err != nil && ctx.Err() == nil {
		w.Log.Warn("promise watch", "location", c.LocationID, "error", err)
	}
}

// look plans one claimed location and records the turns and when time
// alone next needs a look.
func (w *Watch) look(ctx context.Context, c store.WatchClaim) error {
	locationID := c.LocationID
	now := w.Now()
	started := now
	p, err := w.Plans.Plan(ctx, locationID, now)
	if err != nil {
		return err
	}
	next := workshop.NextPromiseCheck(p.FreshInput().Calendar, now, p.Dispatch.Jobs, workshop.PromiseSpread(locationID))
	turns, err := w.Store.RecordPromises(ctx, store.PromiseCheck{LocationID: locationID, Owner: w.Owner, Version: p.Version,
		Minute: startMinute(now), Jobs: p.Dispatch.Jobs, Now: w.Now(), Rest: w.Rest, Next: next})
	if errors.Is(err, store.ErrLeaseLost) {
		w.Log.Warn("promise watch: a look outlasted its lease; another process took it over", "location", locationID)
		return nil
	}
	w.Metrics.told(turns)
	if err == nil {
		end := w.Now()
		w.Metrics.looked(end.Sub(started), end, c.ChangedAt)
	}
	for _, t := range turns {
		w.Log.Info("promise turned", "location", locationID, "job", t.Outlook.JobID, "event", t.Event, "lateMinutes", t.Outlook.LateMinutes)
	}
	return err
}
