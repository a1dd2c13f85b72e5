package workshop

import (
	"slices"
	"strings"
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
	// CompletedAt, with Status completed, is when the step was completed
	// if not now: a day close records a step finished earlier so. It may
	// be neither before the step started nor after now.
	CompletedAt *Micros
}

// StepFacts is what a step change is checked against besides the job and
// the step: the technicians and bays it names, as stored (a bay that is
// missing or deleted is absent).
type StepFacts struct {
	Technicians map[string]TechnicianLoad
	Bays        map[string]BaySlot
}

// TechnicianLoad is a technician as a step change sees it: where it works,
// how many steps it may have in progress, and which it has.
type TechnicianLoad struct {
	LocationID string
	WIPLimit   int
	InProgress []string // ids of the steps in progress it is assigned to
	// Deleted technicians are not assigned anew, but the steps that have
	// them keep them, within their limit.
	Deleted bool
}

// BaySlot is a bay as a step change sees it: where it is, its status, and
// the steps in progress in it (step id -> job id). A bay holds one vehicle.
type BaySlot struct {
	LocationID, Status string
	InProgress         map[string]string
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
				v.AddCode("techIds", "not_in_location", "techIds[%d]: technician %s is not a technician of the job's location.", i, id)
			}
		}
	}
	if p.BayID != nil {
		next.BayID = *p.BayID
		if next.BayID != nil && (st.BayID == nil || *st.BayID != *next.BayID) {
			_ = v.Check(checkBay(f.Bays, st.LocationID, *next.BayID)) // only validation errors
		}
	}
	if p.NotBefore != nil {
		if st.Status != StepPending || p.Status != nil && *p.Status != StepPending {
			v.Add("notBefore", "notBefore may be set on a pending step only; step %s is %s.", st.ID, st.Status)
		}
		next.NotBefore = *p.NotBefore
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
			at, err := completedAt(st, p, now)
			if err != nil {
				return st, err
			}
			next.CompletedAt = &at
		}
	}
	if err := checkWIP(f.Technicians, st, next); err != nil {
		return st, err
	}
	if err := checkBayFree(f.Bays, st, next); err != nil {
		return st, err
	}
	if stepsEqual(st, next) {
		return st, nil
	}
	next.UpdatedAt = NextMicros(now.Time(), st.UpdatedAt)
	return next, nil
}

// completedAt is when a step completes: now, or the earlier time the
// patch gives.
func completedAt(st Step, p StepPatch, now Micros) (Micros, error) {
	if p.CompletedAt == nil {
		return now, nil
	}
	at := *p.CompletedAt
	if at > now || st.StartedAt != nil && at < *st.StartedAt {
		return now, Invalid("completedAt", "A step is completed after it started and not later than now.")
	}
	return at, nil
}

// checkBay refuses a bay of another location or in maintenance.
func checkBay(bays map[string]BaySlot, locationID, id string) error {
	b, ok := bays[id]
	if !ok || b.LocationID != locationID {
		return Invalid("bayId", "Bay %s is not a bay of the job's location.", id)
	}
	if b.Status == "maintenance" {
		var v Validation
		v.AddCode("bayId", "bay_in_maintenance", "Bay %s is in maintenance and cannot be assigned.", id)
		return v.Err()
	}
	return nil
}

// checkWIP refuses to put technicians over their work-in-progress limit:
// those a step in progress gains, counted with their other steps in
// progress.
func checkWIP(techs map[string]TechnicianLoad, prev, next Step) error {
	if next.Status != StepInProgress {
		return nil
	}
	var v Validation
	for _, id := range slices.Sorted(slices.Values(next.TechIDs)) {
		if prev.Status == StepInProgress && slices.Contains(prev.TechIDs, id) {
			continue
		}
		t, ok := techs[id]
		if !ok {
			continue // no such technician: nothing to count against
		}
		busy := len(t.InProgress)
		if slices.Contains(t.InProgress, prev.ID) {
			busy--
		}
		if busy+1 > t.WIPLimit {
			v.AddCode("techIds", "wip_limit_exceeded", "Technician %s already has %d step(s) in progress, their limit is %d.", id, busy, t.WIPLimit)
		}
	}
	return v.Err()
}

// checkBayFree refuses a step in progress in a bay (started there, or moved
// there while in progress) where a step of another job is in progress.
func checkBayFree(bays map[string]BaySlot, prev, next Step) error {
	if next.Status != StepInProgress || next.BayID == nil ||
		prev.Status == StepInProgress && prev.BayID != nil && *prev.BayID == *next.BayID {
		return nil
	}
	for stepID, jobID := range bays[*next.BayID].InProgress {
		if stepID != prev.ID && jobID != prev.JobID {
			var v Validation
			v.AddCode("bayId", "bay_occupied", "Bay %s holds another job's vehicle: a step of job %s is in progress there.", *next.BayID, jobID)
			return v.Err()
		}
	}
	return nil
}

// Record keeps a decided change in the facts, so that the changes decided
// after it with the same facts (a group's) count its technicians' work.
func (f StepFacts) Record(prev, next Step) {
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
		sameOffsetTime(a.NotBefore, b.NotBefore)
}

// sameOffsetTime: both none, or the same instant with the same offset (a
// notBefore sent again with another offset is a change: it comes back so).
func sameOffsetTime(a, b *OffsetTime) bool {
	return a == nil && b == nil || a != nil && b != nil && a.Equal(b.Time) && a.String() == b.String()
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
	return Errorf(CodeInvalidTransition, "Job %s is %s: %s.", j.ID, j.Status, what)
}
