package workshop

import (
	"slices"
	"time"
)

// JobPatch is a change to a job; nil fields stay as they are. For the
// nullable fields a non-nil pointer to nil clears the value.
type JobPatch struct {
	UpdatedAt    Micros
	JobNumber    *string
	VehiclePlate **string
	VehicleMake  **string
	VehicleModel **string
	PromiseTime  **OffsetTime
	Priority     *string
	Source       *string
	ArrivalTime  **OffsetTime
	// ExpectedArrival and the customer fields: as the other nullable ones.
	ExpectedArrival                            **time.Time
	CustomerName, CustomerPhone, CustomerEmail **string
}

// ChangeJob decides a patch of job j at now: the job as the patch leaves
// it (j itself when nothing changes, so its updatedAt too), or why it
// cannot: the job is delivered or cancelled, or the caller's updatedAt is
// not current. The arrival moves a job between booked and arrived.
func ChangeJob(j Job, p JobPatch, now Micros) (Job, error) {
	if j.Terminal() {
		return j, TerminalError(j, "it can no longer change")
	}
	if err := CheckVersion("job", j.UpdatedAt, p.UpdatedAt); err != nil {
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
	set(&next.ExpectedArrival, p.ExpectedArrival)
	set(&next.CustomerName, p.CustomerName)
	set(&next.CustomerPhone, p.CustomerPhone)
	set(&next.CustomerEmail, p.CustomerEmail)
	if next.ArrivalTime != nil && j.ArrivalTime == nil && j.Status == JobBooked {
		next.Status = JobArrived
	}
	if next.ArrivalTime == nil && j.Status == JobArrived {
		next.Status = JobBooked
	}
	if err := checkJobPatch(next, p); err != nil {
		return j, err
	}
	if jobsEqual(j, next) {
		return j, nil
	}
	next.UpdatedAt = NextMicros(now.Time(), j.UpdatedAt)
	return next, nil
}

// set applies an optional change.
func set[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}

func jobsEqual(a, b Job) bool {
	eq := func(x, y *string) bool { return (x == nil && y == nil) || (x != nil && y != nil && *x == *y) }
	teq := func(x, y *OffsetTime) bool {
		return (x == nil && y == nil) || (x != nil && y != nil && x.Equal(y.Time) && x.String() == y.String())
	}
	return a.JobNumber == b.JobNumber && eq(a.VehiclePlate, b.VehiclePlate) && eq(a.VehicleMake, b.VehicleMake) &&
		eq(a.VehicleModel, b.VehicleModel) && teq(a.PromiseTime, b.PromiseTime) && a.Priority == b.Priority &&
		a.Source == b.Source && teq(a.ArrivalTime, b.ArrivalTime) && a.Status == b.Status &&
		sameInstantAndOffset(a.ExpectedArrival, b.ExpectedArrival) && eq(a.CustomerName, b.CustomerName) &&
		eq(a.CustomerPhone, b.CustomerPhone) && eq(a.CustomerEmail, b.CustomerEmail)
}

// sameInstantAndOffset tells whether two optional times are the same
// instant written with the same offset.
func sameInstantAndOffset(x, y *time.Time) bool {
	return (x == nil && y == nil) || (x != nil && y != nil && x.Equal(*y) && x.Format(time.RFC3339Nano) == y.Format(time.RFC3339Nano))
}

// FinishJob decides the delivery (to JobDelivered) or cancellation (to
// JobCancelled, with reason tags from the location's list, known) of job j
// at now: the job finished (j itself when it already is), or why it
// cannot: a finished job does not become the other, and every tag must be
// the location's.
func FinishJob(j Job, to string, tags, known []string, now Micros) (Job, error) {
	switch {
	case j.Status == to:
		return j, nil
	case j.Terminal():
		return j, Errorf(CodeInvalidTransition, "Job %s is %s and cannot become %s.", j.JobNumber, statusWords(j.Status), statusWords(to))
	}
	next := j
	next.Status, next.UpdatedAt = to, NextMicros(now.Time(), j.UpdatedAt)
	if to == JobDelivered {
		next.DeliveredAt = &next.UpdatedAt
		return next, nil
	}
	var v Validation
	for i, t := range tags {
		if !slices.Contains(known, t) {
			v.AddCode("reasonTags", "unknown_tag", "reasonTags[%d]: %s is not a cancel reason tag of this location (see GET /v1/scheduler/cancel-reason-tags).", i, t)
		}
	}
	if err := v.Err(); err != nil {
		return j, err
	}
	next.CancelledAt, next.CancelReasons = &next.UpdatedAt, tags
	return next, nil
}

// SetStatus decides a change of a technician's or bay's (what) operational
// status from current (as of updatedAt) to status at now, with the caller's
// version expected: the new updatedAt, and whether anything changed (the
// same status again changes nothing).
func SetStatus(what, current string, updatedAt, expected Micros, status string, now Micros) (Micros, bool, error) {
	if err := CheckVersion(what, updatedAt, expected); err != nil || current == status {
		return updatedAt, false, err
	}
	return NextMicros(now.Time(), updatedAt), true, nil
}
