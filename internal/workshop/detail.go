package workshop

import "time"

// The job detail (contract sections 2 and 8): a job's planned and actual
// windows, holds, delays, promise and verification. Its plan is the
// location's dispatch plan, so the detail, the plan and the dispatch page
// never disagree; there is no second layout of a job's steps.
//
// What it shows as planned:
//   - a step that is not completed, of a job in the plan: the plan's window
//     (for a step in progress, from its actual start), or none when the plan
//     leaves it unplaced;
//   - a completed step: the window its estimate gave from its actual start,
//     so that planned versus actual tells how it ran against its estimate
//     (none without an actual start);
//   - a step of a delivered or cancelled job that is not completed: none.
//
// The job's planned window spans its steps' (none when a step that is not
// completed has none); its promise is the plan's while it is in the plan,
// else, once every step is completed, its last actual end (and at risk
// only when Late), and none for a job that will not be finished
// (cancelled, or closed with work left) or has no steps.

// JobDetail is the detail of a job, every time in its location's zone.
type JobDetail struct {
	Job                      Job          // with its steps
	Steps                    []StepDetail // one per Job.Steps, in order
	PlannedStart, PlannedEnd *time.Time
	ActualStart, ActualEnd   *time.Time // the first actual start; the last actual end once every step is completed
	Holds                    []Hold
	Delays                   []Delay
	Promise                  DetailPromise
	VerifiedAt               *Micros // when the last step was completed, once every step is
	History                  []StatusChange
}

// StepDetail is a step's part of the detail.
type StepDetail struct {
	PlannedStart, PlannedEnd *time.Time
	ActualStart, ActualEnd   *time.Time
	// ProjectedEnd is when the step is expected to end now: its actual end,
	// or the plan's end; none for a step without a place in the plan.
	ProjectedEnd *time.Time
	// Unplaced is why the plan could not place the step; nil otherwise.
	Unplaced *UnplacedStep
}

// StatusChange is one entry of a job's status history.
type StatusChange struct {
	Status string
	At     Micros
}

// Hold is a period the job waited between steps; End nil while it lasts.
type Hold struct {
	Start time.Time
	End   *time.Time
}

// Delay is a step that ran (or runs) past the end its estimate gave from
// its actual start.
type Delay struct {
	StepID     string
	PlannedEnd time.Time // actual start plus the estimate, in working time
	End        time.Time // the actual end, or the plan's end of a step in progress
	Minutes    int       // working minutes past PlannedEnd
	Ongoing    bool
}

// DetailPromise is the promise made for the job and how it stands.
type DetailPromise struct {
	PromiseTime         *time.Time
	ProjectedCompletion *time.Time // nil when a step is unplaced, or the job will not be finished
	AtRisk              bool
	SlackMinutes        *int // nil without a promise or a projection
}

// JobInPlan is what a location's plan says of one job.
type JobInPlan struct {
	Outlook  JobOutlook
	Steps    map[string]PlannedStep
	Unplaced map[string]UnplacedStep
}

// JobInPlan finds a job in the plan.
func (d Dispatch) JobInPlan(jobID string) (JobInPlan, bool) {
	jp := JobInPlan{Steps: map[string]PlannedStep{}, Unplaced: map[string]UnplacedStep{}}
	found := false
	for _, o := range d.Jobs {
		if o.JobID == jobID {
			jp.Outlook, found = o, true
		}
	}
	if !found {
		return jp, false
	}
	for _, s := range d.Steps {
		if s.JobID == jobID {
			jp.Steps[s.StepID] = s
		}
	}
	for _, u := range d.Unplaced {
		if u.JobID == jobID {
			jp.Unplaced[u.StepID] = u
		}
	}
	return jp, true
}

// InPlan tells whether a job is in its location's dispatch plan: not
// delivered or cancelled, with a step not completed.
func InPlan(j Job) bool {
	if j.Terminal() {
		return false
	}
	for _, st := range j.Steps {
		if st.Status != StepCompleted {
			return true
		}
	}
	return false
}

// DetailInput is what a job's detail is computed from.
type DetailInput struct {
	Job      Job // with its steps
	History  []StatusChange
	Calendar Calendar // the location's
	// Plan is the job in its location's plan; nil for a job not in it
	// (InPlan false).
	Plan *JobInPlan
	Now  time.Time // for Late, of a job not in the plan
}

