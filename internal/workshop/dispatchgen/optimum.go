package dispatchgen

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// The exact optimum of small days, to measure the planner's gap against:
// written from contract section 8, apart from the planner's code (it
// shares only the calendar's working time), as dispatchcheck is.
//
// The objective (unplaced steps, weighted late minutes, the last
// completion) only grows when a step ends later, so some optimal plan is
// what placing its steps one at a time, in the order of their starts,
// each at the earliest it fits on its technician and bay no earlier than
// the step placed before it, gives back: every step lands no later than
// in that plan (the ones before it did, so nothing they hold is in its
// way longer). The search therefore enumerates every order of the steps
// (their predecessors first) and every technician and bay each may have,
// each step at the earliest fit from the previous step's start, and
// prunes a branch whose lower bound (every step left at its earliest,
// alone) cannot beat the best plan found.

// Exact is the result of Optimum.
type Exact struct {
	Plan   workshop.Dispatch
	Proven bool // the search ended within its node budget: Plan is optimal
	Nodes  int
}

// Optimum searches the plans of in for one better than incumbent (a
// feasible plan of in, such as the planner's) within maxNodes nodes, and
// returns the best it knows.
func Optimum(in workshop.DispatchInput, incumbent workshop.Dispatch, maxNodes int) Exact {
	s := newExactSearch(in)
	s.maxNodes = maxNodes
	s.best = xscore{wl: incumbent.Totals.WeightedLateMinutes, last: lastCompletion(incumbent)}
	s.dfs(s.start)
	out := Exact{Plan: incumbent, Proven: s.nodes <= s.maxNodes, Nodes: s.nodes}
	if s.bestSlots != nil {
		out.Plan = s.dispatch(s.bestSlots)
	}
	return out
}

func lastCompletion(d workshop.Dispatch) time.Time {
	var last time.Time
	for _, o := range d.Jobs {
		if o.ProjectedCompletion != nil {
			last = workshop.Later(last, *o.ProjectedCompletion)
		}
	}
	return last
}

type xscore struct {
	wl   int
	last time.Time
}

func (a xscore) better(b xscore) bool {
	if a.wl != b.wl {
		return a.wl < b.wl
	}
	return a.last.Before(b.last)
}

type xstep struct {
	step     workshop.DispatchStep
	job      int
	techSets [][]string
	bays     []string // [""] in a location without bays
	preds    []int    // pending steps (indexes in steps) it waits for
	release  time.Time
	reason   string // unplaced: why
}

type xjob struct {
	job     workshop.DispatchJob
	weight  int
	doneEnd time.Time
	steps   []int
	blocked bool // a step of it cannot be placed
}

type xuse struct {
	start, end, bufEnd time.Time
	job                int
}

type slot struct {
	placed     bool
	techs      []string
	bay        string
	start, end time.Time
}

type exactSearch struct {
	in             workshop.DispatchInput
	cal            workshop.Calendar
	start, horizon time.Time
	steps          []xstep
	jobs           []xjob
	tech, bay      map[string][]xuse
	assigned       map[string]bool // technicians and bays a step keeps: never interchangeable
	slots          []slot
	left           int // placeable steps not placed
	best           xscore
	bestSlots      []slot
	nodes          int
	maxNodes       int
	shifts         map[string]workshop.Shift // by technicians and bay: when they all work
}

func newExactSearch(in workshop.DispatchInput) *exactSearch {
	s := &exactSearch{in: in, cal: in.Calendar, start: workshop.DispatchStart(in), tech: map[string][]xuse{}, bay: map[string][]xuse{},
		assigned: map[string]bool{}, shifts: map[string]workshop.Shift{}}
	s.horizon = s.start.Add(workshop.DispatchHorizon)
	for _, j := range in.Jobs {
		for _, st := range j.Steps {
			for _, t := range st.TechIDs {
				s.assigned["t:"+t] = true
			}
			if st.BayID != "" {
				s.assigned["b:"+st.BayID] = true
			}
		}
	}
	for ji, j := range in.Jobs {
		s.jobs = append(s.jobs, s.prepareJob(ji, j))
	}
	s.slots = make([]slot, len(s.steps))
	return s
}

