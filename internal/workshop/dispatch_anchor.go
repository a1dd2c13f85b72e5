package workshop

import (
	"slices"
	"time"
)

// Re-plans move only what must move (contract section 8). The anchor is
// the last plan computed for a reader. For each pending step it places it
// keeps the step's announced start: its start in the first anchor that
// gave it its present technicians and bay. A later plan moves the step
// when it leaves it unplaced, gives it other technicians or another bay,
// or starts it more than KeptTolerance after its announced start (earlier
// is no move, and a step cannot creep later a little at each re-plan).
// Moves are the objective's third term, so a change moves other work only
// where that lowers unplaced steps or weighted lateness.
//
// Near now the anchor binds: a pending step it placed to start within
// the first KeptWindow of working time after its start keeps, in every
// later plan, its technicians, its bay and its start to within
// KeptTolerance (or the later plan's start, when that is later), while
// that placement stays feasible. Kept placements are fixed after the
// scheduled steps and before any decode, so the objective is minimised
// subject to them.

// KeptWindow is the working time after the anchor's start in which its
// placements are kept.
const KeptWindow = 60 * time.Minute

// KeptTolerance is how far a kept step's start may move either way, and
// how much later than its announced start a step may start without moving.
const KeptTolerance = 15 * time.Minute

// DispatchAnchor is the plan a later plan stays near.
type DispatchAnchor struct {
	Start time.Time // the anchor's start
	// Steps are the pending steps it placed. The caller leaves out those
	// written to since (any write to a step frees it).
	Steps []AnchorStep
	// Jobs are what the anchor promised of each job, by id.
	Jobs map[string]AnchorJob
	// Unchanged: nothing the plan reads has changed since the anchor was
	// computed. Then, until KeptTolerance has passed, a plan moves nothing
	// (contract section 8): it is the anchor as far as it holds.
	Unchanged bool
}

// AnchorJob is the anchor's outlook for a job: its late minutes, or that
// a step of it was unplaced.
type AnchorJob struct {
	LateMinutes int
	Unplaced    bool
}

// AnchorStep is where the anchor placed a pending step.
type AnchorStep struct {
	StepID  string
	TechIDs []string
	BayID   string // "" none
	Start   time.Time
	// Announced is the start the step had in the first anchor that gave
	// it these technicians and this bay (zero: Start).
	Announced time.Time
}

// AnchorOf is the anchor a plan makes: its pending steps' placements (the
// steps in progress are facts, not placements), each announced as in
// prev, the anchor the plan was computed from, when prev gave it the same
// technicians and bay, else at its start in d.
func AnchorOf(in DispatchInput, d Dispatch, prev *DispatchAnchor) DispatchAnchor {
	inProgress := map[string]bool{}
	for _, j := range in.Jobs {
		for _, s := range j.Steps {
			if s.Status == StepInProgress {
				inProgress[s.ID] = true
			}
		}
	}
	before := map[string]AnchorStep{}
	if prev != nil {
		for _, s := range prev.Steps {
			before[s.StepID] = s
		}
	}
	a := DispatchAnchor{Start: d.Start, Steps: []AnchorStep{}, Jobs: make(map[string]AnchorJob, len(d.Jobs))}
	for _, o := range d.Jobs {
		a.Jobs[o.JobID] = AnchorJob{LateMinutes: o.LateMinutes, Unplaced: o.AtRisk && o.ProjectedCompletion == nil}
	}
	for _, s := range d.Steps {
		if inProgress[s.StepID] {
			continue
		}
		as := AnchorStep{StepID: s.StepID, TechIDs: slices.Clone(s.TechIDs), BayID: s.BayID, Start: s.Start, Announced: s.Start}
		if b, ok := before[s.StepID]; ok && b.BayID == s.BayID && slices.Equal(b.TechIDs, s.TechIDs) {
			as.Announced = b.announced()
		}
		a.Steps = append(a.Steps, as)
	}
	return a
}

func (s AnchorStep) announced() time.Time {
	if s.Announced.IsZero() {
		return s.Start
	}
	return s.Announced
}

// anchored is a pending step's placement in the anchor, in µs.
type anchored struct {
	techs            []string
	bay              string
	start, announced int64
}

// Moved reports whether a plan that places a step the anchor placed as a
// at ps (the zero PlannedStep: unplaced) has moved it: left it unplaced,
// given it other technicians or another bay, or started it more than
// KeptTolerance after its announced start (contract section 8).
func Moved(a AnchorStep, ps PlannedStep) bool {
	pl := placement{techs: ps.TechIDs, bay: ps.BayID, start: micros(ps.Start)}
	if ps.StepID == "" {
		pl.reason = "unplaced"
	}
	return (&anchored{techs: a.TechIDs, bay: a.BayID, announced: micros(a.announced())}).moved(pl)
}

// moved: placed as pl, the step has moved from the anchor.
func (a *anchored) moved(pl placement) bool {
	return pl.reason != "" || pl.bay != a.bay || !slices.Equal(pl.techs, a.techs) ||
		pl.start > a.announced+int64(KeptTolerance/time.Microsecond)
}

// frozen: the data has not changed since the anchor and less than
// KeptTolerance has passed; the plan is the warm start alone.
func (p *problem) frozen() bool {
	a := p.in.Anchor
	return a != nil && a.Unchanged && p.start-micros(a.Start) < int64(KeptTolerance/time.Microsecond)
}

