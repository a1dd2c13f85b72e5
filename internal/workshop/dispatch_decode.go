package workshop

import (
	"cmp"
	"slices"
	"time"
)

// The planner works in Unix microseconds (int64) on a tabulated clock
// (dispatch_clock.go): a plan asks thousands of "when is this free" and
// "when does this end" questions, and integers answer them cheaply. Times
// are turned back into the location's zone only when the plan is written.

// problem is a plan's input prepared once for many decodes.
type problem struct {
	in      DispatchInput
	cal     Calendar
	clock   *workClock
	start   int64 // the plan's start
	horizon int64 // nothing is placed to end after it
	buffer  int64 // the bay buffer
	jobs    []pjob
	techs   []DispatchTech
	bays    []DispatchBay
	// fixed are the busy times every decode starts from: the steps in
	// progress, on their technicians and bays.
	fixed resources
	// The indexes of technicians, bays and jobs by id, in resources and
	// busy: every id the plan meets has one.
	techAt, bayAt, jobAt map[string]int
	// techDemand and bayDemand are the pending work each could take
	// (weighDemand), for the tie rules that leave the wanted ones free.
	techDemand, bayDemand map[string]float64
	// away are the technicians who are unavailable and closedBay the bays
	// in maintenance, by id: a step assigned to one is not planned there.
	away, closedBay map[string]bool
	// techClock and bayClock are the own working time of the technicians
	// and bays that have one, by index (nil: the location's); clocks are
	// those of several together, made once asked (clockOf).
	techClock, bayClock []*workClock
	clocks              map[clockKey]*workClock
	// placements counts the steps decodes have placed: the search's budget.
	placements int
	// done closes when nobody waits for the plan any more (nil: never).
	done <-chan struct{}
	// stick: a step the anchor placed goes back on its technicians and
	// bay when it can without moving (onAnchor), before any other choice.
	stick bool
}

// stopped: nobody waits for the plan any more; the search stops between
// two decodes.
func (p *problem) stopped() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// pjob is a job prepared: when its work may start, its steps to place in
// precedence order, and what it already has.
type pjob struct {
	job      DispatchJob
	weight   int
	earliest int64   // no step of it starts before
	steps    []pstep // not completed, in the input's order
	doneEnd  int64   // the last end of its completed and in-progress steps (0: none)
}

// pstep is a step to place (pending) or placed already (in progress).
type pstep struct {
	DispatchStep
	jobID      string
	dur        int64
	inProgress bool
	start, end int64 // in progress: its times
	notBefore  int64 // 0: none
	earliest   int64 // it starts no earlier: its job's earliest, or its notBefore's rule
	// fixed steps are placed before any decode (in progress, scheduled),
	// at pre (which may be unplaced).
	fixed bool
	pre   placement
	// after are the indexes (in the job's steps) of the steps it waits for;
	// afterEnd is the latest end of its completed predecessors.
	after    []int
	afterEnd int64
	techs    []string             // qualified technicians, when it has none assigned
	bays     []string             // suitable bays, when it has none assigned and the location has bays
	anchor   *anchored            // where the anchor placed it (dispatch_anchor.go); nil: nowhere
	choice   [orderings]choiceSet // what a decode may give it, in each order (problem.choices)
	job      int32                // its job's index
}

// techIndex, bayIndex and jobIndex are an id's index, given on first
// sight.
func (p *problem) techIndex(id string) int { return indexOf(p.techAt, id) }
func (p *problem) bayIndex(id string) int  { return indexOf(p.bayAt, id) }
func (p *problem) jobIndex(id string) int32 {
	return int32(indexOf(p.jobAt, id))
}

// techIndexes are the indexes of technicians.
func (p *problem) techIndexes(ids []string) []int {
	out := make([]int, len(ids))
	for i, id := range ids {
		out[i] = p.techIndex(id)
	}
	return out
}

// bayChoice is a bay's index, -1 for none ("").
func (p *problem) bayChoice(id string) int {
	if id == "" {
		return -1
	}
	return p.bayIndex(id)
}

func indexOf(m map[string]int, id string) int {
	i, ok := m[id]
	if !ok {
		i = len(m)
		m[id] = i
	}
	return i
}

// Tie rules: which of the resources that let a step end equally early
// a decode gives it. The search decodes its starting orders under every
// rule and goes on with the best: none is best on every day.
const (
	tieListed      = iota // the first listed (technicians and bays in the input's order)
	tieLeastWanted        // the one the rest of the work wants least (leastDemandedFirst)
	tieSpare              // the least wanted of those starting at most spareSlack later
	tieRules
)