// prepareJob lays out a job's steps: completed and in-progress ones are
// facts (ends, and busy technicians and bays); pending ones get their
// candidates, predecessors and release.
func (s *exactSearch) prepareJob(ji int, j workshop.DispatchJob) xjob {
	xj := xjob{job: j, weight: workshop.PriorityWeight(j.Priority)}
	earliest := s.start
	switch zone := s.cal.Zone; {
	case j.ArrivalTime != nil:
		earliest = workshop.Later(earliest, *j.ArrivalTime)
	case j.ExpectedArrival != nil:
		earliest = workshop.Later(earliest, *j.ExpectedArrival)
	case j.PromiseTime != nil:
		if zone == nil {
			zone = time.UTC
		}
		y, m, d := j.PromiseTime.In(zone).Date()
		earliest = workshop.Later(earliest, s.cal.NextOpen(time.Date(y, m, d, 0, 0, 0, 0, zone)))
	}
	ends := map[string]time.Time{} // completed and in progress
	index := map[string]int{}      // pending: index in s.steps
	for i, st := range j.Steps {
		switch st.Status {
		case workshop.StepCompleted:
			if st.CompletedAt != nil {
				ends[st.ID] = *st.CompletedAt
				xj.doneEnd = workshop.Later(xj.doneEnd, *st.CompletedAt)
			}
			continue
		case workshop.StepInProgress:
			end := workshop.Later(s.cal.AddWork(*st.StartedAt, st.Duration), s.start)
			ends[st.ID] = end
			xj.doneEnd = workshop.Later(xj.doneEnd, end)
			u := xuse{start: *st.StartedAt, end: end, bufEnd: end, job: ji}
			for _, t := range st.TechIDs {
				s.tech[t] = append(s.tech[t], u)
			}
			if st.BayID != "" {
				u.bufEnd = s.cal.AddWork(end, s.in.BayBuffer)
				s.bay[st.BayID] = append(s.bay[st.BayID], u)
			}
			continue
		}
		x := xstep{step: st, job: ji, release: earliest}
		for k, q := range j.Steps[:i] {
			if q.Phase == st.Phase && (st.Mode == "parallel" || q.Mode == "parallel") {
				continue
			}
			if end, ok := ends[q.ID]; ok {
				x.release = workshop.Later(x.release, end)
			} else if pi, ok := index[j.Steps[k].ID]; ok {
				x.preds = append(x.preds, pi)
			}
		}
		x.techSets, x.bays = s.candidates(st)
		switch {
		case s.assignedAway(st):
			x.reason = workshop.UnplacedAssigned
		case len(x.techSets) == 0:
			x.reason = workshop.UnplacedNoTechnician
		case len(x.bays) == 0:
			x.reason = workshop.UnplacedNoBay
		default:
			for _, p := range x.preds {
				if r := s.steps[p].reason; r != "" {
					x.reason = r
					break
				}
			}
		}
		if x.reason != "" {
			xj.blocked = true
		} else {
			s.left++
		}
		index[st.ID] = len(s.steps)
		xj.steps = append(xj.steps, len(s.steps))
		s.steps = append(s.steps, x)
	}
	return xj
}

// assignedAway: a person assigned the step to an unavailable technician
// or a bay in maintenance.
func (s *exactSearch) assignedAway(st workshop.DispatchStep) bool {
	for _, t := range s.in.Techs {
		if t.Unavailable && slices.Contains(st.TechIDs, t.ID) {
			return true
		}
	}
	for _, b := range s.in.Bays {
		if b.Maintenance && b.ID == st.BayID {
			return true
		}
	}
	return false
}

func (s *exactSearch) candidates(st workshop.DispatchStep) (techSets [][]string, bays []string) {
	if len(st.TechIDs) > 0 {
		techSets = [][]string{st.TechIDs}
	} else {
		for _, t := range s.in.Techs {
			if !t.Unavailable && !slices.ContainsFunc(st.RequiredSkills, func(k string) bool { return !slices.Contains(t.Skills, k) }) {
				techSets = append(techSets, []string{t.ID})
			}
		}
	}
	switch {
	case st.BayID != "":
		bays = []string{st.BayID}
	case len(s.in.Bays) == 0:
		bays = []string{""}
	default:
		for _, b := range s.in.Bays {
			if !b.Maintenance && (len(b.Services) == 0 || st.ServiceCode == "" || slices.Contains(b.Services, st.ServiceCode)) {
				bays = append(bays, b.ID)
			}
		}
	}
	return techSets, bays
}

