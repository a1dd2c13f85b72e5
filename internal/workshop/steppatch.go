package workshop

import (
	"slices"
	"strings"
	"time"
)

// StepPatch is a change to a step; nil fields stay as they are.
type StepPatch struct {
	UpdatedAt         Micros // the step's current updatedAt, as the caller knows it
	Label             *string
	Phase             *int
	SchedulingMode    *string
	EstimatedDuration *int
	TechIDs           *[]string
	BayID             **string // set to a nil *string to unassign
	// NotBefore schedules a pending step (a nil *OffsetTime returns its
	// time to the planner); refused on a step that is not pending.
	NotBefore **OffsetTime
	Status    *string
	// ActualStart and ActualEnd are what happened, written down
	// afterwards (contract section 9): the start with a move to
	// in_progress, the end with a move to completed (a day close records a
	// step finished earlier so), or corrections of a step that stays in
	// progress (its start) or completed (both). Without them a move stamps
	// now.
	ActualStart, ActualEnd *Micros
	// Skew is how far past now an actual time may lie: the clock skew
	// tolerated of a sent arrivalTime.
	Skew time.Duration
	// Precision is the unit the actual times were given in (a minute, from
	// a form's time field; zero from the API, which sends exact times). A
	// time so given stands for its whole unit: one in the unit the job
	// arrived or the step started, but before that moment, is taken as
	// that moment, so "finished at 16:30" for a step started at 16:30:20
	// records 16:30:20 rather than being refused.
	Precision time.Duration
}

// StepFacts is what a step change is checked against besides the job and
// the step: the technicians and bays it names, as stored (a bay that is
// missing or deleted is absent), and the numbers of the jobs whose steps
// are in progress in those bays. Its refusals name technicians, bays and
// jobs as staff know them (contract section 7): by name and job number,
// the id only of one the facts do not hold.
type StepFacts struct {
	Technicians map[string]TechnicianLoad
	Bays        map[string]BaySlot
	JobNumbers  map[string]string // job id -> job number
}

// techName names technician id in a refusal.
func (f StepFacts) techName(id string) string {
	if t, ok := f.Technicians[id]; ok && t.Name != "" {
		return t.Name
	}
	return "Technician " + id
}

// bayName names bay id in a refusal.
func (f StepFacts) bayName(id string) string {
	if b, ok := f.Bays[id]; ok && b.Name != "" {
		return b.Name
	}
	return "Bay " + id
}

// jobNumber names job id in a refusal.
func (f StepFacts) jobNumber(id string) string {
	if n := f.JobNumbers[id]; n != "" {
		return n
	}
	return "job " + id
}

// TechnicianLoad is a technician as a step change sees it: its name,
// where it works, how many steps it may have in progress, and which it
// has.
type TechnicianLoad struct {
	Name       string
	LocationID string
	WIPLimit   int
	InProgress []string // ids of the steps in progress it is assigned to
	// Deleted technicians are not assigned anew, but the steps that have
	// them keep them, within their limit.
	Deleted bool
}

// BaySlot is a bay as a step change sees it: its name, where it is, its
// status, and the steps in progress in it (step id -> job id). A bay holds
// one vehicle.
type BaySlot struct {
	Name, LocationID, Status string
	InProgress               map[string]string
}

// ChangeStep decides a patch of step st of job j at now: the step as the
// patch leaves it (st itself when nothing changes, so its updatedAt too),
// or why it cannot. The rules, in the order their errors are reported:
// the job is open, the caller's updatedAt is current, technicians are the
// job location's, the bay is the location's and not in maintenance, the
// status moves pending, in_progress, completed (stamping the start and the
// end), technicians stay within their work-in-progress limits, and a step
// in progress is in a bay no other job has a step in progress in.
func ChangeStep(j Job, st Step, p StepPatch, now Micros, f StepFacts) (Step, error) {
	if j.Terminal() {
		return st, TerminalError(j, "its steps cannot change")
	}
	if err := CheckVersion("step", st.UpdatedAt, p.UpdatedAt); err != nil {
		return st, err
	}
	next := st
	next.TechIDs = slices.Clone(st.TechIDs)
	var v Validation // every invalid field of the patch, reported together
	if p.Label != nil {
		if strings.TrimSpace(*p.Label) == "" {
			v.Add("label", "label cannot be blank.")
		}
		next.Label = *p.Label
	}
	if p.Phase != nil {
		next.Phase = *p.Phase
	}
	if p.SchedulingMode != nil {
		next.SchedulingMode = *p.SchedulingMode
	}
	if p.EstimatedDuration != nil {
		next.EstimatedDuration = *p.EstimatedDuration
	}
	if p.TechIDs != nil {
		next.TechIDs = Dedupe(*p.TechIDs)
		for i, id := range next.TechIDs {
			if t, ok := f.Technicians[id]; !ok || t.Deleted || t.LocationID != st.LocationID {
				v.AddCode("techIds", "not_in_location", "techIds[%d]: %s is not a technician of the job's location.", i, f.techName(id))
			}
		}
	}
	if p.BayID != nil {
		next.BayID = *p.BayID
		if next.BayID != nil && (st.BayID == nil || *st.BayID != *next.BayID) {
			_ = v.Check(f.checkBay(st.LocationID, *next.BayID)) // only validation errors
		}
	}
	if p.NotBefore != nil {
		switch {
		case st.Status != StepPending:
			v.Add("notBefore", "notBefore may be set on a pending step only; %s is %s.", st.Label, statusWords(st.Status))
		case p.Status != nil && *p.Status != StepPending:
			v.Add("notBefore", "notBefore may be set on a pending step only, not in the change that moves it to %s.", statusWords(*p.Status))
		}
		next.NotBefore = *p.NotBefore
	}
	if p.Label != nil {
		checkLength(&v, "label", next.Label, MaxStepLabelLength)
	}
	if p.EstimatedDuration != nil {
		checkEstimate(&v, next.EstimatedDuration)
	}
	if err := v.Err(); err != nil {
		return st, err // the status is judged on a valid step
	}
	if p.Status != nil {
		if err := StepTransition(st.Status, *p.Status); err != nil {
			return st, err
		}
		next.Status = *p.Status
		switch {
		case st.Status == StepPending && next.Status == StepInProgress:
			next.StartedAt = &now
		case st.Status == StepInProgress && next.Status == StepCompleted:
			next.CompletedAt = &now
		}
	}
	if err := recordActuals(j, st, &next, p, now); err != nil {
		return st, err
	}
	if err := f.checkWIP(st, next); err != nil {
		return st, err
	}
	if err := f.checkBayFree(st, next); err != nil {
		return st, err
	}
	if stepsEqual(st, next) {
		return st, nil
	}
	next.UpdatedAt = NextMicros(now.Time(), st.UpdatedAt)
	return next, nil
}

