package workshop

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Job is one vehicle's visit.
type Job struct {
	ID             string
	OrgID          string
	LocationID     string
	IntegrationID  string // the namespace of ExternalKey: the creating key's integration, or ""
	ExternalKey    *string
	JobNumber      string
	VehiclePlate   *string
	VehicleMake    *string
	VehicleModel   *string
	PromiseTime    *OffsetTime
	Priority       string
	Source         string
	ArrivalTime    *OffsetTime
	InsuranceClaim *string // insurance claim reference; not in the REST form, in the stored row
	// ExpectedArrival is a booking's drop-off time, with the offset it was
	// sent with (nil: none); the plan starts a booked job no earlier.
	ExpectedArrival *time.Time
	// CustomerName, CustomerPhone and CustomerEmail say whom to call (nil:
	// not known, or erased after the location's retention).
	CustomerName, CustomerPhone, CustomerEmail *string
	Status                                     string
	DeliveredAt                                *Micros
	CancelledAt                                *Micros
	CancelReasons                              []string
	CreatedAt                                  Micros
	UpdatedAt                                  Micros
	Steps                                      []Step // only where a read asks for them
}

// Step is one task of a job.
type Step struct {
	ID                string
	JobID             string
	OrgID             string
	LocationID        string
	Label             string
	Phase             int
	SchedulingMode    string
	EstimatedDuration int // minutes
	TechIDs           []string
	BayID             *string
	Status            string
	StartedAt         *Micros
	CompletedAt       *Micros
	CreatedAt         Micros
	UpdatedAt         Micros
	// ServiceCode names the catalog item the step was made from, whose
	// required skills it needs (contract section 8); nil for free text.
	ServiceCode *string
	// NotBefore is the earliest the plan may start the pending step, as the
	// caller sent it (contract section 8, "Scheduling a step at a time"); a
	// pending step with it, its technicians and its bay is scheduled.
	NotBefore *OffsetTime
}

// Value sets (contract section 4).
var (
	Priorities      = []string{"low", "normal", "high", "urgent"}
	Sources         = []string{"phone", "walk_in", "web", "email", "dms", "app", "other"}
	SchedulingModes = []string{"sequential", "parallel"}
)

// Job statuses, derived from the steps and the arrival.
const (
	JobBooked     = "booked"
	JobArrived    = "arrived"
	JobInProgress = "in_progress"
	JobWaiting    = "waiting"
	JobReady      = "ready"
	JobDelivered  = "delivered"
	JobCancelled  = "cancelled"
)

// JobStatuses lists every job status.
var JobStatuses = []string{JobBooked, JobArrived, JobInProgress, JobWaiting, JobReady, JobDelivered, JobCancelled}

// Step statuses.
const (
	StepPending    = "pending"
	StepInProgress = "in_progress"
	StepCompleted  = "completed"
)

// StepCounts is how many of a job's steps are in each status.
type StepCounts struct{ Pending, InProgress, Completed int }

// DeriveJobStatus is a job's status from its terminal state, its arrival
// and its steps: delivered and cancelled are final; a step in progress makes
// the job in_progress; all steps completed, ready; some completed, waiting;
// nothing started, arrived or booked by whether the vehicle is here.
func DeriveJobStatus(delivered, cancelled, arrived bool, c StepCounts) string {
	switch {
	case cancelled:
		return JobCancelled
	case delivered:
		return JobDelivered
	case c.InProgress > 0:
		return JobInProgress
	case c.Completed > 0 && c.Pending == 0:
		return JobReady
	case c.Completed > 0:
		return JobWaiting
	case arrived:
		return JobArrived
	}
	return JobBooked
}

// Terminal tells whether the job can no longer change.
func (j *Job) Terminal() bool { return j.Status == JobDelivered || j.Status == JobCancelled }

// ExpectedAt is when a booking is expected to arrive, the instant a day
// close holds it to: its promise time. (An expected arrival of its own,
// when jobs carry one, goes first; this is the one place that says so.)
func (j *Job) ExpectedAt() *OffsetTime { return j.PromiseTime }

