package store

import (
	"context"
	"database/sql"
	"errors"
	"math"
	"strings"
	"time"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// The promise watch's state (migrations 00009, 00022): per location the
// plan version last checked, a lease (one process at a time looks at a
// location, at most once a second) and when time alone next needs a look
// (due_at); whether a change waits is plan_versions.changed_at, set by a
// trigger with the version, on the row the writer locks anyway; and the
// jobs last seen at risk.

// ErrLeaseLost is RecordPromises' answer when another process holds the
// location's watch now (this one's lease ran out): it records nothing.
var ErrLeaseLost = errors.New("promise watch: lease lost")

// WatchClaim is a location the watch took to look at.
type WatchClaim struct {
	LocationID string
	Changed    bool // a change waits (else time alone made it due)
	// ChangedAt is when the oldest change waiting was made (Changed only):
	// the watch measures how long a change waits for its look.
	ChangedAt time.Time
}

// ClaimDue takes, for owner until until, up to limit locations due at now
// that nobody holds: the changed ones first (oldest change first), then
// those whose due_at has come. It reads through the two indexes, never the
// jobs. On PostgreSQL the rows are claimed with SKIP LOCKED, so processes
// claiming together split the due locations instead of waiting on each
// other; on SQLite writes are serial anyway.
func (s *Store) ClaimDue(ctx context.Context, owner string, now, until time.Time, limit int) ([]WatchClaim, error) {
	if limit <= 0 {
		return nil, nil
	}
	return write(ctx, s, func(c conn) ([]WatchClaim, error) {
		changed, err := s.claimWhere(ctx, c, owner, until, `SELECT w.location_id FROM plan_versions p
			JOIN promise_watch w ON w.location_id = p.location_id
			WHERE p.changed_at IS NOT NULL AND w.lease_until <= ? ORDER BY p.changed_at`, now, limit)
		if err != nil {
			return nil, err
		}
		out, err := changedClaims(ctx, c, changed)
		if err != nil || len(changed) == limit {
			return out, err
		}
		timed, err := s.claimWhere(ctx, c, owner, until, `SELECT w.location_id FROM promise_watch w
			JOIN plan_versions p ON p.location_id = w.location_id
			WHERE w.due_at <= ? AND p.changed_at IS NULL AND w.lease_until <= ? ORDER BY w.due_at`, now, limit-len(changed))
		return append(out, claims(timed, false)...), err
	})
}

// changedClaims are the claims of changed locations, with when their
// oldest waiting change was made.
func changedClaims(ctx context.Context, c conn, ids []string) ([]WatchClaim, error) {
	out := claims(ids, true)
	if len(ids) == 0 {
		return out, nil
	}
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	at, err := queryAll(ctx, c, func(sc scanner) (WatchClaim, error) {
		var w WatchClaim
		var micros sql.NullInt64
		err := sc.Scan(&w.LocationID, &micros)
		if micros.Valid {
			w.ChangedAt = time.UnixMicro(micros.Int64)
		}
		return w, err
	}, `SELECT location_id, changed_at FROM plan_versions WHERE location_id IN (`+placeholders(len(ids))+`)`, args...)
	if err != nil {
		return nil, err
	}
	when := make(map[string]time.Time, len(at))
	for _, w := range at {
		when[w.LocationID] = w.ChangedAt
	}
	for i := range out {
		out[i].ChangedAt = when[out[i].LocationID]
	}
	return out, nil
}

// claimWhere leases the first limit locations of due (a query whose ?s
// are all now) and returns them. On PostgreSQL it locks only the watch
// rows, skipping those locked: the plan_versions rows are the writers'.
func (s *Store) claimWhere(ctx context.Context, c conn, owner string, until time.Time, due string, now time.Time, limit int) ([]string, error) {
	args := []any{owner, until.UnixMicro()}
	for range strings.Count(due, "?") {
		args = append(args, now.UnixMicro())
	}
	lock := ""
	if s.dialect == postgresDialect {
		lock = " FOR UPDATE OF w SKIP LOCKED"
	}
	rows, err := c.query(ctx, `UPDATE promise_watch SET lease_owner = ?, lease_until = ?
		WHERE location_id IN (`+due+` LIMIT ?`+lock+`)
		RETURNING location_id`, append(args, limit)...)
	if err != nil {
		return nil, err
	}
	return collect(rows, func(sc scanner) (string, error) {
		var id string
		return id, sc.Scan(&id)
	})
}

func claims(ids []string, changed bool) []WatchClaim {
	out := make([]WatchClaim, len(ids))
	for i, id := range ids {
		out[i] = WatchClaim{LocationID: id, Changed: changed}
	}
	return out
}

// WatchBehind counts the locations whose watch has not yet looked at
// their current plan version (the bench waits for none after a start;
// it reads every location).
func (s *Store) WatchBehind(ctx context.Context) (int, error) {
	var n int
	err := s.read().queryRow(ctx, `SELECT COUNT(*) FROM plan_versions p
		LEFT JOIN promise_watch w ON w.location_id = p.location_id
		WHERE w.location_id IS NULL OR w.checked_version < p.version`).Scan(&n)
	return n, err
}

// WatchQueue is the promise watch's backlog at a moment.
type WatchQueue struct {
	Due       int           // locations changed or due by time
	OldestDue time.Duration // how long the longest-waiting one has waited (0: none)
}

// WatchQueueAt reads the backlog at now through the watch's indexes.
func (s *Store) WatchQueueAt(ctx context.Context, now time.Time) (WatchQueue, error) {
	var q WatchQueue
	var changed, timed int
	var oldestChange, oldestDue *int64
	err := s.read().queryRow(ctx, `SELECT
		(SELECT COUNT(*) FROM plan_versions WHERE changed_at IS NOT NULL),
		(SELECT MIN(changed_at) FROM plan_versions WHERE changed_at IS NOT NULL),
		(SELECT COUNT(*) FROM promise_watch w JOIN plan_versions p ON p.location_id = w.location_id
			WHERE w.due_at <= ? AND p.changed_at IS NULL),
		(SELECT MIN(w.due_at) FROM promise_watch w JOIN plan_versions p ON p.location_id = w.location_id
			WHERE w.due_at <= ? AND p.changed_at IS NULL)`,
		now.UnixMicro(), now.UnixMicro()).Scan(&changed, &oldestChange, &timed, &oldestDue)
	q.Due = changed + timed
	for _, at := range []*int64{oldestChange, oldestDue} {
		if at != nil {
			q.OldestDue = max(q.OldestDue, now.Sub(time.UnixMicro(*at)))
		}
	}
	return q, err
}

// PromiseCheck is one look at a location's promises.
type PromiseCheck struct {
	LocationID, Owner string
	Version           int64 // the plan version the plan was computed at
	Minute            int64 // its start minute
	Jobs              []workshop.JobOutlook
	Now               time.Time
	// Rest is how long the location is left alone after this look: the
	// watch looks at a location at most once a second.
	Rest time.Duration
	// Next is when time alone next needs a look (zero: never, until a
	// change).
	Next time.Time
}

// RecordPromises records a look at a location's promises in one write:
// each job whose plan turned at risk, or back on track, since the last look
// gets its job.at_risk or job.on_track event (data: the job's row with
// projected_completion and late_minutes), the jobs at risk are kept for the
// next look, and the look's version, minute and next time. Then, in a
// transaction of its own, the waiting change is cleared if the plan
// version is still the one planned (a change that came meanwhile leaves the
// location due): that write waits only for plan_versions, which writers
// lock, while the first holds nothing they wait for, so the two never
// deadlock with a writer. The location's watch row
// is locked first and must still be owner's lease, so two processes never
// both tell a turn. It returns the turns told.
func (s *Store) RecordPromises(ctx context.Context, pc PromiseCheck) ([]workshop.PromiseTurn, error) {
	turns, err := s.recordLook(ctx, pc)
	if err != nil {
		return turns, err
	}
	_, err = write(ctx, s, func(c conn) (struct{}, error) {
		_, err := c.exec(ctx, `UPDATE plan_versions SET changed_at = NULL WHERE location_id = ? AND version = ?`, pc.LocationID, pc.Version)
		return struct{}{}, err
	})
	return turns, err
}

// recordLook is RecordPromises' first transaction.
func (s *Store) recordLook(ctx context.Context, pc PromiseCheck) ([]workshop.PromiseTurn, error) {
	return write(ctx, s, func(c conn) ([]workshop.PromiseTurn, error) {
		var owner string
		err := c.queryRow(ctx, `SELECT lease_owner FROM promise_watch WHERE location_id = ?`+s.forUpdate(), pc.LocationID).Scan(&owner)
		if err != nil {
			return nil, notFoundOr(err, "promise watch")
		}
		if owner != pc.Owner {
			return nil, ErrLeaseLost
		}
		was, err := jobsAtRisk(ctx, c, pc.LocationID)
		if err != nil {
			return nil, err
		}
		turns := workshop.PromiseTurns(was, pc.Jobs)
		if err := tellTurns(ctx, c, pc, turns); err != nil {
			return nil, err
		}
		if err := forgetLeftJobs(ctx, c, pc, was); err != nil {
			return nil, err
		}
		next := int64(math.MaxInt64)
		if !pc.Next.IsZero() {
			next = pc.Next.UnixMicro()
		}
		_, err = c.exec(ctx, `UPDATE promise_watch SET checked_version = ?, checked_minute = ?, lease_until = ?, due_at = ?
			WHERE location_id = ?`,
			pc.Version, pc.Minute, pc.Now.Add(pc.Rest).UnixMicro(), next, pc.LocationID)
		return turns, err
	})
}

// jobsAtRisk is the set of the location's jobs last seen at risk.
func jobsAtRisk(ctx context.Context, c conn, locationID string) (map[string]bool, error) {
	rows, err := c.query(ctx, `SELECT job_id FROM job_promises WHERE location_id = ?`, locationID)
	if err != nil {
		return nil, err
	}
	ids, err := collect(rows, func(sc scanner) (string, error) {
		var id string
		return id, sc.Scan(&id)
	})
	was := make(map[string]bool, len(ids))
	for _, id := range ids {
		was[id] = true
	}
	return was, err
}

// tellTurns records each turn's event and keeps the at-risk set current.
func tellTurns(ctx context.Context, c conn, pc PromiseCheck, turns []workshop.PromiseTurn) error {
	for _, t := range turns {
		o := t.Outlook
		j, err := scanJob(c.queryRow(ctx, `SELECT `+jobColumns+` FROM jobs WHERE id = ?`, o.JobID))
		if err != nil {
			return err
		}
		row := append(jobRow(j), column{"late_minutes", o.LateMinutes}, column{"projected_completion", o.ProjectedCompletionText()})
		if err := recordEvent(ctx, c, j.OrgID, j.LocationID, t.Event, workshop.MicrosOf(pc.Now), row); err != nil {
			return err
		}
		if t.Event == workshop.EventJobOnTrack {
			_, err = c.exec(ctx, `DELETE FROM job_promises WHERE job_id = ?`, o.JobID)
		} else {
			_, err = c.exec(ctx, `INSERT INTO job_promises (job_id, location_id, projected_completion, late_minutes, at_risk_since)
				VALUES (?, ?, ?, ?, ?)`, o.JobID, pc.LocationID, o.ProjectedCompletionText(), o.LateMinutes, pc.Now.UnixMicro())
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// forgetLeftJobs drops the jobs at risk that are no longer in the plan
// (delivered, cancelled, finished): they turn nowhere.
func forgetLeftJobs(ctx context.Context, c conn, pc PromiseCheck, was map[string]bool) error {
	inPlan := make(map[string]bool, len(pc.Jobs))
	for _, o := range pc.Jobs {
		inPlan[o.JobID] = true
	}
	for id := range was {
		if !inPlan[id] {
			if _, err := c.exec(ctx, `DELETE FROM job_promises WHERE job_id = ?`, id); err != nil {
				return err
			}
		}
	}
	return nil
}