// affected are the jobs a re-plan from the anchor must look at again,
// by index: those warm leaves worse than the anchor had them (a step
// unplaced now, or later by more than the minutes passed since when the
// job was late, or later at all when it was not: the contract's bound on a
// re-plan), and, unless only those are asked for, those with work the
// anchor did not place where warm places it (a new job, a new step, a step
// freed by a write) or that warm does not keep where the anchor had it.
// The other jobs are as the anchor had them: a search need not seed there.
func (p *problem) affected(warm decoded, onlyWorse bool) []int {
	a := p.in.Anchor
	passed := int((p.start - micros(a.Start)) / int64(time.Minute/time.Microsecond))
	var out []int
	for ji := range p.jobs {
		pj := &p.jobs[ji]
		was, planned := a.Jobs[pj.job.ID]
		part := warm.parts[ji]
		allowed := was.LateMinutes
		if allowed > 0 {
			allowed += passed
		}
		changed := part.unplaced > 0 && !was.Unplaced || part.weightedLate > allowed*pj.weight
		if !onlyWorse {
			changed = changed || !planned || part.moves > 0
			for si, s := range pj.steps {
				changed = changed || !s.fixed && s.anchor == nil && warm.places[ji][si].reason == ""
			}
		}
		if changed {
			out = append(out, ji)
		}
	}
	return out
}

// anchorSteps gives each pending step of the problem its anchor placement.
func (p *problem) anchorSteps() {
	a := p.in.Anchor
	if a == nil {
		return
	}
	byID := make(map[string]AnchorStep, len(a.Steps))
	for _, s := range a.Steps {
		byID[s.StepID] = s
	}
	for ji := range p.jobs {
		for si := range p.jobs[ji].steps {
			s := &p.jobs[ji].steps[si]
			if as, ok := byID[s.ID]; ok && !s.inProgress {
				s.anchor = &anchored{techs: as.TechIDs, bay: as.BayID, start: micros(as.Start), announced: micros(as.announced())}
			}
		}
	}
}

// placeKept fixes the anchor's placements near now that stay feasible, by
// their anchored start: the technicians and bay still qualified, usable
// and assigned as they were, every step it waits for fixed, and a free
// start within the tolerance of the anchored one (or at the plan's start),
// the anchored one itself when it is free.
func (p *problem) placeKept() {
	a := p.in.Anchor
	if a == nil {
		return
	}
	window := micros(p.cal.AddWork(a.Start, KeptWindow))
	tolerance := int64(KeptTolerance / time.Microsecond)
	var queue []stepRef
	for ji := range p.jobs {
		for si, s := range p.jobs[ji].steps {
			if s.anchor != nil && !s.fixed && s.anchor.start < window {
				queue = append(queue, stepRef{ji, si})
			}
		}
	}
	slices.SortStableFunc(queue, func(x, y stepRef) int {
		return cmp64(p.jobs[x.job].steps[x.step].anchor.start, p.jobs[y.job].steps[y.step].anchor.start)
	})
	for _, r := range queue {
		pj := &p.jobs[r.job]
		s := &pj.steps[r.step]
		if !p.ready(r) || p.ownReason(*s) != "" || !p.usable(s) {
			continue
		}
		release, placeable := max(s.earliest, s.afterEnd), true
		for _, k := range s.after {
			placeable = placeable && pj.steps[k].pre.reason == ""
			release = max(release, pj.steps[k].pre.end)
		}
		if !placeable {
			continue
		}
		lo, hi := max(s.anchor.start-tolerance, p.start, release), max(s.anchor.start+tolerance, p.start)
		if lo > hi {
			continue
		}
		// Where it was if it is free there, else the nearest free start
		// before it within the tolerance.
		techs, bay := p.techIndexes(s.anchor.techs), p.bayChoice(s.anchor.bay)
		start := p.fit(max(lo, s.anchor.start), s.dur, techs, bay, s.job, &p.fixed)
		if start > hi {
			start = p.fit(lo, s.dur, techs, bay, s.job, &p.fixed)
		}
		end := p.clockOf(techs, bay).addWork(start, s.dur)
		if start > hi || end > p.horizon {
			continue
		}
		p.take(&p.fixed, s.anchor.techs, s.anchor.bay, start, end, pj.job.ID)
		s.fixed, s.pre = true, placement{techs: s.anchor.techs, bay: s.anchor.bay, start: start, end: end}
	}
}

// usable: the anchored technicians and bay are ones the step may have
// now: its own assigned ones, or for what is unassigned, qualified and
// available technicians and a suitable bay not in maintenance.
func (p *problem) usable(s *pstep) bool {
	if len(s.anchor.techs) == 0 {
		return false
	}
	if len(s.TechIDs) > 0 {
		if !slices.Equal(s.TechIDs, s.anchor.techs) {
			return false
		}
	} else {
		for _, t := range s.anchor.techs {
			if !slices.Contains(s.techs, t) {
				return false
			}
		}
	}
	switch {
	case s.BayID != "":
		return s.anchor.bay == s.BayID
	case len(p.bays) > 0:
		return slices.Contains(s.bays, s.anchor.bay)
	}
	return s.anchor.bay == ""
}

// onAnchor places a pending step on its anchor's technicians and bay, at
// the first free start from release, when that is no move (usable, and
// not later than its announced start allows); false otherwise.
func (p *problem) onAnchor(s *pstep, release int64, r *resources) (placement, bool) {
	if s.anchor == nil || !p.usable(s) {
		return placement{}, false
	}
	techs, bay := p.techIndexes(s.anchor.techs), p.bayChoice(s.anchor.bay)
	start := p.fit(release, s.dur, techs, bay, s.job, r)
	end := p.clockOf(techs, bay).addWork(start, s.dur)
	pl := placement{techs: s.anchor.techs, bay: s.anchor.bay, start: start, end: end}
	return pl, end <= p.horizon && !s.anchor.moved(pl)
}