// fit is the earliest start from t at which step i is free on techs and
// bay, and its end; ok false past the horizon.
func (s *exactSearch) fit(i int, techs []string, bay string, t time.Time) (start, end time.Time, ok bool) {
	x := &s.steps[i]
	work := s.shift(techs, bay)
	for {
		t = work.NextOpen(t)
		end = work.AddWork(t, x.step.Duration)
		if end.After(s.horizon) {
			return t, end, false
		}
		moved := false
		for _, id := range techs {
			for _, u := range s.tech[id] {
				if t.Before(u.end) && u.start.Before(end) {
					t, moved = workshop.Later(t, u.end), true
				}
			}
		}
		if bay != "" {
			endBuf := s.cal.AddWork(end, s.in.BayBuffer)
			for _, u := range s.bay[bay] {
				if u.job != x.job && s.in.BayBuffer > 0 {
					if t.Before(u.bufEnd) && u.start.Before(endBuf) {
						t, moved = workshop.Later(t, u.bufEnd), true
					}
				} else if t.Before(u.end) && u.start.Before(end) {
					t, moved = workshop.Later(t, u.end), true
				}
			}
		}
		if !moved {
			return t, end, true
		}
	}
}

// shift is when techs and bay all work (the domain's rule, as the
// planner's).
func (s *exactSearch) shift(techs []string, bay string) workshop.Shift {
	key := strings.Join(techs, ",") + "|" + bay
	if w, ok := s.shifts[key]; ok {
		return w
	}
	w := s.cal.Shift(s.start.Add(-24*time.Hour), s.horizon.Add(3*24*time.Hour), s.in.WorkOf(techs, bay)...)
	s.shifts[key] = w
	return w
}

type child struct {
	step       int
	techs      []string
	bay        string
	start, end time.Time
}

func (s *exactSearch) dfs(lastStart time.Time) {
	s.nodes++
	if s.nodes > s.maxNodes {
		return
	}
	if s.left == 0 {
		if sc := s.bound(lastStart); sc.better(s.best) {
			s.best, s.bestSlots = sc, slices.Clone(s.slots)
		}
		return
	}
	if !s.bound(lastStart).better(s.best) {
		return
	}
	var children []child
	for i := range s.steps {
		x := &s.steps[i]
		if x.reason != "" || s.slots[i].placed || slices.ContainsFunc(x.preds, func(p int) bool { return !s.slots[p].placed }) {
			continue
		}
		from := workshop.Later(x.release, lastStart)
		for _, p := range x.preds {
			from = workshop.Later(from, s.slots[p].end)
		}
		seen := map[string]bool{}
		for _, techs := range x.techSets {
			for _, bay := range x.bays {
				if key := s.symmetryKey(techs, bay); key != "" {
					if seen[key] {
						continue
					}
					seen[key] = true
				}
				if start, end, ok := s.fit(i, techs, bay, from); ok {
					children = append(children, child{step: i, techs: techs, bay: bay, start: start, end: end})
				}
			}
		}
	}
	slices.SortStableFunc(children, func(a, b child) int {
		if c := a.end.Compare(b.end); c != 0 {
			return c
		}
		return cmp.Compare(a.step, b.step)
	})
	for _, c := range children {
		s.place(c)
		s.dfs(c.start)
		s.unplace(c)
		if s.nodes > s.maxNodes {
			return
		}
	}
}

// symmetryKey names a choice of idle technician and bay by what they are,
// so that of interchangeable ones (same skills or services, nothing on
// them, kept by no step) only the first is tried; "" when not
// interchangeable.
func (s *exactSearch) symmetryKey(techs []string, bay string) string {
	if len(techs) != 1 || len(s.tech[techs[0]]) > 0 || s.assigned["t:"+techs[0]] {
		return ""
	}
	key := "t" + strings.Join(s.techSkills(techs[0]), ",")
	if bay != "" {
		if len(s.bay[bay]) > 0 || s.assigned["b:"+bay] {
			return ""
		}
		key += "|b" + strings.Join(s.baySvc(bay), ",")
	}
	return key
}

func (s *exactSearch) techSkills(id string) []string {
	for _, t := range s.in.Techs {
		if t.ID == id {
			return slices.Sorted(slices.Values(t.Skills))
		}
	}
	return nil
}

func (s *exactSearch) baySvc(id string) []string {
	for _, b := range s.in.Bays {
		if b.ID == id {
			if len(b.Services) == 0 {
				return []string{"*"}
			}
			return slices.Sorted(slices.Values(b.Services))
		}
	}
	return nil
}