// recordActuals writes a patch's actualStart and actualEnd into next, the
// step as the patch's status leaves it (prev is the stored one): the start
// when it moves to or stays in progress or stays completed, the end when
// it moves to or stays completed; each neither in the future (beyond the
// skew) nor before the job arrived (was created, when it has no arrival),
// and the end not before the start.
func recordActuals(j Job, prev Step, next *Step, p StepPatch, now Micros) error {
	if p.ActualStart == nil && p.ActualEnd == nil {
		return nil
	}
	earliest := j.CreatedAt
	if j.ArrivalTime != nil {
		earliest = MicrosOf(j.ArrivalTime.Time)
	}
	latest := MicrosOf(now.Time().Add(p.Skew))
	var v Validation
	check := func(field string, at Micros, allowed bool, when string) {
		switch {
		case !allowed:
			v.Add(field, "%s is sent %s.", field, when)
		case at > latest:
			v.Add(field, "%s %s is in the future; it records what happened (a clock %s ahead is tolerated).", field, at, durationWords(p.Skew))
		case at < earliest:
			v.Add(field, "%s %s is before the job arrived (%s).", field, at, earliest)
		}
	}
	moved := prev.Status != next.Status
	if p.ActualStart != nil {
		p.ActualStart = raiseMicrosWithin(*p.ActualStart, earliest, p.Precision)
		check("actualStart", *p.ActualStart, next.Status == StepInProgress || next.Status == StepCompleted && !moved,
			"with a move to in_progress, or to correct a step in progress or completed")
		next.StartedAt = clone(p.ActualStart)
	}
	if p.ActualEnd != nil {
		floor := earliest
		if next.StartedAt != nil {
			floor = max(floor, *next.StartedAt)
		}
		p.ActualEnd = raiseMicrosWithin(*p.ActualEnd, floor, p.Precision)
		check("actualEnd", *p.ActualEnd, next.Status == StepCompleted,
			"with a move to completed, or to correct a completed step")
		next.CompletedAt = clone(p.ActualEnd)
	}
	if err := v.Err(); err != nil {
		return err
	}
	if next.StartedAt != nil && next.CompletedAt != nil && *next.CompletedAt < *next.StartedAt {
		field := "actualEnd"
		if p.ActualEnd == nil {
			field = "actualStart"
		}
		return Invalid(field, "A step ends after it starts: actualEnd %s is before actualStart %s.", *next.CompletedAt, *next.StartedAt)
	}
	return nil
}

// raiseWithin is at given to unit (see StepPatch.Precision): floor when at
// lies before it but in the same unit, else at.
func raiseWithin(at, floor time.Time, unit time.Duration) time.Time {
	if unit > 0 && at.Before(floor) && at.Truncate(unit).Equal(floor.Truncate(unit)) {
		return floor.In(at.Location())
	}
	return at
}

// raiseMicrosWithin is raiseWithin of a recorded time.
func raiseMicrosWithin(at, floor Micros, unit time.Duration) *Micros {
	raised := MicrosOf(raiseWithin(at.Time(), floor.Time(), unit))
	return &raised
}

func clone[T any](p *T) *T {
	c := *p
	return &c
}

