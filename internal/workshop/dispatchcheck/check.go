// Package dispatchcheck checks a dispatch plan against every rule of
// contract section 8, written from the contract and apart from the
// planner's code (it shares only the calendar's working time), so that a
// planner mistake cannot hide in a shared helper. Every planner test and
// the fuzz test run it.
package dispatchcheck

import (
	"fmt"
	"slices"
	"time"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// Check returns every way d breaks the rules for in; none for a feasible,
// consistent plan.
func Check(in workshop.DispatchInput, d workshop.Dispatch) []error {
	c := &checker{in: in, d: d, techs: map[string]workshop.DispatchTech{}, bays: map[string]workshop.DispatchBay{},
		steps: map[string]stepRef{}, placed: map[string]workshop.PlannedStep{}, unplaced: map[string]workshop.UnplacedStep{}}
	c.index()
	c.start()
	c.coverage()
	for _, ps := range d.Steps {
		c.placedStep(ps)
	}
	c.resources()
	c.precedence()
	c.scheduledStarts()
	c.outlooks()
	return c.errs
}

type stepRef struct {
	job   workshop.DispatchJob
	index int
}

func (r stepRef) step() workshop.DispatchStep { return r.job.Steps[r.index] }

type checker struct {
	in       workshop.DispatchInput
	d        workshop.Dispatch
	techs    map[string]workshop.DispatchTech
	bays     map[string]workshop.DispatchBay
	steps    map[string]stepRef
	placed   map[string]workshop.PlannedStep
	unplaced map[string]workshop.UnplacedStep
	planFrom time.Time
	errs     []error
}

func (c *checker) fail(format string, args ...any) {
	c.errs = append(c.errs, fmt.Errorf(format, args...))
}

func (c *checker) index() {
	for _, t := range c.in.Techs {
		c.techs[t.ID] = t
	}
	for _, b := range c.in.Bays {
		c.bays[b.ID] = b
	}
	for _, j := range c.in.Jobs {
		for i, s := range j.Steps {
			c.steps[s.ID] = stepRef{job: j, index: i}
		}
	}
	for _, ps := range c.d.Steps {
		if _, dup := c.placed[ps.StepID]; dup {
			c.fail("step %s is placed twice", ps.StepID)
		}
		c.placed[ps.StepID] = ps
	}
	for _, u := range c.d.Unplaced {
		if _, dup := c.unplaced[u.StepID]; dup {
			c.fail("step %s is unplaced twice", u.StepID)
		}
		c.unplaced[u.StepID] = u
	}
}

// start: now rounded up to the minute.
func (c *checker) start() {
	now := c.in.Now
	if r := now.Truncate(time.Minute); r.Before(now) {
		now = r.Add(time.Minute)
	}
	c.planFrom = now
	if !c.d.Start.Equal(c.planFrom) {
		c.fail("plan start %v, want %v", c.d.Start, c.planFrom)
	}
}

// coverage: every step not completed is placed or unplaced, exactly once;
// nothing else is.
func (c *checker) coverage() {
	for id, ref := range c.steps {
		s := ref.step()
		_, p := c.placed[id]
		_, u := c.unplaced[id]
		switch {
		case s.Status == workshop.StepCompleted && (p || u):
			c.fail("completed step %s is in the plan", id)
		case s.Status != workshop.StepCompleted && p == u:
			c.fail("step %s: placed %v, unplaced %v; want exactly one", id, p, u)
		case s.Status == workshop.StepInProgress && u:
			c.fail("step %s in progress is unplaced", id)
		}
	}
	for id, ps := range c.placed {
		if ref, ok := c.steps[id]; !ok || ref.job.ID != ps.JobID {
			c.fail("placed step %s of job %s is not a step of that job in the input", id, ps.JobID)
		}
	}
	reasons := []string{workshop.UnplacedNoTechnician, workshop.UnplacedNoBay, workshop.UnplacedBeyond, workshop.UnplacedAfter,
		workshop.UnplacedAssigned}
	for id, u := range c.unplaced {
		ref, ok := c.steps[id]
		if !ok || ref.job.ID != u.JobID {
			c.fail("unplaced step %s of job %s is not a step of that job in the input", id, u.JobID)
			continue
		}
		if !slices.Contains(reasons, u.Reason) {
			c.fail("unplaced step %s: reason %q", id, u.Reason)
		}
		c.reason(ref, u)
	}
}

// reason: a step unplaced for want of a technician or a bay has none it
// could have; otherwise one that waits for an unplaced step is
// after_unplaced_step, blocked by the first of those with a reason of its
// own; blockedBy comes with that reason only.
func (c *checker) reason(ref stepRef, u workshop.UnplacedStep) {
	s := ref.step()
	first := ""
	for _, q := range c.predecessors(ref) {
		if qu, ok := c.unplaced[q.ID]; ok && qu.Reason != workshop.UnplacedAfter && first == "" {
			first = q.ID
		}
	}
	if (u.BlockedBy != "") != (u.Reason == workshop.UnplacedAfter) {
		c.fail("step %s unplaced %q with blockedBy %q", s.ID, u.Reason, u.BlockedBy)
	}
	switch {
	case u.Reason == workshop.UnplacedAfter:
		if first == "" || u.BlockedBy != first {
			c.fail("step %s is after_unplaced_step blocked by %q, want the first step it waits for unplaced for a reason of its own, %q", s.ID, u.BlockedBy, first)
		}
		if c.wantsTechnician(s) || c.wantsBay(s) || c.assignedAway(s) {
			c.fail("step %s is after_unplaced_step, but has a reason of its own", s.ID)
		}
	case u.Reason == workshop.UnplacedBeyond && first != "":
		c.fail("step %s is beyond_horizon, but waits for unplaced %s", s.ID, first)
	}
	switch {
	case u.Reason == workshop.UnplacedAssigned && !c.assignedAway(s):
		c.fail("step %s is assigned_unavailable, but its assigned technicians are available and its bay is not in maintenance", s.ID)
	case u.Reason != workshop.UnplacedAssigned && c.assignedAway(s):
		c.fail("step %s is unplaced %q, but is assigned to a technician who is unavailable or a bay in maintenance", s.ID, u.Reason)
	case u.Reason == workshop.UnplacedNoTechnician && !c.wantsTechnician(s):
		c.fail("step %s is unplaced for want of a technician, but has one or one qualifies", s.ID)
	case u.Reason == workshop.UnplacedNoBay && !c.wantsBay(s):
		c.fail("step %s is unplaced for want of a bay, but has one, or the location has none, or one suits it", s.ID)
	}
}

func (c *checker) placedStep(ps workshop.PlannedStep) {
	ref, ok := c.steps[ps.StepID]
	if !ok {
		return
	}
	s := ref.step()
	if !ps.End.After(ps.Start) && s.Duration > 0 {
		c.fail("step %s ends %v, not after its start %v", s.ID, ps.End, ps.Start)
	}
	if s.Status == workshop.StepInProgress {
		if !ps.Pinned || !slices.Equal(ps.TechIDs, s.TechIDs) || ps.BayID != s.BayID {
			c.fail("step %s in progress: pinned %v, techs %v, bay %q; want pinned with its own %v, %q", s.ID, ps.Pinned, ps.TechIDs, ps.BayID, s.TechIDs, s.BayID)
		}
		if s.StartedAt != nil && !ps.Start.Equal(*s.StartedAt) {
			c.fail("step %s in progress starts %v, want its actual start %v", s.ID, ps.Start, *s.StartedAt)
		}
		return
	}
	if c.assignedAway(s) {
		c.fail("step %s is planned, but is assigned to a technician who is unavailable or a bay in maintenance", s.ID)
	}
	if want := len(s.TechIDs) > 0 || s.BayID != ""; ps.Pinned != want {
		c.fail("step %s: pinned %v, want %v", s.ID, ps.Pinned, want)
	}
	c.assignment(s, ps)
	c.timing(ref, ps)
}

// assignment: kept where assigned, else one qualified technician and,
// when the location has bays, one suitable bay.
func (c *checker) assignment(s workshop.DispatchStep, ps workshop.PlannedStep) {
	if len(s.TechIDs) > 0 {
		if !slices.Equal(ps.TechIDs, s.TechIDs) {
			c.fail("step %s: techs %v, want its assigned %v", s.ID, ps.TechIDs, s.TechIDs)
		}
	} else if len(ps.TechIDs) != 1 {
		c.fail("step %s: %d technicians, want exactly one", s.ID, len(ps.TechIDs))
	} else if t, ok := c.techs[ps.TechIDs[0]]; !ok || t.Unavailable || !hasAll(t.Skills, s.RequiredSkills) {
		c.fail("step %s: technician %s is unknown, unavailable or lacks one of %v", s.ID, ps.TechIDs[0], s.RequiredSkills)
	}
	switch {
	case s.BayID != "":
		if ps.BayID != s.BayID {
			c.fail("step %s: bay %q, want its assigned %q", s.ID, ps.BayID, s.BayID)
		}
	case len(c.in.Bays) == 0:
		if ps.BayID != "" {
			c.fail("step %s: bay %q in a location without bays", s.ID, ps.BayID)
		}
	default:
		if b, ok := c.bays[ps.BayID]; !ok || !suits(b, s) {
			c.fail("step %s (service %q): bay %q is unknown, in maintenance or does not offer it", s.ID, s.ServiceCode, ps.BayID)
		}
	}
}

// shift is when the technicians and the bay given all work: the domain's
// one rule of a resource's working time (workshop.WorkPeriods).
func (c *checker) shift(techIDs []string, bayID string) workshop.Shift {
	return c.in.Calendar.Shift(c.planFrom.Add(-24*time.Hour), c.planFrom.Add(17*24*time.Hour), c.in.WorkOf(techIDs, bayID)...)
}

// timing: in its technicians' and bay's working time, its length its
// duration of their working time, not before the plan's start, its
// notBefore or the job's arrival (or, booked and without notBefore, the
// opening of its promise's date or of the date), within the horizon.
func (c *checker) timing(ref stepRef, ps workshop.PlannedStep) {
	s, cal := ref.step(), c.in.Calendar
	work := c.shift(ps.TechIDs, ps.BayID)
	if !work.Open(ps.Start) {
		c.fail("step %s starts %v, out of its technicians' or bay's working time", s.ID, ps.Start)
	}
	if got := work.WorkBetween(ps.Start, ps.End); got != s.Duration {
		c.fail("step %s: %v of working time between %v and %v, want %v", s.ID, got, ps.Start, ps.End, s.Duration)
	}
	if ps.Start.Before(c.planFrom) {
		c.fail("step %s starts %v, before the plan's start %v", s.ID, ps.Start, c.planFrom)
	}
	if ps.End.After(c.planFrom.Add(14 * 24 * time.Hour)) {
		c.fail("step %s ends %v, beyond 14 days after the start", s.ID, ps.End)
	}
	j := ref.job
	switch {
	case s.NotBefore != nil:
		if ps.Start.Before(*s.NotBefore) {
			c.fail("step %s starts %v, before its notBefore %v", s.ID, ps.Start, *s.NotBefore)
		}
		if j.ArrivalTime != nil && ps.Start.Before(*j.ArrivalTime) {
			c.fail("step %s starts %v, before its job arrived %v", s.ID, ps.Start, *j.ArrivalTime)
		}
	case j.ArrivalTime != nil:
		if ps.Start.Before(*j.ArrivalTime) {
			c.fail("step %s starts %v, before its job arrived %v", s.ID, ps.Start, *j.ArrivalTime)
		}
	case j.ExpectedArrival != nil:
		if ps.Start.Before(*j.ExpectedArrival) {
			c.fail("step %s of a booking starts %v, before its expected arrival %v", s.ID, ps.Start, *j.ExpectedArrival)
		}
	case j.PromiseTime != nil:
		zone := cal.Zone
		if zone == nil {
			zone = time.UTC
		}
		y, m, d := j.PromiseTime.In(zone).Date()
		if open := cal.NextOpen(time.Date(y, m, d, 0, 0, 0, 0, zone)); ps.Start.Before(open) {
			c.fail("step %s of a booking starts %v, before the opening %v of its promise's date", s.ID, ps.Start, open)
		}
	}
}

// use is a technician's or bay's stretch in the plan.
type use struct {
	step, job  string
	start, end time.Time
	inProgress bool // two in-progress stretches may overlap
}

// resources: one step at a time per technician and bay (steps in progress
// may overlap each other), and the bay buffer of working time between
// steps of different jobs in a bay.
func (c *checker) resources() {
	techUse, bayUse := map[string][]use{}, map[string][]use{}
	for _, ps := range c.d.Steps {
		ref, ok := c.steps[ps.StepID]
		if !ok {
			continue
		}
		u := use{step: ps.StepID, job: ps.JobID, start: ps.Start, end: ps.End, inProgress: ref.step().Status == workshop.StepInProgress}
		for _, t := range ps.TechIDs {
			techUse[t] = append(techUse[t], u)
		}
		if ps.BayID != "" {
			bayUse[ps.BayID] = append(bayUse[ps.BayID], u)
		}
	}
	for t, list := range techUse {
		c.pairs(list, func(a, b use) {
			if a.start.Before(b.end) && b.start.Before(a.end) {
				c.fail("technician %s: steps %s and %s overlap", t, a.step, b.step)
			}
		})
	}
	buffer := c.in.BayBuffer
	for bay, list := range bayUse {
		c.pairs(list, func(a, b use) {
			if a.start.Before(b.end) && b.start.Before(a.end) {
				c.fail("bay %s: steps %s and %s overlap", bay, a.step, b.step)
				return
			}
			if a.job == b.job || buffer <= 0 {
				return
			}
			first, second := a, b
			if b.start.Before(a.start) {
				first, second = b, a
			}
			if gap := c.in.Calendar.WorkBetween(first.end, second.start); gap < buffer {
				c.fail("bay %s: %v of working time between %s and %s of different jobs, want %v", bay, gap, first.step, second.step, buffer)
			}
		})
	}
}

// pairs calls f for each two stretches of which at least one is planned
// (not in progress).
func (c *checker) pairs(list []use, f func(a, b use)) {
	for i := range list {
		for k := i + 1; k < len(list); k++ {
			if list[i].inProgress && list[k].inProgress {
				continue
			}
			f(list[i], list[k])
		}
	}
}

// predecessors are the steps a step waits for: every step of a lower phase
// of its job, and in its phase the sequential steps before a sequential one.
func (c *checker) predecessors(ref stepRef) []workshop.DispatchStep {
	s := ref.step()
	var out []workshop.DispatchStep
	for i, q := range ref.job.Steps {
		if q.ID == s.ID {
			continue
		}
		if q.Phase < s.Phase || (q.Phase == s.Phase && i < ref.index && s.Mode != "parallel" && q.Mode != "parallel") {
			out = append(out, q)
		}
	}
	return out
}

// precedence: a planned pending step starts after its predecessors end; a
// step waiting for an unplaced one is unplaced.
func (c *checker) precedence() {
	for id, ps := range c.placed {
		ref, ok := c.steps[id]
		if !ok || ref.step().Status == workshop.StepInProgress {
			continue
		}
		for _, q := range c.predecessors(ref) {
			var end time.Time
			switch {
			case q.Status == workshop.StepCompleted:
				if q.CompletedAt == nil {
					continue
				}
				end = *q.CompletedAt
			case c.unplaced[q.ID].StepID != "":
				c.fail("step %s is placed though it waits for unplaced %s", id, q.ID)
				continue
			default:
				end = c.placed[q.ID].End
			}
			if ps.Start.Before(end) {
				c.fail("step %s starts %v, before %s (which it waits for) ends %v", id, ps.Start, q.ID, end)
			}
		}
	}
}

// wantsTechnician: a pending step without technicians that nobody
// available could do.
func (c *checker) wantsTechnician(s workshop.DispatchStep) bool {
	if len(s.TechIDs) > 0 {
		return false
	}
	for _, t := range c.in.Techs {
		if !t.Unavailable && hasAll(t.Skills, s.RequiredSkills) {
			return false
		}
	}
	return true
}

// assignedAway: a pending step a person assigned to a technician who is
// unavailable or to a bay in maintenance.
func (c *checker) assignedAway(s workshop.DispatchStep) bool {
	if s.Status != workshop.StepPending {
		return false
	}
	for _, id := range s.TechIDs {
		if c.techs[id].Unavailable {
			return true
		}
	}
	return s.BayID != "" && c.bays[s.BayID].Maintenance
}

// wantsBay: a pending step without a bay, in a location with bays, that
// none suits.
func (c *checker) wantsBay(s workshop.DispatchStep) bool {
	if s.BayID != "" || len(c.in.Bays) == 0 {
		return false
	}
	for _, b := range c.in.Bays {
		if suits(b, s) {
			return false
		}
	}
	return true
}

// scheduled: a pending step with technicians, a bay when the location has
// bays, and a notBefore.
func (c *checker) scheduled(s workshop.DispatchStep) bool {
	return s.Status == workshop.StepPending && s.NotBefore != nil && len(s.TechIDs) > 0 && (s.BayID != "" || len(c.in.Bays) == 0)
}

// scheduledBefore: scheduled a and b, a comes first in the placement
// order (by notBefore, then creation).
func scheduledBefore(a, b workshop.DispatchStep) bool {
	if !a.NotBefore.Equal(*b.NotBefore) {
		return a.NotBefore.Before(*b.NotBefore)
	}
	return a.CreatedAt.Before(b.CreatedAt)
}

// scheduledStarts: a scheduled step that waits for no unfinished step,
// whose notBefore lies in working time, after the plan's start and the
// job's arrival, and whose technicians and bay are free from notBefore for
// its duration (no step in progress, no scheduled step before it in the
// placement order, the bay buffer kept) starts exactly at notBefore.
func (c *checker) scheduledStarts() {
	for id, ps := range c.placed {
		ref := c.steps[id]
		s := ref.step()
		if !c.scheduled(s) || ps.Start.Equal(*s.NotBefore) {
			continue
		}
		at := *s.NotBefore
		work := c.shift(s.TechIDs, s.BayID)
		if !work.Open(at) || at.Before(c.planFrom) || ref.job.ArrivalTime != nil && at.Before(*ref.job.ArrivalTime) {
			continue
		}
		waits := false
		for _, q := range c.predecessors(ref) {
			waits = waits || q.Status != workshop.StepCompleted || q.CompletedAt != nil && q.CompletedAt.After(at)
		}
		if waits || c.blocked(s, ref.job.ID, at, work.AddWork(at, s.Duration)) {
			continue
		}
		c.fail("scheduled step %s starts %v, want exactly its notBefore %v: its technicians and bay are free then", id, ps.Start, at)
	}
}

// blocked: a step in progress, or a scheduled step before s in the
// placement order, is on one of s's technicians or its bay (with the bay
// buffer) within [start, end).
func (c *checker) blocked(s workshop.DispatchStep, job string, start, end time.Time) bool {
	for id, o := range c.placed {
		q := c.steps[id].step()
		if id == s.ID || !(q.Status == workshop.StepInProgress || c.scheduled(q) && scheduledBefore(q, s)) {
			continue
		}
		shared := slices.ContainsFunc(o.TechIDs, func(t string) bool { return slices.Contains(s.TechIDs, t) })
		if shared && o.Start.Before(end) && start.Before(o.End) {
			return true
		}
		if s.BayID == "" || o.BayID != s.BayID {
			continue
		}
		if o.Start.Before(end) && start.Before(o.End) {
			return true
		}
		if o.JobID != job && c.in.BayBuffer > 0 {
			gap := c.in.Calendar.WorkBetween(o.End, start)
			if o.Start.After(start) {
				gap = c.in.Calendar.WorkBetween(end, o.Start)
			}
			if gap < c.in.BayBuffer {
				return true
			}
		}
	}
	return false
}

// outlooks: each job's projected completion, lateness, risk, and the totals.
func (c *checker) outlooks() {
	if len(c.d.Jobs) != len(c.in.Jobs) {
		c.fail("%d job outlooks for %d jobs", len(c.d.Jobs), len(c.in.Jobs))
		return
	}
	var totals workshop.DispatchTotals
	for i, j := range c.in.Jobs {
		o := c.d.Jobs[i]
		if o.JobID != j.ID {
			c.fail("outlook %d is of %s, want %s", i, o.JobID, j.ID)
			continue
		}
		var last time.Time
		unplaced := false
		for _, s := range j.Steps {
			switch {
			case s.Status == workshop.StepCompleted && s.CompletedAt != nil:
				last = maxTime(last, *s.CompletedAt)
			case c.unplaced[s.ID].StepID != "":
				unplaced = true
			default:
				last = maxTime(last, c.placed[s.ID].End)
			}
		}
		late := 0
		if unplaced {
			if o.ProjectedCompletion != nil || !o.AtRisk || o.LateMinutes != 0 {
				c.fail("job %s has an unplaced step: outlook %+v, want no projection, at risk, 0 late minutes", j.ID, o)
			}
		} else {
			if o.ProjectedCompletion == nil || !o.ProjectedCompletion.Equal(last) {
				c.fail("job %s: projected completion %v, want its last step's end %v", j.ID, o.ProjectedCompletion, last)
			}
			if j.PromiseTime != nil && last.After(*j.PromiseTime) {
				late = int(last.Sub(*j.PromiseTime).Minutes())
				if last.Sub(*j.PromiseTime)%time.Minute != 0 {
					late++
				}
			}
			if o.LateMinutes != late || o.AtRisk != (late > 0) {
				c.fail("job %s: late %d at risk %v, want late %d at risk %v", j.ID, o.LateMinutes, o.AtRisk, late, late > 0)
			}
		}
		if o.AtRisk {
			totals.LateJobs++
		}
		totals.WeightedLateMinutes += late * workshop.PriorityWeight(j.Priority)
	}
	totals.PlacedSteps, totals.UnplacedSteps = len(c.d.Steps), len(c.d.Unplaced)
	if totals != c.d.Totals {
		c.fail("totals %+v, want %+v", c.d.Totals, totals)
	}
}

func hasAll(have, need []string) bool {
	for _, n := range need {
		if !slices.Contains(have, n) {
			return false
		}
	}
	return true
}

// suits: a bay takes a step when it is not in maintenance and offers the
// step's service (a bay without services takes any; a step without a
// service code goes in any bay).
func suits(b workshop.DispatchBay, s workshop.DispatchStep) bool {
	return !b.Maintenance && (len(b.Services) == 0 || s.ServiceCode == "" || slices.Contains(b.Services, s.ServiceCode))
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