func (s *exactSearch) place(c child) {
	x := &s.steps[c.step]
	s.slots[c.step] = slot{placed: true, techs: c.techs, bay: c.bay, start: c.start, end: c.end}
	s.left--
	u := xuse{start: c.start, end: c.end, bufEnd: c.end, job: x.job}
	for _, t := range c.techs {
		s.tech[t] = append(s.tech[t], u)
	}
	if c.bay != "" {
		u.bufEnd = s.cal.AddWork(c.end, s.in.BayBuffer)
		s.bay[c.bay] = append(s.bay[c.bay], u)
	}
}

func (s *exactSearch) unplace(c child) {
	s.slots[c.step] = slot{}
	s.left++
	for _, t := range c.techs {
		s.tech[t] = s.tech[t][:len(s.tech[t])-1]
	}
	if c.bay != "" {
		s.bay[c.bay] = s.bay[c.bay][:len(s.bay[c.bay])-1]
	}
}

// bound is the score with every step left at its earliest after lastStart
// and its predecessors, alone: exact when none is left.
func (s *exactSearch) bound(lastStart time.Time) xscore {
	var sc xscore
	ends := make([]time.Time, len(s.steps))
	for _, xj := range s.jobs {
		if xj.blocked {
			continue
		}
		end := xj.doneEnd
		for _, i := range xj.steps {
			if s.slots[i].placed {
				ends[i] = s.slots[i].end
			} else {
				x := &s.steps[i]
				from := workshop.Later(x.release, lastStart)
				for _, p := range x.preds {
					from = workshop.Later(from, ends[p])
				}
				ends[i] = s.cal.AddWork(s.cal.NextOpen(from), x.step.Duration)
			}
			end = workshop.Later(end, ends[i])
		}
		if end.IsZero() {
			end = s.start
		}
		sc.wl += workshop.LateMinutes(xj.job.PromiseTime, end) * xj.weight
		sc.last = workshop.Later(sc.last, end)
	}
	return sc
}

// dispatch writes slots as a plan.
func (s *exactSearch) dispatch(slots []slot) workshop.Dispatch {
	zone := s.cal.Zone
	if zone == nil {
		zone = time.UTC
	}
	d := workshop.Dispatch{Start: s.start, Steps: []workshop.PlannedStep{}, Unplaced: []workshop.UnplacedStep{}}
	for ji, xj := range s.jobs {
		o := workshop.JobOutlook{JobID: xj.job.ID, PromiseTime: xj.job.PromiseTime}
		end := xj.doneEnd
		for _, st := range xj.job.Steps {
			if st.Status == workshop.StepInProgress {
				e := workshop.Later(s.cal.AddWork(*st.StartedAt, st.Duration), s.start)
				d.Steps = append(d.Steps, workshop.PlannedStep{StepID: st.ID, JobID: xj.job.ID, TechIDs: st.TechIDs, BayID: st.BayID,
					Start: *st.StartedAt, End: e, Pinned: true})
			}
		}
		for _, i := range xj.steps {
			x := &s.steps[i]
			if x.reason != "" {
				d.Unplaced = append(d.Unplaced, workshop.UnplacedStep{StepID: x.step.ID, JobID: xj.job.ID, Reason: x.reason})
				continue
			}
			sl := slots[i]
			d.Steps = append(d.Steps, workshop.PlannedStep{StepID: x.step.ID, JobID: xj.job.ID, TechIDs: sl.techs, BayID: sl.bay,
				Start: sl.start.In(zone), End: sl.end.In(zone), Pinned: len(x.step.TechIDs) > 0 || x.step.BayID != ""})
			end = workshop.Later(end, sl.end)
		}
		if xj.blocked {
			o.AtRisk = true
		} else {
			if end.IsZero() {
				end = s.start
			}
			e := end.In(zone)
			o.ProjectedCompletion = &e
			o.LateMinutes = workshop.LateMinutes(xj.job.PromiseTime, end)
			o.AtRisk = o.LateMinutes > 0
		}
		if o.AtRisk {
			d.Totals.LateJobs++
		}
		d.Totals.WeightedLateMinutes += o.LateMinutes * s.jobs[ji].weight
		d.Jobs = append(d.Jobs, o)
	}
	slices.SortStableFunc(d.Steps, func(a, b workshop.PlannedStep) int { return a.Start.Compare(b.Start) })
	d.Totals.PlacedSteps, d.Totals.UnplacedSteps = len(d.Steps), len(d.Unplaced)
	return d
}