// checkBay refuses a bay of another location or in maintenance.
func (f StepFacts) checkBay(locationID, id string) error {
	b, ok := f.Bays[id]
	if !ok || b.LocationID != locationID {
		return Invalid("bayId", "%s is not a bay of the job's location.", f.bayName(id))
	}
	if b.Status == "maintenance" {
		var v Validation
		v.AddCode("bayId", "bay_in_maintenance", "%s is in maintenance and cannot be assigned.", f.bayName(id))
		return v.Err()
	}
	return nil
}

// checkWIP refuses to put technicians over their work-in-progress limit:
// those a step in progress gains, counted with their other steps in
// progress.
func (f StepFacts) checkWIP(prev, next Step) error {
	if next.Status != StepInProgress {
		return nil
	}
	var v Validation
	for _, id := range slices.Sorted(slices.Values(next.TechIDs)) {
		if prev.Status == StepInProgress && slices.Contains(prev.TechIDs, id) {
			continue
		}
		t, ok := f.Technicians[id]
		if !ok {
			continue // no such technician: nothing to count against
		}
		busy := len(t.InProgress)
		if slices.Contains(t.InProgress, prev.ID) {
			busy--
		}
		if busy+1 > t.WIPLimit {
			v.AddCode("techIds", "wip_limit_exceeded", "%s already has %s in progress; their limit is %d.", f.techName(id), count(busy, "step"), t.WIPLimit)
		}
	}
	return v.Err()
}

// checkBayFree refuses a step in progress in a bay (started there, or moved
// there while in progress) where a step of another job is in progress.
func (f StepFacts) checkBayFree(prev, next Step) error {
	if next.Status != StepInProgress || next.BayID == nil ||
		prev.Status == StepInProgress && prev.BayID != nil && *prev.BayID == *next.BayID {
		return nil
	}
	for stepID, jobID := range f.Bays[*next.BayID].InProgress {
		if stepID != prev.ID && jobID != prev.JobID {
			var v Validation
			v.AddCode("bayId", "bay_occupied", "%s holds another job's vehicle: %s has a step in progress there.",
				f.bayName(*next.BayID), f.jobNumber(jobID))
			return v.Err()
		}
	}
	return nil
}

// Record keeps a decided change of a step of job j in the facts, so that
// the changes decided after it with the same facts (a group's) count its
// technicians' work and its bay.
func (f StepFacts) Record(j Job, prev, next Step) {
	if prev.BayID != nil {
		if b, ok := f.Bays[*prev.BayID]; ok {
			delete(b.InProgress, prev.ID)
		}
	}
	if next.Status == StepInProgress && next.BayID != nil {
		if b, ok := f.Bays[*next.BayID]; ok {
			if b.InProgress == nil {
				b.InProgress = map[string]string{}
				f.Bays[*next.BayID] = b
			}
			b.InProgress[next.ID] = next.JobID
			if f.JobNumbers != nil {
				f.JobNumbers[next.JobID] = j.JobNumber
			}
		}
	}
	for _, id := range prev.TechIDs {
		if t, ok := f.Technicians[id]; ok {
			t.InProgress = slices.DeleteFunc(slices.Clone(t.InProgress), func(s string) bool { return s == prev.ID })
			f.Technicians[id] = t
		}
	}
	if next.Status != StepInProgress {
		return
	}
	for _, id := range next.TechIDs {
		if t, ok := f.Technicians[id]; ok {
			t.InProgress = append(t.InProgress, next.ID)
			f.Technicians[id] = t
		}
	}
}

func stepsEqual(a, b Step) bool {
	return a.Label == b.Label && a.Phase == b.Phase && a.SchedulingMode == b.SchedulingMode &&
		a.EstimatedDuration == b.EstimatedDuration && slices.Equal(a.TechIDs, b.TechIDs) &&
		((a.BayID == nil) == (b.BayID == nil)) && (a.BayID == nil || *a.BayID == *b.BayID) && a.Status == b.Status &&
		samePtr(a.StartedAt, b.StartedAt) && samePtr(a.CompletedAt, b.CompletedAt) && sameOffsetTime(a.NotBefore, b.NotBefore)
}

func samePtr[T comparable](a, b *T) bool {
	return a == nil && b == nil || a != nil && b != nil && *a == *b
}

// sameOffsetTime: both none, or the same instant with the same offset (a
// notBefore sent again with another offset is a change: it comes back so).
func sameOffsetTime(a, b *OffsetTime) bool {
	return a == nil && b == nil || a != nil && b != nil && a.String() == b.String()
}

// CheckVersion is stale_updated_at unless the caller's version of a record
// (what) is its current one.
func CheckVersion(what string, current, expected Micros) error {
	if current == expected {
		return nil
	}
	return &Error{Code: CodeStaleUpdatedAt, Field: "updatedAt", CurrentUpdatedAt: &current,
		Detail: "The " + what + " changed since you read it (updatedAt " + current.String() + "); read it again and reapply your change."}
}

// TerminalError refuses a change (what) of a delivered or cancelled job.
func TerminalError(j Job, what string) error {
	return Errorf(CodeInvalidTransition, "Job %s is %s: %s.", j.JobNumber, statusWords(j.Status), what)
}