// StepTransition checks a step's status change: pending -> in_progress ->
// completed only; the same status is no change.
func StepTransition(from, to string) error {
	if from == to {
		return nil
	}
	if (from == StepPending && to == StepInProgress) || (from == StepInProgress && to == StepCompleted) {
		return nil
	}
	return Errorf(CodeInvalidTransition, "A step cannot move from %s to %s: steps go pending, in_progress, completed.", from, to)
}

// OffsetTime is a time a caller sent with its UTC offset, kept exactly:
// it comes back with the same offset.
type OffsetTime struct{ time.Time }

// String is RFC 3339 with the offset kept.
func (t OffsetTime) String() string { return t.Format(time.RFC3339Nano) }

// ParseOffsetTime reads the stored text form.
func ParseOffsetTime(s string) (OffsetTime, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	return OffsetTime{t}, err
}

// CheckArrival refuses an arrival in the future beyond the clock-skew
// tolerance: an arrival is a fact, never a plan.
func CheckArrival(field string, at time.Time, now time.Time, skew time.Duration) error {
	if at.After(now.Add(skew)) {
		return Invalid(field, "arrivalTime %s is in the future; an arrival records when the vehicle came (a clock %s ahead is tolerated).",
			at.Format(time.RFC3339), durationWords(skew))
	}
	return nil
}

// durationWords is a tolerance as people say it: "5 minutes", "30 seconds".
func durationWords(d time.Duration) string {
	n, unit := int64(d/time.Second), "second"
	if d%time.Minute == 0 && d > 0 {
		n, unit = int64(d/time.Minute), "minute"
	}
	if n != 1 {
		unit += "s"
	}
	return fmt.Sprintf("%d %s", n, unit)
}

// FormatJobNumber is the assigned number of seq in a year: RO-2026-0001.
func FormatJobNumber(year, seq int) string { return fmt.Sprintf("RO-%d-%04d", year, seq) }

// CheckJobNumber validates a number a caller sets.
func CheckJobNumber(n string) error {
	if strings.TrimSpace(n) == "" {
		return Invalid("jobNumber", "jobNumber cannot be blank.")
	}
	return nil
}

// Event names (service-interface section 6).
const (
	EventJobCreated       = "job.created"
	EventJobUpdated       = "job.updated"
	EventJobDelivered     = "job.delivered"
	EventJobCancelled     = "job.cancelled"
	EventStepCreated      = "step.created"
	EventStepUpdated      = "step.updated"
	EventStepCompleted    = "step.completed"
	EventBayStatusChanged = "bay.status_changed"
	EventTechClockedIn    = "tech.clocked_in"
	EventTechClockedOut   = "tech.clocked_out"
	EventJobAtRisk        = "job.at_risk"
	EventJobOnTrack       = "job.on_track"
)

// EventNames is the subscribable set.
var EventNames = []string{EventJobCreated, EventJobUpdated, EventJobDelivered, EventJobCancelled, EventStepCreated,
	EventStepUpdated, EventStepCompleted, EventBayStatusChanged, EventTechClockedIn, EventTechClockedOut, EventJobAtRisk, EventJobOnTrack,
	EventWebhookDisabled}

// ValidEvent tells whether name is subscribable.
func ValidEvent(name string) bool { return slices.Contains(EventNames, name) }

// Opened is a job being created in a location of time zone zone, settled:
// its arrival stamped at its creation when stampArrival, and its first
// status. year is the year of its number, the location's local year.
func Opened(j Job, zone *time.Location, stampArrival bool) (_ Job, year int) {
	local := j.CreatedAt.Time().In(zone)
	if stampArrival {
		j.ArrivalTime = &OffsetTime{Time: local}
	}
	j.Status = DeriveJobStatus(false, false, j.ArrivalTime != nil, StepCounts{})
	return j, local.Year()
}
