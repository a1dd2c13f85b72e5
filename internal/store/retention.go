package store

import (
	"context"
	"encoding/json"
	"time"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// The customer data sweep (contract section 4): once a day per location
// whose settings set customerDataRetentionDays, the customer fields of its
// jobs closed longer ago are erased, each such job emitting job.updated,
// and so are they in the stored data of the job's earlier events (a
// redelivery then carries them no more). One process does a location's
// sweep: its transaction claims the day in retention_sweeps, so another
// process's claim finds it taken and does nothing. A location mid-close
// waits for its close (the sweep writes jobs, which the close holds).

// RetentionSweep is what one sweep did.
type RetentionSweep struct {
	Locations int // locations swept
	Jobs      int // jobs whose customer data was erased
	Waiting   int // locations mid-close, left for the next sweep
}

// retentionEvery is how often a location is swept.
const retentionEvery = 24 * time.Hour

// SweepCustomerData sweeps every location that is due at now.
func (s *Store) SweepCustomerData(ctx context.Context, now time.Time) (RetentionSweep, error) {
	var out RetentionSweep
	rows, err := s.read().query(ctx, `SELECT w.location_id, w.customer_data_retention_days FROM workshop_settings w
		LEFT JOIN retention_sweeps r ON r.location_id = w.location_id
		WHERE w.customer_data_retention_days IS NOT NULL AND (r.due_at IS NULL OR r.due_at <= ?)`, now.UnixMicro())
	if err != nil {
		return out, err
	}
	type due struct {
		id   string
		days int
	}
	list, err := collect(rows, func(sc scanner) (due, error) {
		var d due
		return d, sc.Scan(&d.id, &d.days)
	})
	if err != nil {
		return out, err
	}
	for _, d := range list {
		n, err := s.sweepLocation(ctx, d.id, d.days, now)
		switch {
		case workshop.ErrorCode(err) == workshop.CodeDayCloseInProgress:
			out.Waiting++
		case err != nil:
			return out, err
		case n >= 0:
			out.Locations++
			out.Jobs += n
		}
	}
	return out, nil
}

// sweepLocation erases the location's expired customer data in one
// transaction with its claim; -1: another process swept it already.
func (s *Store) sweepLocation(ctx context.Context, locationID string, days int, now time.Time) (int, error) {
	return write(ctx, s, func(c conn) (int, error) {
		l, err := locationsForWrite(ctx, c, []string{locationID})
		if err != nil {
			return 0, err
		}
		loc := l[locationID]
		if err := writable(Visibility{OrgID: loc.OrgID}, locationID, loc, true); err != nil {
			return 0, err // mid-close: the next sweep tries again
		}
		if _, err := c.exec(ctx, `INSERT INTO retention_sweeps (location_id, due_at) VALUES (?, 0) ON CONFLICT (location_id) DO NOTHING`,
			locationID); err != nil {
			return 0, err
		}
		res, err := c.exec(ctx, `UPDATE retention_sweeps SET due_at = ? WHERE location_id = ? AND due_at <= ?`,
			now.Add(retentionEvery).UnixMicro(), locationID, now.UnixMicro())
		if err != nil {
			return 0, err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return -1, err
		}
		cutoff := workshop.MicrosOf(now.Add(-time.Duration(days) * 24 * time.Hour))
		rows, err := c.query(ctx, `SELECT `+jobColumns+` FROM jobs WHERE location_id = ? AND status IN (?, ?)
			AND COALESCE(delivered_at, cancelled_at) < ?
			AND (customer_name IS NOT NULL OR customer_phone IS NOT NULL OR customer_email IS NOT NULL)`+s.forUpdate(),
			locationID, workshop.JobDelivered, workshop.JobCancelled, cutoff)
		if err != nil {
			return 0, err
		}
		jobs, err := collect(rows, scanJob)
		if err != nil {
			return 0, err
		}
		stamp := workshop.MicrosOf(now)
		erased := 0
		for _, j := range jobs {
			next, changed := workshop.EraseCustomer(j, stamp)
			if !changed || !workshop.ClosedBefore(j, days, now) {
				continue
			}
			if err := eraseJobEvents(ctx, c, j); err != nil {
				return 0, err
			}
			if err := updateJob(ctx, c, next, j.Status); err != nil {
				return 0, err
			}
			if err := recordEvent(ctx, c, next.OrgID, next.LocationID, workshop.EventJobUpdated, next.UpdatedAt, jobRow(next)); err != nil {
				return 0, err
			}
			erased++
		}
		return erased, nil
	})
}

// eraseJobEvents sets the customer fields to null in the data of the job's
// stored events (job events carry the job's row: its id under "id").
func eraseJobEvents(ctx context.Context, c conn, j workshop.Job) error {
	rows, err := c.query(ctx, `SELECT seq, data FROM events WHERE location_id = ? AND event LIKE 'job.%' AND occurred_at >= ?
		AND data LIKE ?`, j.LocationID, j.CreatedAt, `%"id":"`+j.ID+`"%`)
	if err != nil {
		return err
	}
	type stored struct {
		seq  int64
		data string
	}
	list, err := collect(rows, func(sc scanner) (stored, error) {
		var e stored
		return e, sc.Scan(&e.seq, &e.data)
	})
	if err != nil {
		return err
	}
	for _, e := range list {
		var data map[string]json.RawMessage
		if err := json.Unmarshal([]byte(e.data), &data); err != nil {
			return err
		}
		if string(data["id"]) != `"`+j.ID+`"` {
			continue
		}
		changed := false
		for _, col := range workshop.CustomerColumns {
			if v, ok := data[col]; ok && string(v) != "null" {
				data[col], changed = json.RawMessage("null"), true
			}
		}
		if !changed {
			continue
		}
		b, err := json.Marshal(data)
		if err != nil {
			return err
		}
		if _, err := c.exec(ctx, `UPDATE events SET data = ? WHERE seq = ?`, string(b), e.seq); err != nil {
			return err
		}
	}
	return nil
}