// The orders in which a rule tries the resources: as listed, or the least
// wanted first (both tieLeastWanted and tieSpare).
const (
	orderListed = iota
	orderLeastWanted
	orderings
)

// orderOf is the order rule tries the resources in.
func orderOf(rule int) int {
	if rule == tieListed {
		return orderListed
	}
	return orderLeastWanted
}

// choiceSet is what a decode may give a pending step, as ids and as
// indexes, in the order a rule tries them: the technician sets (its
// assigned ones, or each qualified one alone) and the bays (its assigned
// one, the suitable ones, or -1 and "" when the location has none).
type choiceSet struct {
	setIDs     [][]string
	techSets   [][]int
	bayIDs     []string
	bayChoices []int
}

// choices sets what a decode may give a pending step whose candidates
// are known, in each order.
func (p *problem) choices(s *pstep) {
	s.job = p.jobIndex(s.jobID)
	for order := range orderings {
		techs, bays := s.techs, s.bays
		if order == orderLeastWanted {
			techs, bays = leastDemandedFirst(techs, p.techDemand), leastDemandedFirst(bays, p.bayDemand)
		}
		c := &s.choice[order]
		c.setIDs = [][]string{s.TechIDs}
		if len(s.TechIDs) == 0 {
			c.setIDs = make([][]string, len(techs))
			for i := range techs {
				c.setIDs[i] = techs[i : i+1 : i+1]
			}
		}
		c.techSets = make([][]int, len(c.setIDs))
		for i, set := range c.setIDs {
			c.techSets[i] = p.techIndexes(set)
		}
		c.bayIDs = []string{s.BayID} // "" when the location has no bays
		if s.BayID == "" && len(p.bays) > 0 {
			c.bayIDs = bays
		}
		c.bayChoices = make([]int, len(c.bayIDs))
		for i, id := range c.bayIDs {
			c.bayChoices[i] = p.bayChoice(id)
		}
	}
}

func micros(t time.Time) int64 { return t.UnixMicro() }

func (p *problem) timeOf(t int64) time.Time { return time.UnixMicro(t).In(p.cal.zone()) }

func newProblem(in DispatchInput) *problem {
	p := &problem{in: in, cal: in.Calendar, techs: in.Techs, bays: in.Bays, buffer: int64(in.BayBuffer / time.Microsecond),
		techAt: map[string]int{}, bayAt: map[string]int{}, jobAt: map[string]int{}, away: map[string]bool{}, closedBay: map[string]bool{}}
	for _, t := range in.Techs {
		p.away[t.ID] = t.Unavailable
	}
	for _, b := range in.Bays {
		p.closedBay[b.ID] = b.Maintenance
	}
	start := DispatchStart(in)
	from := start
	for _, j := range in.Jobs {
		for _, s := range j.Steps {
			if s.Status == StepInProgress && s.StartedAt != nil && s.StartedAt.Before(from) {
				from = *s.StartedAt
			}
		}
	}
	spanEnd := start.Add(DispatchHorizon + 3*24*time.Hour)
	p.clock = newWorkClock(in.Calendar, from, spanEnd)
	p.start, p.horizon = micros(start), micros(start.Add(DispatchHorizon))
	p.ownClocks(from, spanEnd)
	for _, j := range in.Jobs {
		p.jobs = append(p.jobs, p.prepare(j))
	}
	p.weighDemand()
	for ji := range p.jobs {
		for si := range p.jobs[ji].steps {
			if s := &p.jobs[ji].steps[si]; !s.inProgress {
				p.choices(s)
			}
		}
	}
	// The placement order of contract section 8: the steps in progress,
	// then the scheduled steps, then (issue "Promises that hold") the
	// placements kept near now, fixed here like the others before any
	// decode; the decodes place every other pending step.
	for _, pj := range p.jobs {
		for _, s := range pj.steps {
			if s.inProgress {
				p.take(&p.fixed, s.TechIDs, s.BayID, s.start, s.end, s.jobID)
			}
		}
	}
	p.placeScheduled()
	p.anchorSteps()
	p.placeKept()
	return p
}

// stepRef is a step of the problem: its job's index and its own in it.
type stepRef struct{ job, step int }