// DetailOf computes a job's detail.
func DetailOf(in DetailInput) JobDetail {
	j, cal := in.Job, in.Calendar
	zone := cal.zone()
	at := func(m *Micros) *time.Time {
		if m == nil {
			return nil
		}
		t := m.Time().In(zone)
		return &t
	}
	d := JobDetail{Job: j, Steps: make([]StepDetail, len(j.Steps)), Holds: holdsOf(in.History, zone), Delays: []Delay{},
		History: in.History, VerifiedAt: verifiedAt(j)}
	planless := false // a step not completed has no planned window
	allDone := len(j.Steps) > 0
	for i, st := range j.Steps {
		sd := StepDetail{ActualStart: at(st.StartedAt), ActualEnd: at(st.CompletedAt)}
		switch {
		case st.Status == StepCompleted:
			if sd.ActualStart != nil {
				end := cal.AddWork(*sd.ActualStart, time.Duration(st.EstimatedDuration)*time.Minute)
				sd.PlannedStart, sd.PlannedEnd = sd.ActualStart, &end
			}
			sd.ProjectedEnd = sd.ActualEnd
		case in.Plan != nil:
			if ps, ok := in.Plan.Steps[st.ID]; ok {
				start, end := ps.Start.In(zone), ps.End.In(zone)
				sd.PlannedStart, sd.PlannedEnd, sd.ProjectedEnd = &start, &end, &end
			} else if u, ok := in.Plan.Unplaced[st.ID]; ok {
				sd.Unplaced = &u
			}
		}
		if st.Status != StepCompleted {
			allDone = false
			planless = planless || sd.PlannedEnd == nil
		}
		d.Steps[i] = sd
		d.widen(sd)
		if dl, ok := delayOf(cal, st, sd); ok {
			d.Delays = append(d.Delays, dl)
		}
	}
	if planless {
		d.PlannedEnd = nil
	}
	if allDone {
		for _, sd := range d.Steps {
			if d.ActualEnd == nil || sd.ActualEnd != nil && sd.ActualEnd.After(*d.ActualEnd) {
				d.ActualEnd = sd.ActualEnd
			}
		}
	}
	d.Promise = promiseOf(in, d, allDone)
	return d
}

// widen stretches the job's windows over a step's.
func (d *JobDetail) widen(sd StepDetail) {
	if sd.PlannedStart != nil && (d.PlannedStart == nil || sd.PlannedStart.Before(*d.PlannedStart)) {
		d.PlannedStart = sd.PlannedStart
	}
	if sd.PlannedEnd != nil && (d.PlannedEnd == nil || sd.PlannedEnd.After(*d.PlannedEnd)) {
		d.PlannedEnd = sd.PlannedEnd
	}
	if sd.ActualStart != nil && (d.ActualStart == nil || sd.ActualStart.Before(*d.ActualStart)) {
		d.ActualStart = sd.ActualStart
	}
}

// promiseOf is the plan's promise for a job in it; for one that is not,
// its last actual end once every step is completed, and at risk when Late
// (a job without steps whose promise passed).
func promiseOf(in DetailInput, d JobDetail, allDone bool) DetailPromise {
	zone := in.Calendar.zone()
	p := DetailPromise{}
	if pt := in.Job.PromiseTime; pt != nil {
		t := pt.In(zone)
		p.PromiseTime = &t
	}
	switch {
	case in.Plan != nil:
		if pc := in.Plan.Outlook.ProjectedCompletion; pc != nil {
			t := pc.In(zone)
			p.ProjectedCompletion = &t
		}
		p.AtRisk = in.Plan.Outlook.AtRisk
	default:
		if allDone {
			p.ProjectedCompletion = d.ActualEnd
		}
		p.AtRisk = Late(in.Job.Status, in.Job.PromiseTime, in.Now)
	}
	if p.PromiseTime != nil && p.ProjectedCompletion != nil {
		slack := SlackMinutes(in.Calendar, *p.PromiseTime, *p.ProjectedCompletion)
		p.SlackMinutes = &slack
	}
	return p
}

// delayOf is a started step's delay: its end (actual, or the plan's while
// in progress) past the end its estimate gave from its actual start by a
// working minute or more.
func delayOf(cal Calendar, st Step, sd StepDetail) (Delay, bool) {
	if sd.ActualStart == nil {
		return Delay{}, false
	}
	end := sd.ActualEnd
	if end == nil {
		end = sd.ProjectedEnd
	}
	if end == nil {
		return Delay{}, false
	}
	due := cal.AddWork(*sd.ActualStart, time.Duration(st.EstimatedDuration)*time.Minute)
	late := cal.WorkBetween(due, *end)
	if !end.After(due) || late < time.Minute {
		return Delay{}, false
	}
	return Delay{StepID: st.ID, PlannedEnd: due, End: *end, Minutes: int(late / time.Minute), Ongoing: sd.ActualEnd == nil}, true
}

// SlackMinutes is the working time from projected to promise in whole
// minutes: positive when early (rounded down), negative when late (rounded
// away from zero, so any lateness is at least -1).
func SlackMinutes(cal Calendar, promise, projected time.Time) int {
	if projected.After(promise) {
		return -minutesUp(cal.WorkBetween(promise, projected))
	}
	return int(cal.WorkBetween(projected, promise) / time.Minute)
}

// holdsOf makes the waiting periods of a job's status history.
func holdsOf(history []StatusChange, zone *time.Location) []Hold {
	holds := []Hold{}
	for i, c := range history {
		if c.Status != JobWaiting {
			continue
		}
		h := Hold{Start: c.At.Time().In(zone)}
		if i+1 < len(history) {
			end := history[i+1].At.Time().In(zone)
			h.End = &end
		}
		holds = append(holds, h)
	}
	return holds
}

// verifiedAt is when the last of a job's steps was completed, when all are
// (the work is verified complete); nil otherwise.
func verifiedAt(j Job) *Micros {
	var last *Micros
	for _, st := range j.Steps {
		if st.CompletedAt == nil {
			return nil
		}
		if last == nil || *st.CompletedAt > *last {
			last = st.CompletedAt
		}
	}
	return last
}
