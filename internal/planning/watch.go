package planning

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// WatchStore is what the promise watch reads and writes.
type WatchStore interface {
	WatchDue(ctx context.Context, now time.Time, minute int64) ([]string, error)
	ClaimWatch(ctx context.Context, locationID, owner string, now, until time.Time) (bool, error)
	RecordPromises(ctx context.Context, pc store.PromiseCheck) ([]workshop.PromiseTurn, error)
}

// Watch tells when a job's plan turns at risk or back on track (contract
// section 8): every Tick it looks for locations whose plan version moved
// or whose minute turned, takes each one's lease (one process at a time),
// plans it and records the turns. A location is looked at at most once a
// second (Rest), so a turn is told within Tick + Rest + a plan's time of
// the change that caused it.
type Watch struct {
	Plans *Service
	Store WatchStore
	Owner string // this process, unique among those sharing the database
	Now   func() time.Time
	Log   *slog.Logger
	// Tick is how often due locations are looked for (500 ms), Lease how
	// long a look may take before another process may take it over (10 s),
	// Rest how long a location is left alone after a look (1 s).
	Tick, Lease, Rest time.Duration
}

// NewWatch is a watch with the default timings.
func NewWatch(plans *Service, st WatchStore, log *slog.Logger) *Watch {
	return &Watch{Plans: plans, Store: st, Owner: workshop.NewID("wch"), Now: time.Now, Log: log,
		Tick: 500 * time.Millisecond, Lease: 10 * time.Second, Rest: time.Second}
}

// Run looks every Tick until ctx ends.
func (w *Watch) Run(ctx context.Context) {
	t := time.NewTicker(w.Tick)
	defer t.Stop()
	for {
		if err := w.Once(ctx); err != nil && ctx.Err() == nil {
			w.Log.Warn("promise watch", "error", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Once looks at every location due now; the first error stops it (the
// next tick tries again).
func (w *Watch) Once(ctx context.Context) error {
	now := w.Now()
	due, err := w.Store.WatchDue(ctx, now, startMinute(now))
	if err != nil {
		return err
	}
	for _, loc := range due {
		if err := w.look(ctx, loc); err != nil {
			return err
		}
	}
	return nil
}

// look plans one location under its lease and records the turns.
func (w *Watch) look(ctx context.Context, locationID string) error {
	now := w.Now()
	ok, err := w.Store.ClaimWatch(ctx, locationID, w.Owner, now, now.Add(w.Lease))
	if err != nil || !ok {
		return err
	}
	p, err := w.Plans.Plan(ctx, locationID, "", now)
	if err != nil {
		return err
	}
	turns, err := w.Store.RecordPromises(ctx, store.PromiseCheck{LocationID: locationID, Owner: w.Owner, Version: p.Version,
		Minute: startMinute(now), Jobs: p.Dispatch.Jobs, Now: w.Now(), Rest: w.Rest})
	if errors.Is(err, store.ErrLeaseLost) {
		w.Log.Warn("promise watch: a look outlasted its lease; another process took it over", "location", locationID)
		return nil
	}
	for _, t := range turns {
		w.Log.Info("promise turned", "location", locationID, "job", t.Outlook.JobID, "event", t.Event, "lateMinutes", t.Outlook.LateMinutes)
	}
	return err
}