// placeScheduled places the scheduled steps (pending, with technicians,
// a bay when the location has bays, and a notBefore) by notBefore, then
// creation, each into the first gap from its notBefore that the steps
// fixed before it leave: free, it starts exactly at its notBefore. A step
// is placed once every step it waits for is fixed (a scheduled step
// waiting for a later one is placed after it); one that waits for a
// pending step that is not scheduled stays for the decodes, which keep its
// technicians, bay and notBefore.
func (p *problem) placeScheduled() {
	var queue []stepRef
	for ji := range p.jobs {
		for si, s := range p.jobs[ji].steps {
			if !s.inProgress && s.notBefore != 0 && len(s.TechIDs) > 0 && (s.BayID != "" || len(p.bays) == 0) {
				queue = append(queue, stepRef{ji, si})
			}
		}
	}
	slices.SortStableFunc(queue, func(a, b stepRef) int {
		sa, sb := &p.jobs[a.job].steps[a.step], &p.jobs[b.job].steps[b.step]
		if c := cmp64(sa.notBefore, sb.notBefore); c != 0 {
			return c
		}
		return sa.CreatedAt.Compare(sb.CreatedAt)
	})
	for {
		i := slices.IndexFunc(queue, func(r stepRef) bool { return p.ready(r) })
		if i < 0 {
			return
		}
		r := queue[i]
		queue = slices.Delete(queue, i, i+1)
		pj := &p.jobs[r.job]
		fixed := make([]placement, len(pj.steps))
		for k := range pj.steps {
			fixed[k] = pj.steps[k].pre
		}
		pl := p.placeStep(pj, r.step, fixed, &p.fixed, tieListed) // its technicians and bay are its own
		if pl.reason == "" {
			p.take(&p.fixed, pl.techs, pl.bay, pl.start, pl.end, pj.job.ID)
		}
		pj.steps[r.step].fixed, pj.steps[r.step].pre = true, pl
	}
}

// ready: every step the step waits for is fixed.
func (p *problem) ready(r stepRef) bool {
	pj := &p.jobs[r.job]
	for _, k := range pj.steps[r.step].after {
		if !pj.steps[k].fixed {
			return false
		}
	}
	return true
}

// prepare finds a job's earliest start, its steps to place and their
// precedence: every step of a lower phase; in a phase, a sequential step
// also waits for the sequential steps before it.
func (p *problem) prepare(j DispatchJob) pjob {
	pj := pjob{job: j, weight: PriorityWeight(j.Priority), earliest: p.start}
	arrived := p.start // a step with a notBefore starts no earlier than it, the plan's start and the arrival
	switch {
	case j.ArrivalTime != nil:
		arrived = max(arrived, micros(*j.ArrivalTime))
		pj.earliest = arrived
	case j.ExpectedArrival != nil: // a booking with a drop-off time; past, it may come any minute
		pj.earliest = max(pj.earliest, micros(*j.ExpectedArrival))
	case j.PromiseTime != nil:
		y, m, d := j.PromiseTime.In(p.cal.zone()).Date()
		pj.earliest = max(pj.earliest, micros(p.cal.NextOpen(time.Date(y, m, d, 0, 0, 0, 0, p.cal.zone()))))
	}
	done := map[string]int64{} // completed steps' ends
	for _, s := range j.Steps {
		if s.Status == StepCompleted {
			end := p.start
			if s.CompletedAt != nil {
				end = micros(*s.CompletedAt)
			}
			done[s.ID] = end
			pj.doneEnd = max(pj.doneEnd, end)
		}
	}
	placed := map[string]int{} // index in pj.steps
	for si, s := range j.Steps {
		if s.Status == StepCompleted {
			continue
		}
		ps := pstep{DispatchStep: s, jobID: j.ID, dur: int64(s.Duration / time.Microsecond), inProgress: s.Status == StepInProgress,
			earliest: pj.earliest}
		if s.NotBefore != nil && !ps.inProgress {
			ps.notBefore = micros(*s.NotBefore)
			ps.earliest = max(arrived, ps.notBefore) // for a booking, in place of the promise's day
		}
		for _, q := range j.Steps[:si] {
			if q.Phase >= s.Phase && (q.Phase != s.Phase || s.Mode == "parallel" || q.Mode == "parallel") {
				continue
			}
			if end, ok := done[q.ID]; ok {
				ps.afterEnd = max(ps.afterEnd, end)
			} else {
				ps.after = append(ps.after, placed[q.ID])
			}
		}
		if ps.inProgress {
			ps.start = p.start
			if s.StartedAt != nil {
				ps.start = micros(*s.StartedAt)
			}
			ps.end = max(p.clock.addWork(ps.start, ps.dur), p.start) // still running: not before now
			pj.doneEnd = max(pj.doneEnd, ps.end)
			ps.fixed, ps.pre = true, placement{techs: s.TechIDs, bay: s.BayID, start: ps.start, end: ps.end}
		} else {
			ps.techs, ps.bays = p.candidates(s)
		}
		placed[s.ID] = len(pj.steps)
		pj.steps = append(pj.steps, ps)
	}
	return pj
}

