package store

import (
	"context"
	"slices"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// JobPatch is a change to a job; nil fields stay as they are. For the
// nullable fields a non-nil pointer to nil clears the value.
type JobPatch struct {
	UpdatedAt    workshop.Micros
	JobNumber    *string
	VehiclePlate **string
	VehicleMake  **string
	VehicleModel **string
	PromiseTime  **workshop.OffsetTime
	Priority     *string
	Source       *string
	ArrivalTime  **workshop.OffsetTime
}

// PatchJob changes a job's fields with optimistic concurrency on updatedAt;
// the arrival moves a job between booked and arrived. A patch that changes
// nothing keeps updatedAt and records no event.
func (s *Store) PatchJob(ctx context.Context, v Visibility, id string, p JobPatch, now workshop.Micros) (workshop.Job, error) {
	j, err := write(ctx, s, func(c conn) (workshop.Job, error) {
		j, err := s.jobWrite(ctx, c, v, id)
		if err != nil {
			return j, err
		}
		if j.Terminal() {
			return j, workshop.TerminalError(j, "it can no longer change")
		}
		if err := workshop.CheckVersion("job", j.UpdatedAt, p.UpdatedAt); err != nil {
			return j, err
		}
		next := j
		set(&next.JobNumber, p.JobNumber)
		set(&next.VehiclePlate, p.VehiclePlate)
		set(&next.VehicleMake, p.VehicleMake)
		set(&next.VehicleModel, p.VehicleModel)
		set(&next.PromiseTime, p.PromiseTime)
		set(&next.Priority, p.Priority)
		set(&next.Source, p.Source)
		set(&next.ArrivalTime, p.ArrivalTime)
		if next.ArrivalTime != nil && j.ArrivalTime == nil && j.Status == workshop.JobBooked {
			next.Status = workshop.JobArrived
		}
		if next.ArrivalTime == nil && j.Status == workshop.JobArrived {
			next.Status = workshop.JobBooked
		}
		if jobsEqual(j, next) {
			j.Steps, err = jobSteps(ctx, c, j.ID)
			return j, err
		}
		next.UpdatedAt = workshop.NextMicros(now.Time(), j.UpdatedAt)
		if err := updateJob(ctx, c, next, j.Status); err != nil {
			if isUniqueViolation(err, "job_number") {
				return j, jobNumberTaken(next.JobNumber)
			}
			return j, err
		}
		if err := recordEvent(ctx, c, next.OrgID, next.LocationID, workshop.EventJobUpdated, next.UpdatedAt, jobRow(next)); err != nil {
			return j, err
		}
		next.Steps, err = jobSteps(ctx, c, next.ID)
		return next, err
	})
	if isUniqueViolation(err, "job_number") {
		return j, jobNumberTaken(*p.JobNumber)
	}
	return j, err
}

// set applies an optional change.
func set[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}

func jobsEqual(a, b workshop.Job) bool {
	eq := func(x, y *string) bool { return (x == nil && y == nil) || (x != nil && y != nil && *x == *y) }
	teq := func(x, y *workshop.OffsetTime) bool {
		return (x == nil && y == nil) || (x != nil && y != nil && x.Equal(y.Time) && x.String() == y.String())
	}
	return a.JobNumber == b.JobNumber && eq(a.VehiclePlate, b.VehiclePlate) && eq(a.VehicleMake, b.VehicleMake) &&
		eq(a.VehicleModel, b.VehicleModel) && teq(a.PromiseTime, b.PromiseTime) && a.Priority == b.Priority &&
		a.Source == b.Source && teq(a.ArrivalTime, b.ArrivalTime) && a.Status == b.Status
}

// DeliverJob marks a job delivered (job.delivered); delivering a delivered
// job returns it unchanged, a cancelled one is invalid_transition.
func (s *Store) DeliverJob(ctx context.Context, v Visibility, id string, now workshop.Micros, opts ...WriteOption) (workshop.Job, error) {
	return s.finishJob(ctx, v, id, now, workshop.JobDelivered, nil, keyOf(opts))
}

// CancelJob cancels a job with reason tags from the location's governed
// list (job.cancelled); an unknown tag is named and nothing changes;
// cancelling a cancelled job returns it unchanged, a delivered one is
// invalid_transition.
func (s *Store) CancelJob(ctx context.Context, v Visibility, id string, tags []string, now workshop.Micros, opts ...WriteOption) (workshop.Job, error) {
	return s.finishJob(ctx, v, id, now, workshop.JobCancelled, tags, keyOf(opts))
}

func (s *Store) finishJob(ctx context.Context, v Visibility, id string, now workshop.Micros, to string, tags []string, key *IdempotencyKey) (workshop.Job, error) {
	return writeUnder(ctx, s, key, func(c conn) (workshop.Job, error) {
		j, err := s.jobWrite(ctx, c, v, id)
		if err != nil {
			return j, err
		}
		switch {
		case j.Status == to:
			j.Steps, err = jobSteps(ctx, c, j.ID)
			return j, err
		case j.Terminal():
			return j, workshop.Errorf(workshop.CodeInvalidTransition, "Job %s is %s and cannot become %s.", j.ID, j.Status, to)
		}
		event, prev := workshop.EventJobDelivered, j.Status
		j.Status, j.UpdatedAt = to, workshop.NextMicros(now.Time(), j.UpdatedAt)
		if to == workshop.JobDelivered {
			j.DeliveredAt = &j.UpdatedAt
		} else {
			if err := checkCancelTags(ctx, c, j.LocationID, tags); err != nil {
				return j, err
			}
			event, j.CancelledAt, j.CancelReasons = workshop.EventJobCancelled, &j.UpdatedAt, tags
		}
		if err := updateJob(ctx, c, j, prev); err != nil {
			return j, err
		}
		if err := recordEvent(ctx, c, j.OrgID, j.LocationID, event, j.UpdatedAt, jobRow(j)); err != nil {
			return j, err
		}
		j.Steps, err = jobSteps(ctx, c, j.ID)
		return j, err
	})
}

func checkCancelTags(ctx context.Context, c conn, locationID string, tags []string) error {
	rows, err := c.query(ctx, `SELECT tag FROM cancel_tags WHERE location_id = ?`, locationID)
	if err != nil {
		return err
	}
	known, err := collect(rows, func(sc scanner) (string, error) {
		var t string
		return t, sc.Scan(&t)
	})
	if err != nil {
		return err
	}
	var v workshop.Validation
	for i, t := range tags {
		if !slices.Contains(known, t) {
			v.AddCode("reasonTags", "unknown_tag", "reasonTags[%d]: %q is not a cancel reason tag of this location (see GET /v1/scheduler/cancel-reason-tags).", i, t)
		}
	}
	return v.Err()
}

// updateJob writes a job's row, and its status history when the status
// changed (prevStatus is the status it had).
func updateJob(ctx context.Context, c conn, j workshop.Job, prevStatus string) error {
	if j.Status != prevStatus {
		if err := recordStatus(ctx, c, j); err != nil {
			return err
		}
	}
	_, err := c.exec(ctx, `UPDATE jobs SET job_number = ?, vehicle_plate = ?, vehicle_make = ?, vehicle_model = ?, promise_time = ?,
		promise_time_us = ?, priority = ?, source = ?, arrival_time = ?, status = ?, delivered_at = ?, cancelled_at = ?,
		cancel_reason_tags = ?, updated_at = ? WHERE id = ?`,
		j.JobNumber, j.VehiclePlate, j.VehicleMake, j.VehicleModel, offsetText(j.PromiseTime), offsetMicros(j.PromiseTime),
		j.Priority, j.Source, offsetText(j.ArrivalTime), j.Status, nullMicros(j.DeliveredAt), nullMicros(j.CancelledAt),
		reasonsText(j.CancelReasons), j.UpdatedAt, j.ID)
	return err
}
