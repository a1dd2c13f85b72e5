package store

import (
	"context"
	"errors"
	"time"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// The promise watch's state (migration 00009): per location the plan
// version and minute last checked and a lease, so that one process at a
// time checks a location and at most once a second; and the jobs last seen
// at risk.

// ErrLeaseLost is RecordPromises' answer when another process holds the
// location's watch now (this one's lease ran out): it records nothing.
var ErrLeaseLost = errors.New("promise watch: lease lost")

// WatchDue lists the locations whose promises need a look at now: the
// plan version moved since the last look, or a new minute began (time
// alone makes a job late) and the location has open jobs; and nobody holds
// the location's watch. minute is the plan's start minute at now.
func (s *Store) WatchDue(ctx context.Context, now time.Time, minute int64) ([]string, error) {
	rows, err := s.read().query(ctx, `SELECT p.location_id FROM plan_versions p
		LEFT JOIN promise_watch w ON w.location_id = p.location_id
		WHERE (w.location_id IS NULL OR w.lease_until <= ?)
		AND (w.location_id IS NULL OR w.checked_version <> p.version
			OR (w.checked_minute < ? AND EXISTS (SELECT 1 FROM jobs j WHERE j.location_id = p.location_id
				AND j.status IN (`+placeholders(len(openStatuses))+`))))
		ORDER BY p.location_id`, append([]any{now.UnixMicro(), minute}, openStatuses...)...)
	if err != nil {
		return nil, err
	}
	return collect(rows, func(sc scanner) (string, error) {
		var id string
		return id, sc.Scan(&id)
	})
}

// ClaimWatch takes the location's watch for owner until until, unless
// another holds it; it tells whether owner has it.
func (s *Store) ClaimWatch(ctx context.Context, locationID, owner string, now, until time.Time) (bool, error) {
	return write(ctx, s, func(c conn) (bool, error) {
		res, err := c.exec(ctx, `INSERT INTO promise_watch (location_id, checked_version, checked_minute, lease_owner, lease_until)
			VALUES (?, 0, 0, ?, ?)
			ON CONFLICT (location_id) DO UPDATE SET lease_owner = excluded.lease_owner, lease_until = excluded.lease_until
			WHERE promise_watch.lease_until <= ?`,
			locationID, owner, until.UnixMicro(), now.UnixMicro())
		if err != nil {
			return false, err
		}
		n, err := res.RowsAffected()
		return n == 1, err
	})
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
}

// RecordPromises records a look at a location's promises in one write:
// each job whose plan turned at risk, or back on track, since the last look
// gets its job.at_risk or job.on_track event (data: the job's row with
// projected_completion and late_minutes), the jobs at risk are kept for the
// next look, and the look's version and minute. The location's watch row
// is locked first and must still be owner's lease, so two processes never
// both tell a turn. It returns the turns told.
func (s *Store) RecordPromises(ctx context.Context, pc PromiseCheck) ([]workshop.PromiseTurn, error) {
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
		_, err = c.exec(ctx, `UPDATE promise_watch SET checked_version = ?, checked_minute = ?, lease_until = ? WHERE location_id = ?`,
			pc.Version, pc.Minute, pc.Now.Add(pc.Rest).UnixMicro(), pc.LocationID)
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