// candidates are the technicians and bays the planner may give a pending
// step: only for what it does not have assigned.
func (p *problem) candidates(s DispatchStep) (techs, bays []string) {
	if len(s.TechIDs) == 0 {
		for _, t := range p.techs {
			if !t.Unavailable && hasAll(t.Skills, s.RequiredSkills) {
				techs = append(techs, t.ID)
			}
		}
	}
	if s.BayID == "" && len(p.bays) > 0 {
		for _, b := range p.bays {
			if !b.Maintenance && (len(b.Services) == 0 || s.ServiceCode == "" || slices.Contains(b.Services, s.ServiceCode)) {
				bays = append(bays, b.ID)
			}
		}
	}
	return techs, bays
}

// weighDemand weighs how much of the pending work each technician and bay
// could take: every pending step shares its length among its qualified
// technicians (its assigned ones have it all) and among its suitable bays
// (or its assigned one).
func (p *problem) weighDemand() {
	p.techDemand, p.bayDemand = map[string]float64{}, map[string]float64{}
	for _, pj := range p.jobs {
		for _, s := range pj.steps {
			if s.fixed || s.inProgress {
				continue
			}
			for _, id := range s.techs {
				p.techDemand[id] += float64(s.dur) / float64(len(s.techs))
			}
			for _, id := range s.TechIDs {
				p.techDemand[id] += float64(s.dur)
			}
			for _, id := range s.bays {
				p.bayDemand[id] += float64(s.dur) / float64(len(s.bays))
			}
			if s.BayID != "" {
				p.bayDemand[s.BayID] += float64(s.dur)
			}
		}
	}
}

// leastDemandedFirst is ids (of techs or bays) the least demanded first
// (weighDemand), in their order among equals: a step takes, of equally
// early resources, the one that other steps need least, and leaves free
// the one much work waits for (the only brakes technician, the one bay
// that takes body work).
func leastDemandedFirst(ids []string, demand map[string]float64) []string {
	out := slices.Clone(ids)
	slices.SortStableFunc(out, func(a, b string) int { return cmp.Compare(demand[a], demand[b]) })
	return out
}

func hasAll(have, need []string) bool {
	for _, n := range need {
		if !slices.Contains(have, n) {
			return false
		}
	}
	return true
}

// placement is where a decode put a step; reason is set when it could not
// (blockedBy with UnplacedAfter).
type placement struct {
	techs             []string
	bay               string
	start, end        int64
	reason, blockedBy string
}

// decoded is one plan: each job's placements (by its steps' index), each
// job's share of the objective and their sum.
type decoded struct {
	order  []int // the job order it was decoded in; nil for the anchor's plan (warmStart)
	places [][]placement
	parts  []jobScore
	score  score
}

// score is the objective (contract section 8), compared in order: unplaced
// steps, weighted late minutes, moves from the anchor, and the sum of the
// jobs' completions after the plan's start (every job as early as it can
// be, so that no technician waits while ready work waits).
type score struct {
	unplaced, weightedLate, moves int
	completion                    int64 // µs
}

func (a score) better(b score) bool {
	if a.unplaced != b.unplaced {
		return a.unplaced < b.unplaced
	}
	if a.weightedLate != b.weightedLate {
		return a.weightedLate < b.weightedLate
	}
	if a.moves != b.moves {
		return a.moves < b.moves
	}
	return a.completion < b.completion
}

// jobScore is a job's share of the objective: a score of its own.
type jobScore = score

func (a score) plus(b score) score {
	return score{unplaced: a.unplaced + b.unplaced, weightedLate: a.weightedLate + b.weightedLate, moves: a.moves + b.moves,
		completion: a.completion + b.completion}
}

