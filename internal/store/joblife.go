package store

import (
	"context"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// JobPatch is a change to a job; nil fields stay as they are. For the
// nullable fields a non-nil pointer to nil clears the value.
type JobPatch = workshop.JobPatch

// PatchJob changes a job's fields with optimistic concurrency on updatedAt;
// the arrival moves a job between booked and arrived. A patch that changes
// nothing keeps updatedAt and records no event.
func (s *Store) PatchJob(ctx context.Context, v Visibility, id string, p JobPatch, now workshop.Micros) (workshop.Job, error) {
	j, err := write(ctx, s, func(c conn) (workshop.Job, error) {
		j, err := s.jobWrite(ctx, c, v, id)
		if err != nil {
			return j, err
		}
		next, err := workshop.ChangeJob(j, p, now)
		if err != nil {
			return j, err
		}
		if next.UpdatedAt == j.UpdatedAt {
			j.Steps, err = jobSteps(ctx, c, j.ID)
			return j, err
		}
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

// DeliverJob marks a job delivered (job.delivered); delivering a delivered
// job returns it unchanged, a cancelled one is invalid_transition.
func (s *Store) DeliverJob(ctx context.Context, v Visibility, id string, now workshop.Micros, opts ...WriteOption) (workshop.Job, error) {
	return s.finishJob(ctx, v, id, now, workshop.JobDelivered, nil, optionsOf(opts))
}

// CancelJob cancels a job with reason tags from the location's governed
// list (job.cancelled); an unknown tag is named and nothing changes;
// cancelling a cancelled job returns it unchanged, a delivered one is
// invalid_transition.
func (s *Store) CancelJob(ctx context.Context, v Visibility, id string, tags []string, now workshop.Micros, opts ...WriteOption) (workshop.Job, error) {
	return s.finishJob(ctx, v, id, now, workshop.JobCancelled, tags, optionsOf(opts))
}

func (s *Store) finishJob(ctx context.Context, v Visibility, id string, now workshop.Micros, to string, tags []string, o writeOptions) (workshop.Job, error) {
	return writeUnder(ctx, s, o.key, func(c conn) (workshop.Job, error) {
		j, err := s.jobWrite(ctx, c, v, id)
		if err != nil {
			return j, err
		}
		if o.expected != nil {
			if err := workshop.CheckVersion("job", j.UpdatedAt, *o.expected); err != nil {
				return j, err
			}
		}
		var known []string
		if to == workshop.JobCancelled && !j.Terminal() {
			if known, err = cancelTagsOf(ctx, c, j.LocationID); err != nil {
				return j, err
			}
		}
		next, err := workshop.FinishJob(j, to, tags, known, now)
		if err != nil {
			return j, err
		}
		if next.UpdatedAt == j.UpdatedAt {
			j.Steps, err = jobSteps(ctx, c, j.ID)
			return j, err
		}
		event := workshop.EventJobDelivered
		if to == workshop.JobCancelled {
			event = workshop.EventJobCancelled
		}
		if err := updateJob(ctx, c, next, j.Status); err != nil {
			return j, err
		}
		if err := recordEvent(ctx, c, next.OrgID, next.LocationID, event, next.UpdatedAt, jobRow(next)); err != nil {
			return j, err
		}
		next.Steps, err = jobSteps(ctx, c, next.ID)
		return next, err
	})
}

// cancelTagsOf lists the tags of a location's cancel reasons.
func cancelTagsOf(ctx context.Context, c conn, locationID string) ([]string, error) {
	rows, err := c.query(ctx, `SELECT tag FROM cancel_tags WHERE location_id = ? AND retired_at IS NULL`, locationID)
	if err != nil {
		return nil, err
	}
	return collect(rows, func(sc scanner) (string, error) {
		var t string
		return t, sc.Scan(&t)
	})
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
		cancel_reason_tags = ?, updated_at = ?, expected_arrival = ?, customer_name = ?, customer_phone = ?, customer_email = ? WHERE id = ?`,
		j.JobNumber, j.VehiclePlate, j.VehicleMake, j.VehicleModel, offsetText(j.PromiseTime), offsetMicros(j.PromiseTime),
		j.Priority, j.Source, offsetText(j.ArrivalTime), j.Status, nullMicros(j.DeliveredAt), nullMicros(j.CancelledAt),
		reasonsText(j.CancelReasons), j.UpdatedAt, timeText(j.ExpectedArrival), j.CustomerName, j.CustomerPhone, j.CustomerEmail, j.ID)
	return err
}
