package store

import (
	"context"
	"sync"
	"time"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// Learned durations (contract section 9): a catalog item's durationStats
// are computed from the location's completed steps of it whose actual end
// lies in the last 90 days. Every plan computation and catalog read needs
// them, and they change only when a step of a catalog item completes, a
// completed one is corrected or the working hours change: triggers move
// the location's duration version on exactly those writes (migration
// 00024), in the writer's transaction, whichever process writes. So each
// process keeps the samples it read under the version it read them at,
// and reads them again only when the version has moved; a step write pays
// one trigger, not a statistics update. As the window slides with no write,
// samples leave it: the kept samples are filtered by the reader's now.

// durationCacheSize bounds the locations whose samples a process keeps
// (about 30 bytes a sample: a busy location's 90 days, 10 000 steps, take
// 300 KB).
const durationCacheSize = 256

type durationCache struct{ byLocation *memo[string, *durationEntry] }

// durationEntry is a location's samples at a duration version: every
// sample whose end lies after from.
type durationEntry struct {
	version int64
	from    time.Time
	samples []durationSample

	// stats is the last answer, for a now whose window starts after
	// statsFrom and before statsUntil (when the oldest sample counted
	// leaves): within that, every now counts the same samples. It is
	// shared by the goroutines that read the entry, under mu.
	mu                    sync.Mutex
	stats                 map[string]workshop.DurationStats
	statsFrom, statsUntil time.Time
}

type durationSample struct {
	code    string
	end     time.Time
	minutes int
}

func newDurationCache() *durationCache {
	return &durationCache{byLocation: newMemo[string, *durationEntry](durationCacheSize)}
}

// DurationStats is the location's learned durations at now by service
// code: the items with no sample in the window are absent (their stats are
// zero samples). version is the location's duration version as the caller
// read it with its data (PlanData.DurationVersion), 0 to read it here: at
// that version the samples kept in the process are used without a query.
func (s *Store) DurationStats(ctx context.Context, locationID string, version int64, now time.Time) (map[string]workshop.DurationStats, error) {
	if version == 0 {
		err := s.read().queryRow(ctx, `SELECT version FROM duration_versions WHERE location_id = ?`, locationID).Scan(&version)
		if err != nil {
			return nil, notFoundOr(err, "location")
		}
	}
	from := now.Add(-workshop.DurationHistory)
	e, ok := s.durations.byLocation.get(locationID)
	if !ok || e.version < version || from.Before(e.from) {
		var err error
		if e, err = s.loadDurations(ctx, locationID, from); err != nil {
			return nil, err
		}
		s.durations.byLocation.put(locationID, e)
	}
	return e.at(from), nil
}

// WithDurationStats fills the items' DurationStats at now, from their
// locations' learned durations.
func (s *Store) WithDurationStats(ctx context.Context, items []workshop.CatalogItem, now time.Time) error {
	byLocation := map[string]map[string]workshop.DurationStats{}
	for i, it := range items {
		stats, ok := byLocation[it.LocationID]
		if !ok {
			var err error
			if stats, err = s.DurationStats(ctx, it.LocationID, 0, now); err != nil {
				return err
			}
			byLocation[it.LocationID] = stats
		}
		items[i].DurationStats = stats[it.ServiceCode]
	}
	return nil
}

// at is the statistics of the samples that ended after from, shared by
// every caller until the window drops one (callers must not modify it).
func (e *durationEntry) at(from time.Time) map[string]workshop.DurationStats {
	if stats := e.snapshot(from); stats != nil {
		return stats
	}
	byCode := map[string][]int{}
	until := time.Time{}
	for _, sm := range e.samples {
		if !sm.end.After(from) {
			continue
		}
		byCode[sm.code] = append(byCode[sm.code], sm.minutes)
		if leaves := sm.end.Add(workshop.DurationHistory); until.IsZero() || leaves.Before(until) {
			until = leaves
		}
	}
	stats := make(map[string]workshop.DurationStats, len(byCode))
	for code, minutes := range byCode {
		stats[code] = workshop.DurationStatsOf(minutes)
	}
	e.keep(stats, from, until)
	return stats
}

// snapshot is the last answer if it holds for a window starting at from.
func (e *durationEntry) snapshot(from time.Time) map[string]workshop.DurationStats {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.stats != nil && !from.Before(e.statsFrom) && (e.statsUntil.IsZero() || from.Add(workshop.DurationHistory).Before(e.statsUntil)) {
		return e.stats
	}
	return nil
}

func (e *durationEntry) keep(stats map[string]workshop.DurationStats, from, until time.Time) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.stats, e.statsFrom, e.statsUntil = stats, from, until
}

// loadDurations reads the location's samples that ended after from, in
// one snapshot with the duration version they are at, each measured in
// the location's working time.
func (s *Store) loadDurations(ctx context.Context, locationID string, from time.Time) (*durationEntry, error) {
	e := &durationEntry{from: from}
	err := s.readTx(ctx, func(c conn) error {
		var zoneName, hours, breaks string
		var buffer int
		if err := c.queryRow(ctx, `SELECT d.version, l.timezone, w.operating_hours, w.breaks, w.bay_buffer_minutes
			FROM duration_versions d JOIN locations l ON l.id = d.location_id JOIN workshop_settings w ON w.location_id = l.id
			WHERE d.location_id = ?`, locationID).Scan(&e.version, &zoneName, &hours, &breaks, &buffer); err != nil {
			return notFoundOr(err, "location")
		}
		settings, err := s.settings.parse(hours, breaks, buffer)
		if err != nil {
			return err
		}
		zone, err := workshop.LoadZone(zoneName)
		if err != nil {
			return err
		}
		cal := workshop.NewCalendar(zone, settings)
		rows, err := c.query(ctx, `SELECT service_code, started_at, completed_at FROM steps
			WHERE location_id = ? AND status = 'completed' AND service_code IS NOT NULL AND completed_at > ? AND started_at IS NOT NULL`,
			locationID, workshop.MicrosOf(from))
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var code string
			var start, end workshop.Micros
			if err := rows.Scan(&code, &start, &end); err != nil {
				return err
			}
			e.samples = append(e.samples, durationSample{code: code, end: end.Time(),
				minutes: workshop.StepWorkMinutes(cal, start.Time(), end.Time())})
		}
		return rows.Err()
	})
	return e, err
}