func (a score) minus(b score) score {
	return score{unplaced: a.unplaced - b.unplaced, weightedLate: a.weightedLate - b.weightedLate, moves: a.moves - b.moves,
		completion: a.completion - b.completion}
}

// decode places the jobs' steps job by job in order, under a tie rule.
func (p *problem) decode(order []int, rule int) decoded {
	d := decoded{order: order, places: make([][]placement, len(p.jobs))}
	r := p.fixed.clone()
	for _, ji := range order {
		d.places[ji] = p.placeJob(&p.jobs[ji], &r, rule)
	}
	d.score, d.parts = p.scoreOf(d.places)
	return d
}

// placeJob places a job's steps that are not fixed in precedence order.
func (p *problem) placeJob(pj *pjob, r *resources, rule int) []placement {
	places := make([]placement, len(pj.steps))
	p.placeRest(pj, places, nil, r, rule)
	return places
}

// placeRest places, in precedence order, a job's steps that are neither
// fixed nor decided (placed already, by index; nil: none) into places.
func (p *problem) placeRest(pj *pjob, places []placement, decided []bool, r *resources, rule int) {
	for si, s := range pj.steps {
		switch {
		case s.fixed:
			places[si] = s.pre
		case decided == nil || !decided[si]:
			places[si] = p.placeStep(pj, si, places, r, rule)
			if pl := places[si]; pl.reason == "" {
				p.take(r, pl.techs, pl.bay, pl.start, pl.end, pj.job.ID)
			}
		}
	}
}

// placeStep places step si of pj after the steps it waits for (placed at
// places). A step waiting for an unplaced one is unplaced: for its own
// want of a technician or a bay when it has one, else UnplacedAfter,
// blocked by the first step it waits for that is unplaced for a reason of
// its own (its predecessors' predecessors are its own, so there is one).
func (p *problem) placeStep(pj *pjob, si int, places []placement, r *resources, rule int) placement {
	s := &pj.steps[si]
	release := max(s.earliest, s.afterEnd)
	blocked := placement{}
	for _, k := range s.after {
		switch pl := places[k]; {
		case pl.reason == "":
			release = max(release, pl.end)
		case blocked.reason == "" && pl.reason != UnplacedAfter:
			blocked = placement{reason: UnplacedAfter, blockedBy: pj.steps[k].ID}
		case blocked.reason == "":
			blocked = placement{reason: UnplacedAfter, blockedBy: pl.blockedBy}
		}
	}
	if blocked.reason != "" {
		if own := p.ownReason(*s); own != "" {
			return placement{reason: own}
		}
		return blocked
	}
	p.placements++
	return p.place(s, release, r, rule)
}

// outlook is a job's promise under a decode.
func (p *problem) outlook(pj *pjob, places []placement) JobOutlook {
	o := JobOutlook{JobID: pj.job.ID, PromiseTime: pj.job.PromiseTime}
	end := pj.doneEnd
	for _, pl := range places {
		if pl.reason != "" {
			o.AtRisk = true
			return o
		}
		end = max(end, pl.end)
	}
	if end == 0 {
		end = p.start
	}
	t := p.timeOf(end)
	o.ProjectedCompletion = &t
	o.LateMinutes = LateMinutes(pj.job.PromiseTime, t)
	o.AtRisk = o.LateMinutes > 0
	return o
}

// scoreOf is the objective of places, job by job and in all.
func (p *problem) scoreOf(places [][]placement) (score, []jobScore) {
	var total score
	parts := make([]jobScore, len(p.jobs))
	for ji := range p.jobs {
		parts[ji] = p.jobScoreOf(ji, places[ji])
		total = total.plus(parts[ji])
	}
	return total, parts
}

// jobScoreOf is a job's share of the objective under its placements: its
// unplaced steps and moves and, when every step is placed, its weighted
// late minutes and its completion after the plan's start.
func (p *problem) jobScoreOf(ji int, places []placement) jobScore {
	pj := &p.jobs[ji]
	var js jobScore
	end := pj.doneEnd
	for si, pl := range places {
		if a := pj.steps[si].anchor; a != nil && a.moved(pl) {
			js.moves++
		}
		if pl.reason != "" {
			js.unplaced++
			continue
		}
		end = max(end, pl.end)
	}
	if js.unplaced > 0 {
		return js
	}
	end = max(end, p.start)
	js.completion = end - p.start
	if pj.job.PromiseTime != nil {
		js.weightedLate = microsLateMinutes(end, micros(*pj.job.PromiseTime)) * pj.weight
	}
	return js
}

