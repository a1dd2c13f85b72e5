// Package backup takes the scheduled backups of `workshop serve` on
// SQLite: one at start and one every interval, into a directory, keeping
// the newest few, with the last one's time and size in /metrics. A failed
// backup is logged at error and counted; it does not make the server
// unready: the database still answers.
package backup

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/workshop-platform/workshop/internal/store"
)

// Taker writes a consistent backup of the database to a new file
// (store.Store.Backup).
type Taker interface {
	Backup(ctx context.Context, path string) (store.BackupFile, error)
}

// Schedule is where, how often and how many.
type Schedule struct {
	Dir   string
	Every time.Duration
	Keep  int // the newest backups kept; 0 keeps every one
}

// Scheduler takes backups on a Schedule.
type Scheduler struct {
	taker    Taker
	sched    Schedule
	log      *slog.Logger
	lastTime prometheus.Gauge
	lastSize prometheus.Gauge
	failures prometheus.Counter
}

// New makes a Scheduler and registers its metrics on reg.
func New(t Taker, s Schedule, reg prometheus.Registerer, log *slog.Logger) *Scheduler {
	b := &Scheduler{taker: t, sched: s, log: log,
		lastTime: prometheus.NewGauge(prometheus.GaugeOpts{Name: "workshop_backup_last_success_timestamp_seconds",
			Help: "When the last scheduled backup that succeeded was taken (Unix seconds; 0: none yet)."}),
		lastSize: prometheus.NewGauge(prometheus.GaugeOpts{Name: "workshop_backup_last_size_bytes",
			Help: "The size of the last scheduled backup that succeeded."}),
		failures: prometheus.NewCounter(prometheus.CounterOpts{Name: "workshop_backup_failures_total",
			Help: "Scheduled backups that failed (each logged at error)."}),
	}
	reg.MustRegister(b.lastTime, b.lastSize, b.failures)
	return b
}

// Run takes a backup now and then every interval until ctx ends.
func (b *Scheduler) Run(ctx context.Context) {
	t := time.NewTicker(b.sched.Every)
	defer t.Stop()
	for {
		b.take(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// fileLayout names a backup by the instant it was taken, so that names
// sort as times do.
const fileLayout = "workshop-20060102T150405.000Z.db"

func (b *Scheduler) take(ctx context.Context) {
	if err := os.MkdirAll(b.sched.Dir, 0o700); err != nil {
		b.failed(ctx, err)
		return
	}
	f, err := b.taker.Backup(ctx, filepath.Join(b.sched.Dir, time.Now().UTC().Format(fileLayout)))
	if err != nil {
		if ctx.Err() == nil {
			b.failed(ctx, err)
		}
		return
	}
	b.lastTime.Set(float64(f.TakenAt.UnixMilli()) / 1000)
	b.lastSize.Set(float64(f.Bytes))
	b.log.InfoContext(ctx, "backup taken", "path", f.Path, "bytes", f.Bytes)
	b.prune(ctx)
}

func (b *Scheduler) failed(ctx context.Context, err error) {
	b.failures.Inc()
	b.log.ErrorContext(ctx, "backup failed", "dir", b.sched.Dir, "error", err)
}

// prune removes the oldest backups beyond Keep.
func (b *Scheduler) prune(ctx context.Context) {
	if b.sched.Keep <= 0 {
		return
	}
	names, err := filepath.Glob(filepath.Join(b.sched.Dir, "workshop-*Z.db"))
	if err != nil {
		return
	}
	slices.Sort(names)
	for _, old := range names[:max(0, len(names)-b.sched.Keep)] {
		if err := os.Remove(old); err != nil {
			b.log.WarnContext(ctx, "old backup not removed", "path", old, "error", err)
		}
	}
}
