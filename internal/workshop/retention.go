package workshop

import "time"

// Customer data retention (contract section 4): a location may keep the
// customer fields of closed jobs for a number of days only; after that a
// daily sweep erases them from the job and from its stored events.

// ClosedBefore tells whether job j is delivered or cancelled and closed
// more than days days before now.
func ClosedBefore(j Job, days int, now time.Time) bool {
	closed := j.DeliveredAt
	if closed == nil {
		closed = j.CancelledAt
	}
	return closed != nil && closed.Time().Before(now.Add(-time.Duration(days)*24*time.Hour))
}

// HasCustomer tells whether a job still carries customer data.
func HasCustomer(j Job) bool {
	return j.CustomerName != nil || j.CustomerPhone != nil || j.CustomerEmail != nil
}

// EraseCustomer is j with its customer fields erased, updated at now; false
// when it had none (nothing changes).
func EraseCustomer(j Job, now Micros) (Job, bool) {
	if !HasCustomer(j) {
		return j, false
	}
	j.CustomerName, j.CustomerPhone, j.CustomerEmail = nil, nil, nil
	j.UpdatedAt = NextMicros(now.Time(), j.UpdatedAt)
	return j, true
}

// CustomerColumns are the customer fields as the stored row (and every
// job event's data) names them.
var CustomerColumns = []string{"customer_email", "customer_name", "customer_phone"}

// ArrivalOverdue tells whether a booking's car is late: the job is still
// booked (not arrived) and its drop-off time has passed.
func ArrivalOverdue(status string, expected *time.Time, now time.Time) bool {
	return status == JobBooked && expected != nil && expected.Before(now)
}