// dispatch presents a decode as the plan.
func (p *problem) dispatch(d decoded) Dispatch {
	out := Dispatch{Start: p.timeOf(p.start), Steps: []PlannedStep{}, Unplaced: []UnplacedStep{}, Jobs: []JobOutlook{}}
	for ji := range p.jobs {
		pj := &p.jobs[ji]
		o := p.outlook(pj, d.places[ji])
		out.Jobs = append(out.Jobs, o)
		if o.AtRisk {
			out.Totals.LateJobs++
		}
		out.Totals.WeightedLateMinutes += o.LateMinutes * pj.weight
		for si, s := range pj.steps {
			pl := d.places[ji][si]
			if pl.reason != "" {
				out.Unplaced = append(out.Unplaced, UnplacedStep{StepID: s.ID, JobID: pj.job.ID, Reason: pl.reason, BlockedBy: pl.blockedBy})
				continue
			}
			out.Steps = append(out.Steps, PlannedStep{StepID: s.ID, JobID: pj.job.ID, TechIDs: slices.Clone(pl.techs), BayID: pl.bay,
				Start: p.timeOf(pl.start), End: p.timeOf(pl.end), Pinned: s.inProgress || len(s.TechIDs) > 0 || s.BayID != "",
				NotBefore: timeIn(s.NotBefore, p.cal.zone())})
		}
	}
	slices.SortStableFunc(out.Steps, func(a, b PlannedStep) int { return a.Start.Compare(b.Start) })
	out.Totals.PlacedSteps, out.Totals.UnplacedSteps = len(out.Steps), len(out.Unplaced)
	return out
}

// ownClocks lays out the working time of every technician and bay that
// has one of their own (worktime.go) over the plan's span.
func (p *problem) ownClocks(from, to time.Time) {
	p.clocks = map[clockKey]*workClock{}
	for _, t := range p.techs {
		if i := p.techIndex(t.ID); t.Work.Own() {
			*clockAt(&p.techClock, i) = ownClock(p.cal, p.cal.WorkPeriods(t.Work, from, to), from, to)
		}
	}
	for _, b := range p.bays {
		if i := p.bayIndex(b.ID); b.Work.Own() {
			*clockAt(&p.bayClock, i) = ownClock(p.cal, p.cal.WorkPeriods(b.Work, from, to), from, to)
		}
	}
}

func clockAt(list *[]*workClock, i int) **workClock {
	if i >= len(*list) {
		*list = append(*list, make([]*workClock, i+1-len(*list))...)
	}
	return &(*list)[i]
}

// clockKey names the own clocks of up to two technicians and a bay, by
// index (-1: none); more technicians with clocks of their own are rare
// and laid out on every question.
type clockKey struct{ t0, t1, bay int32 }

// clockOf is when the technicians and bay (by index, -1: none) given all
// work: the location's working time unless one of them has their own.
func (p *problem) clockOf(techs []int, bay int) *workClock {
	key, n := clockKey{-1, -1, -1}, 0
	var last *workClock
	for _, i := range techs {
		if i < len(p.techClock) && p.techClock[i] != nil {
			switch n {
			case 0:
				key.t0 = int32(i)
			case 1:
				key.t1 = int32(i)
			}
			n, last = n+1, p.techClock[i]
		}
	}
	if bay >= 0 && bay < len(p.bayClock) && p.bayClock[bay] != nil {
		key.bay, n, last = int32(bay), n+1, p.bayClock[bay]
	}
	switch {
	case n == 0:
		return p.clock
	case n == 1:
		return last
	case n > 3 || n == 3 && key.bay < 0:
		return p.combine(techs, bay)
	}
	if c, ok := p.clocks[key]; ok {
		return c
	}
	c := p.combine(techs, bay)
	p.clocks[key] = c
	return c
}

// combine lays out when all of them work.
func (p *problem) combine(techs []int, bay int) *workClock {
	var out *workClock
	join := func(c *workClock) {
		if out == nil {
			out = c
		} else {
			out = both(out, c)
		}
	}
	for _, i := range techs {
		if i < len(p.techClock) && p.techClock[i] != nil {
			join(p.techClock[i])
		}
	}
	if bay >= 0 && bay < len(p.bayClock) && p.bayClock[bay] != nil {
		join(p.bayClock[bay])
	}
	return out
}
